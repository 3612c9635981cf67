/**
 * Reads the OpenCode session's own permission rules for the provider: OpenCode 1.18's
 * `GET /session/{id}` (the plugin client's `session.get`) returns the session with
 * `permission: [{ permission, pattern, action }]` (rules added later come last and win).
 * A failed lookup is retried once; when it still fails the rules are reported unreadable,
 * never as an empty list, so the provider blocks plans and implementing mode switches
 * while ordinary requests go on. Compaction, title and summary calls read no rules.
 *
 * @module
 */
import type {
  PermissionRule,
  SessionRules,
} from "../src/provider/direct/interactions/session-rules.ts";
import type { SessionClientLike } from "./host-types.ts";

/** OpenCode's hidden agents, whose calls read no rules. */
const NO_RULES_AGENTS: ReadonlySet<string> = new Set(["compaction", "title", "summary"]);

/** How long one lookup may take. */
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Whether a call of this agent reads the session's rules.
 *
 * @param agent The agent name from `chat.params`.
 * @returns `false` for compaction, title and summary calls.
 *
 * @example
 * ```ts
 * import { agentReadsRules } from "./session-rules.ts";
 *
 * console.assert(agentReadsRules("build") && !agentReadsRules("compaction"));
 * ```
 */
export function agentReadsRules(agent: string | undefined): boolean {
  return !NO_RULES_AGENTS.has(agent ?? "");
}

/**
 * Reads a session's rules, retrying a failed lookup once.
 *
 * @param client The plugin's OpenCode client.
 * @param sessionID The session.
 * @returns The rules, or why they could not be read.
 *
 * @example
 * ```ts
 * import { readSessionRules } from "./session-rules.ts";
 *
 * const client = { get: () => Promise.resolve({ data: { id: "ses_1", permission: [{ permission: "edit", pattern: "*", action: "deny" }] } }) };
 * const rules = await readSessionRules(client, "ses_1");
 * console.assert(rules.status === "readable" && rules.rules[0]?.action === "deny");
 * ```
 */
export async function readSessionRules(
  client: SessionClientLike | undefined,
  sessionID: string,
): Promise<SessionRules> {
  if (client === undefined) {
    return { status: "unreadable", reason: "this OpenCode client cannot look sessions up" };
  }
  let reason = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const result = await withTimeout(client.get({ path: { id: sessionID } }));
      const rules = rulesOf(result.data, sessionID);
      if (typeof rules !== "string") return { status: "readable", rules };
      reason = result.error === undefined ? rules : describe(result.error);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  return { status: "unreadable", reason };
}

function rulesOf(data: unknown, sessionID: string): PermissionRule[] | string {
  if (typeof data !== "object" || data === null || (data as { id?: unknown }).id !== sessionID) {
    return `no session ${JSON.stringify(sessionID)} in the answer`;
  }
  const permission = (data as { permission?: unknown }).permission;
  if (permission === undefined) return [];
  if (!Array.isArray(permission)) return "the session's permission is not a list";
  const rules: PermissionRule[] = [];
  for (const item of permission) {
    const rule = (typeof item === "object" && item !== null ? item : {}) as Record<
      string,
      unknown
    >;
    const { permission: name, pattern, action } = rule;
    if (
      typeof name !== "string" || typeof pattern !== "string" ||
      (action !== "allow" && action !== "deny" && action !== "ask")
    ) return `a rule of the session is malformed: ${JSON.stringify(item)}`;
    rules.push({ permission: name, pattern, action });
  }
  return rules;
}

function describe(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const data = (error as { data?: { message?: unknown } }).data;
    if (typeof data?.message === "string") return data.message;
  }
  return JSON.stringify(error) ?? String(error);
}

async function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the session lookup took longer than ${LOOKUP_TIMEOUT_MS} ms`)),
      LOOKUP_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
