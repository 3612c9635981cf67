/**
 * The shape of a Cursor API key, checked before it is used: surrounding whitespace
 * (a pasted key, a `.env` line with a trailing newline) is trimmed; anything else that
 * cannot be part of a key fails with a clear `config` error instead of a confusing
 * network or sign-in failure later. Messages never repeat the key.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

/** The prefix every Cursor API key starts with. */
export const API_KEY_PREFIX = "crsr_";

/**
 * Trims a Cursor API key and checks its shape.
 *
 * @param value The key as configured or pasted.
 * @returns The key without surrounding whitespace.
 * @throws {CursorError} `config` when the key is empty, does not start with `crsr_`, or
 *   contains whitespace or control characters inside.
 *
 * @example
 * ```ts
 * import { normalizeApiKey } from "./api-key.ts";
 *
 * console.assert(normalizeApiKey(" \tcrsr_abc123\n") === "crsr_abc123");
 * let refused = false;
 * try {
 *   normalizeApiKey("crsr_abc\n123");
 * } catch {
 *   refused = true;
 * }
 * console.assert(refused);
 * ```
 */
export function normalizeApiKey(value: string): string {
  const key = value.trim();
  if (key === "") throw new CursorError("config", "Invalid Cursor API key: it is empty");
  if (!key.startsWith(API_KEY_PREFIX)) {
    throw new CursorError(
      "config",
      `Invalid Cursor API key: a key starts with "${API_KEY_PREFIX}" (create one at cursor.com/settings)`,
    );
  }
  const bad = /[^\x21-\x7e]/.exec(key);
  if (bad !== null) {
    throw new CursorError(
      "config",
      `Invalid Cursor API key (${key.length} characters): it contains ${
        describeCharacter(bad[0])
      } at position ${bad.index + 1}; paste the key again as one line`,
    );
  }
  return key;
}

/**
 * The API key a provider is configured with, whichever backend uses it: none when the
 * setting (or `CURSOR_API_KEY`) is absent, empty or only whitespace; otherwise the key
 * checked by {@link normalizeApiKey}. Both backends call this before a key is used, so a
 * pasted key with a stray space or line break behaves the same on each.
 *
 * @param value The configured value (`apiKey`, else `CURSOR_API_KEY`).
 * @returns The trimmed key, or `undefined` when none is configured.
 * @throws {CursorError} `config` for a malformed key (see {@link normalizeApiKey}).
 *
 * @example
 * ```ts
 * import { configuredApiKey } from "./api-key.ts";
 *
 * console.assert(configuredApiKey(undefined) === undefined);
 * console.assert(configuredApiKey(" \n") === undefined);
 * console.assert(configuredApiKey("\tcrsr_abc123 ") === "crsr_abc123");
 * ```
 */
export function configuredApiKey(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  return normalizeApiKey(value);
}

function describeCharacter(character: string): string {
  if (character === "\n" || character === "\r") return "a line break";
  if (character === "\t") return "a tab";
  if (character === " ") return "a space";
  const code = character.codePointAt(0) ?? 0;
  return `the character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}
