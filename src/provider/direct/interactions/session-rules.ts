/**
 * The host session's own permission rules, as the classic OpenCode plugin hands them to
 * each call (`providerOptions.cursor.sessionRules`): the session's rule list
 * (`{ permission, pattern, action }`, OpenCode's shape, the last matching rule wins), or
 * word that the rules could not be read. A host that hands over nothing leaves plans and
 * mode switches as they are; rules that could not be read block the two things that need
 * them (saving a plan, switching into a mode that implements), never ordinary requests.
 *
 * @module
 */
import { CursorError } from "../../../core/cursor-error.ts";

/** One rule of the session (OpenCode's `PermissionRule`). */
export interface PermissionRule {
  /** The permission it covers (`edit`, `bash`, … or a wildcard). */
  readonly permission: string;
  /** The pattern it covers (a path or command wildcard; `*` covers all). */
  readonly pattern: string;
  /** What the rule does with a matching request. */
  readonly action: "allow" | "deny" | "ask";
}

/** What the plugin found when it read the session's rules. */
export type SessionRules =
  | { readonly status: "readable"; readonly rules: readonly PermissionRule[] }
  | { readonly status: "unreadable"; readonly reason: string };

/**
 * Reads `sessionRules` strictly: a malformed value is an error, never ignored.
 *
 * @param raw The option's value.
 * @returns The rules.
 * @throws {CursorError} `invalid_argument` for a malformed value.
 *
 * @example
 * ```ts
 * import { parseSessionRules } from "./session-rules.ts";
 *
 * const rules = parseSessionRules({ status: "readable", rules: [{ permission: "edit", pattern: "*", action: "deny" }] });
 * console.assert(rules.status === "readable" && rules.rules.length === 1);
 * ```
 */
export function parseSessionRules(raw: unknown): SessionRules {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalid(`must be an object, got ${JSON.stringify(raw)}`);
  }
  const { status, rules, reason } = raw as Record<string, unknown>;
  if (status === "unreadable") {
    return { status, reason: typeof reason === "string" ? reason : "unknown" };
  }
  if (status !== "readable") {
    throw invalid(`status must be "readable" or "unreadable", got ${JSON.stringify(status)}`);
  }
  if (!Array.isArray(rules)) throw invalid("rules must be an array");
  return { status, rules: rules.map(readRule) };
}

function readRule(item: unknown, index: number): PermissionRule {
  const rule = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
  const { permission, pattern, action } = rule;
  if (
    typeof permission !== "string" || typeof pattern !== "string" ||
    (action !== "allow" && action !== "deny" && action !== "ask")
  ) {
    throw invalid(
      `rules[${index}] must be {permission, pattern, action: "allow"|"deny"|"ask"}, got ${
        JSON.stringify(item)
      }`,
    );
  }
  return { permission, pattern, action };
}

function invalid(message: string): CursorError {
  return new CursorError(
    "invalid_argument",
    `Invalid providerOptions.cursor.sessionRules: ${message}`,
  );
}

/** Patterns that cover every file. */
const EVERY_FILE: ReadonlySet<string> = new Set(["*", "**", "**/*"]);

/**
 * Whether the session denies edits session-wide: the last rule for `edit` that covers
 * every file denies. Allowing single files (the plan file) after it does not lift it.
 *
 * @param rules The session's rules.
 * @returns `true` when edits are denied.
 *
 * @example
 * ```ts
 * import { editDenied } from "./session-rules.ts";
 *
 * const rules = [
 *   { permission: "edit", pattern: "*", action: "deny" as const },
 *   { permission: "edit", pattern: ".opencode/plans/*.md", action: "allow" as const },
 * ];
 * console.assert(editDenied(rules));
 * console.assert(!editDenied([...rules, { permission: "*", pattern: "*", action: "allow" as const }]));
 * ```
 */
export function editDenied(rules: readonly PermissionRule[]): boolean {
  const last = rules.findLast((rule) =>
    wildcardMatch("edit", rule.permission) && EVERY_FILE.has(rule.pattern)
  );
  return last?.action === "deny";
}

/** OpenCode's wildcard: `*` any run of characters, `?` one character. */
function wildcardMatch(text: string, pattern: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")
    .replaceAll("?", ".");
  return new RegExp(`^${source}$`, "s").test(text);
}

/** Why a plan or an implementing switch cannot go ahead under these rules, if it cannot. */
export type RuleBlock = "unreadable" | "edit-denied" | undefined;

/**
 * What the rules say about saving a plan or switching into a mode that implements.
 *
 * @param rules The rules of this call (`undefined`: the host hands over none).
 * @returns Why it is blocked, or `undefined`.
 *
 * @example
 * ```ts
 * import { ruleBlock } from "./session-rules.ts";
 *
 * console.assert(ruleBlock({ status: "unreadable", reason: "timeout" }) === "unreadable");
 * console.assert(ruleBlock(undefined) === undefined);
 * ```
 */
export function ruleBlock(rules: SessionRules | undefined): RuleBlock {
  if (rules === undefined) return undefined;
  if (rules.status === "unreadable") return "unreadable";
  return editDenied(rules.rules) ? "edit-denied" : undefined;
}
