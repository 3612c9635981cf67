/**
 * OpenCode's model `family` for a Cursor model id. OpenCode 1.18.33 picks the model for
 * titles and summaries (its "small model") by family: unless `small_model` is configured,
 * it takes the provider's newest entry of family `gemini-flash`, then `gpt-nano`, then
 * `claude-haiku`, and falls back to the chat model when none is listed. The families
 * follow the names of OpenCode's model catalogue (`claude-sonnet`, `gpt-mini`, …).
 *
 * @module
 */

/** Family rules, first match wins: a pattern over the lower-cased Cursor model id. */
const FAMILY_RULES: readonly (readonly [RegExp, string])[] = [
  [/haiku/, "claude-haiku"],
  [/sonnet/, "claude-sonnet"],
  [/opus/, "claude-opus"],
  [/gemini.*flash-lite/, "gemini-flash-lite"],
  [/gemini.*flash/, "gemini-flash"],
  [/gemini.*pro/, "gemini-pro"],
  [/gpt.*nano/, "gpt-nano"],
  [/gpt.*mini/, "gpt-mini"],
  [/gpt.*codex/, "gpt-codex"],
  [/^gpt/, "gpt"],
  [/grok/, "grok"],
  [/composer/, "composer"],
  [/kimi/, "kimi"],
  [/deepseek/, "deepseek"],
];

/**
 * The OpenCode family of a Cursor model, or `undefined` when the id names none (such as
 * `default`, Cursor's Auto).
 *
 * @param modelId The Cursor model id.
 * @returns The family, e.g. `claude-haiku` for `claude-4.5-haiku`.
 *
 * @example
 * ```ts
 * import { openCodeFamily } from "./model-family.ts";
 *
 * console.assert(openCodeFamily("claude-4.5-haiku") === "claude-haiku");
 * console.assert(openCodeFamily("gemini-2.5-flash") === "gemini-flash");
 * console.assert(openCodeFamily("default") === undefined);
 * ```
 */
export function openCodeFamily(modelId: string): string | undefined {
  const id = modelId.toLowerCase();
  return FAMILY_RULES.find(([pattern]) => pattern.test(id))?.[1];
}
