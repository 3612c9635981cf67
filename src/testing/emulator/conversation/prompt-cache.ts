/**
 * The emulated prompt cache and token estimate.
 *
 * - Tokens of `n` bytes: `ceil(n / 4)` ({@link estimateTokens}).
 * - Each model call has a prompt: the system prompt JSON, the request-context bytes the
 *   client answered with (tools, rules, env…), the transcript roots, then this turn's new
 *   messages, concatenated.
 * - Cache read of a call = whole tokens (`floor(bytes / 4)`) of the longest byte-identical
 *   prefix shared with the previous prompt of the same conversation (the previous call of
 *   this Run, or the last call of the conversation's previous Run).
 * - Cache write = prompt tokens − cache read (the whole prompt is written, with one
 *   breakpoint at its end); uncached = 0, except prompts under the minimum cacheable size
 *   (default 0 tokens) are neither read nor written.
 * - Ideal cache read = what a client that kept the request context byte-identical and
 *   continued warm would have read: the previous prompt of the Run for later calls; for
 *   the first call, the prompt minus this turn's new message and the previous turn's final
 *   answer (which no earlier prompt contained), or 0 for a conversation's first turn.
 *   It is never below the actual cache read.
 *
 * @module
 */

/**
 * Estimated tokens of `bytes` bytes.
 *
 * @example
 * ```ts
 * import { estimateTokens } from "../../mod.ts";
 *
 * console.assert(estimateTokens(9) === 3);
 * ```
 */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

/** Whole tokens inside `bytes` bytes (for prefixes). */
export function wholeTokens(bytes: number): number {
  return Math.floor(bytes / 4);
}

/** Length of the longest common prefix of two byte arrays. */
export function commonPrefixLength(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a[i] === b[i]) i++;
  return i;
}

/** Usage of one model call's prompt. */
export interface PromptUsage {
  readonly promptTokens: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly uncached: number;
  readonly idealCacheRead: number;
}

/**
 * Accounts one model call.
 *
 * @param prompt This call's prompt bytes.
 * @param previous The conversation's previous prompt, if any is cached.
 * @param idealBytes Bytes a perfectly continuing client would have had cached.
 * @param minCacheTokens Prompts smaller than this are not cached.
 * @returns The usage.
 */
export function accountPrompt(
  prompt: Uint8Array,
  previous: Uint8Array | undefined,
  idealBytes: number,
  minCacheTokens = 0,
): PromptUsage {
  const promptTokens = estimateTokens(prompt.length);
  if (promptTokens < minCacheTokens) {
    return { promptTokens, cacheRead: 0, cacheWrite: 0, uncached: promptTokens, idealCacheRead: 0 };
  }
  const cacheRead = previous === undefined ? 0 : wholeTokens(commonPrefixLength(prompt, previous));
  return {
    promptTokens,
    cacheRead,
    cacheWrite: promptTokens - cacheRead,
    uncached: 0,
    idealCacheRead: Math.max(cacheRead, wholeTokens(idealBytes)),
  };
}

/** The pieces of a prompt, in order. */
export interface PromptParts {
  readonly system: Uint8Array;
  readonly context: Uint8Array;
  /** Transcript roots after the system prompt. */
  readonly roots: readonly Uint8Array[];
  /** Messages added during this Run (user message, assistant/tool messages). */
  readonly current: readonly Uint8Array[];
}

const SEPARATOR = 0x1e;

/** Concatenates prompt parts (each followed by a record separator byte). */
export function assemblePrompt(parts: PromptParts): Uint8Array {
  const all = [parts.system, parts.context, ...parts.roots, ...parts.current];
  let length = 0;
  for (const part of all) length += part.length + 1;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of all) {
    out.set(part, offset);
    offset += part.length;
    out[offset++] = SEPARATOR;
  }
  return out;
}
