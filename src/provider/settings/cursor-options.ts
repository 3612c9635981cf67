/**
 * Per-call Cursor options (`providerOptions.cursor`), read strictly and in one table:
 * every key the provider understands is one row with its own reader, so a new option is
 * one new row. An unknown key, a wrong type or an empty value is an `invalid_argument`
 * error naming the key (and the nearest valid one for a typo); a handful of keys other
 * hosts put under every provider's options are ignored with a warning.
 *
 * @module
 */
import type { SharedV3ProviderOptions, SharedV3Warning } from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import { parseSessionRules, type SessionRules } from "../direct/interactions/session-rules.ts";

/** A Cursor model parameter (`effort=high`, `thinking=true`, `context=1m`, …). */
export interface CursorParameter {
  /** The parameter id (`effort`, `thinking`, `context`, …). */
  readonly id: string;
  /** Its value, always a string (`high`, `true`, `1m`, …). */
  readonly value: string;
}

/**
 * What `providerOptions.cursor` may carry. Use it with `satisfies` to catch a typo at
 * compile time; at run time an unknown key is an error too.
 *
 * @example Type-checked provider options
 * ```ts
 * import type { CursorProviderOptions } from "../../../mod.ts";
 *
 * const cursor = { sessionId: "chat-1", usage: "request" } satisfies CursorProviderOptions;
 * console.assert(cursor.sessionId === "chat-1");
 * ```
 */
export interface CursorProviderOptions {
  /** Key of the host conversation, for apps that send no session header (keeps turns warm). */
  readonly sessionId?: string;
  /** The Cursor model id when it differs from the host's model id (e.g. `-1m` entries). */
  readonly cursorModelId?: string;
  /** The exact variant parameter tuple, e.g. `[{ id: "thinking", value: "true" }]`. */
  readonly cursorVariantParameters?: readonly CursorParameter[];
  /** Ask for Max Mode. Implied by a `context=1m` parameter. */
  readonly cursorMaxMode?: boolean;
  /** The usage shape of this call's finishes (default: the provider's `usage` setting). */
  readonly usage?: "occupancy" | "request";
  /** The host session's permission rules (the classic OpenCode plugin sets them). */
  readonly sessionRules?: SessionRules;
  /**
   * The absolute directory of the project this call belongs to (the OpenCode plugin sets
   * the session's project); without it the provider's `workspace` setting, else the
   * current directory at call time.
   */
  readonly workspace?: string;
}

/** The options as read: the same shape, every value checked. */
export type CursorCallOptions = CursorProviderOptions;

/** One row of the table: how a key's value is checked. */
type OptionReader<K extends keyof CursorProviderOptions> = (
  value: unknown,
) => NonNullable<CursorProviderOptions[K]>;

type OptionTable = { readonly [K in keyof Required<CursorProviderOptions>]: OptionReader<K> };

/** Every key `providerOptions.cursor` takes, with its reader. */
const OPTION_READERS: OptionTable = {
  sessionId: (value) => nonEmptyString("sessionId", value),
  cursorModelId: (value) => nonEmptyString("cursorModelId", value),
  cursorVariantParameters: readVariantParameters,
  cursorMaxMode: (value) => {
    if (typeof value !== "boolean") throw invalidType("cursorMaxMode", "a boolean", value);
    return value;
  },
  usage: (value) => {
    if (value !== "occupancy" && value !== "request") {
      throw invalid(`usage must be "occupancy" or "request", got ${JSON.stringify(value)}`);
    }
    return value;
  },
  sessionRules: parseSessionRules,
  workspace: readWorkspace,
};

/** The keys `providerOptions.cursor` takes, in the table's order. */
export const CURSOR_OPTION_KEYS: readonly (keyof CursorProviderOptions)[] = Object.keys(
  OPTION_READERS,
) as (keyof CursorProviderOptions)[];

/**
 * Keys other hosts put under every provider's options (OpenCode sets `reasoningEffort`
 * for every `gpt-5` model, whatever the provider): accepted, ignored with a warning.
 */
export const FOREIGN_OPTION_KEYS: readonly string[] = [
  "reasoningEffort",
  "reasoningSummary",
  "textVerbosity",
  "include",
  "promptCacheKey",
  "store",
];

/** The options read from one call, with the warnings for the keys that were ignored. */
export interface ParsedCursorOptions {
  readonly options: CursorCallOptions;
  readonly warnings: readonly SharedV3Warning[];
}

