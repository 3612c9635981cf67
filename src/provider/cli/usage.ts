/**
 * Converts the CLI's `result.usage` into the AI SDK's usage shape.
 *
 * Cursor reports `inputTokens` next to `cacheReadTokens` and `cacheWriteTokens`; the
 * CLI's documentation does not say whether `inputTokens` includes the cached part.
 * This library reads it as the uncached part (the reading other CLI drivers use), so
 * the prompt total is `inputTokens + cacheReadTokens + cacheWriteTokens`.
 *
 * @module
 */
import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import type { CliUsage } from "../../cli/stream-event.ts";

/**
 * Converts CLI usage; absent usage gives all-`undefined` counts (never invented zeros).
 *
 * @param usage The parsed `usage` object of the `result` event, if any.
 * @returns The AI SDK usage.
 *
 * @example
 * ```ts
 * import { convertCliUsage } from "./usage.ts";
 *
 * const usage = convertCliUsage({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 90, cacheWriteTokens: 0, raw: {} });
 * console.assert(usage.inputTokens.total === 100 && usage.inputTokens.cacheRead === 90);
 * ```
 */
export function convertCliUsage(usage: CliUsage | undefined): LanguageModelV3Usage {
  if (usage === undefined) {
    return {
      inputTokens: {
        total: undefined,
        noCache: undefined,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    };
  }
  const noCache = usage.inputTokens;
  const cacheRead = usage.cacheReadTokens;
  const cacheWrite = usage.cacheWriteTokens;
  const anyInput = noCache !== undefined || cacheRead !== undefined || cacheWrite !== undefined;
  const output = usage.outputTokens;
  const reasoning = usage.reasoningTokens;
  return {
    inputTokens: {
      total: anyInput ? (noCache ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0) : undefined,
      noCache,
      cacheRead,
      cacheWrite,
    },
    outputTokens: {
      total: output,
      text: output !== undefined && reasoning !== undefined
        ? Math.max(0, output - reasoning)
        : undefined,
      reasoning,
    },
    raw: usage.raw,
  };
}