/**
 * Reads `providerOptions.cursor` (or `providerOptions[providerName]`) strictly.
 *
 * @param providerOptions The call's provider options.
 * @param providerName The provider's name (`cursor`, or what the host registered).
 * @returns The checked options and the warnings for ignored host keys.
 * @throws {CursorError} `invalid_argument` for an unknown key, a wrong type or an empty value.
 *
 * @example A typo names the key it meant
 * ```ts
 * import { parseCursorOptions } from "./cursor-options.ts";
 *
 * try {
 *   parseCursorOptions({ cursor: { sesionId: "chat-1" } }, "cursor");
 * } catch (error) {
 *   console.assert(String(error).includes('did you mean "sessionId"'));
 * }
 * ```
 */
export function parseCursorOptions(
  providerOptions: SharedV3ProviderOptions | undefined,
  providerName: string,
): ParsedCursorOptions {
  const raw: unknown = providerOptions?.[providerName] ?? providerOptions?.cursor;
  if (raw === undefined) return { options: {}, warnings: [] };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalid(`expected an object, got ${describe(raw)}`);
  }
  const out: Record<string, unknown> = {};
  const warnings: SharedV3Warning[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Object.hasOwn(OPTION_READERS, key)) {
      const read = OPTION_READERS[key as keyof OptionTable] as (value: unknown) => unknown;
      out[key] = read(value);
    } else if (FOREIGN_OPTION_KEYS.includes(key)) {
      warnings.push({
        type: "unsupported",
        feature: `providerOptions.cursor.${key}`,
        details: "Cursor has no such setting; ignored",
      });
    } else {
      throw unknownKey(key);
    }
  }
  return { options: out as CursorCallOptions, warnings };
}

/**
 * Reads `providerOptions.cursor` strictly, without the warnings.
 *
 * @param providerOptions The call's provider options.
 * @param providerName The provider's name.
 * @returns The checked options.
 * @throws {CursorError} `invalid_argument` for a malformed value.
 */
export function readCursorOptions(
  providerOptions: SharedV3ProviderOptions | undefined,
  providerName: string,
): CursorCallOptions {
  return parseCursorOptions(providerOptions, providerName).options;
}

function readVariantParameters(list: unknown): readonly CursorParameter[] {
  if (!Array.isArray(list)) {
    throw invalidType("cursorVariantParameters", "an array of {id, value}", list);
  }
  return list.map((item: unknown, index) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw invalid(`cursorVariantParameters[${index}] is not an object`);
    }
    const { id, value } = item as Record<string, unknown>;
    if (typeof id !== "string" || id === "" || typeof value !== "string") {
      throw invalid(`cursorVariantParameters[${index}] must be {id: string, value: string}`);
    }
    return { id, value };
  });
}

const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/])/;

/** An absolute POSIX or Windows directory, returned without trailing separators. */
function readWorkspace(value: unknown): string {
  if (
    typeof value !== "string" || value.includes("\u0000") || /[\r\n]/.test(value) ||
    !(value.startsWith("/") || WINDOWS_ABSOLUTE.test(value))
  ) {
    throw invalid(`workspace must be an absolute directory path, got ${JSON.stringify(value)}`);
  }
  const trimmed = value.replace(/[\\/]+$/, "");
  if (trimmed === "") return "/";
  // `C:` alone would mean the drive's current directory: keep its separator.
  return /^[A-Za-z]:$/.test(trimmed) ? `${trimmed}${value[2]}` : trimmed;
}

function nonEmptyString(key: string, value: unknown): string {
  if (typeof value !== "string") throw invalidType(key, "a non-empty string", value);
  if (value.trim() === "") throw invalid(`${key} must be a non-empty string, got ""`);
  return value;
}

function unknownKey(key: string): CursorError {
  const nearest = nearestKey(key);
  const hint = nearest === undefined
    ? `valid keys: ${CURSOR_OPTION_KEYS.join(", ")}`
    : `did you mean "${nearest}"?`;
  return invalid(`unknown key ${JSON.stringify(key)}, ${hint}`);
}

/** The valid key closest to a typo (case-insensitive edit distance at most 3). */
function nearestKey(key: string): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of CURSOR_OPTION_KEYS) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance <= 3 && (best === undefined || distance < best.distance)) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return JSON.stringify(value);
  }
  return `a ${typeof value}`;
}

function invalidType(key: string, expected: string, value: unknown): CursorError {
  return invalid(`${key} must be ${expected}, got ${describe(value)}`);
}

function invalid(message: string): CursorError {
  return new CursorError("invalid_argument", `Invalid providerOptions.cursor: ${message}`);
}
