/**
 * The usage a finish reports to the host, in one of two shapes (ADR 080):
 *
 * - **occupancy** (the OpenCode plugin): Cursor's TurnEnded counters aggregate every
 *   internal model call of a Run (they can exceed the context window), so the standard
 *   usage is occupancy-shaped from the checkpoint's token details — input is
 *   `usedTokens - 1`, output 1, the prior context read from cache — while Cursor's exact
 *   counters travel in `raw` and provider metadata. Without token details it stays zero.
 * - **request** (the default): Cursor's real TurnEnded counters, on the finish that ends
 *   the Run; tool-call finishes before it report zero, so a caller's step sum is the
 *   Run's request work.
 *
 * @module
 */
import type { JSONObject, LanguageModelV3Usage } from "@ai-sdk/provider";
import type { TurnCounters } from "../../../agent-run/run-events.ts";

/** Where the occupancy numbers came from. */
export type UsageSource = "checkpoint-current-run" | "checkpoint-previous-turn" | "unavailable";

/** Inputs of {@link mapUsage}. */
export interface UsageInputs {
  readonly counters: TurnCounters | undefined;
  /** `usedTokens` of the latest checkpoint of this Run, if it had token details. */
  readonly currentUsed: number | undefined;
  /** `usedTokens` of the checkpoint supplied when the Run started (prior context). */
  readonly priorUsed: number | undefined;
}

/** The mapped usage and how it was derived. */
export interface MappedUsage {
  readonly usage: LanguageModelV3Usage;
  readonly source: UsageSource;
  readonly occupancyIn: number;
  readonly occupancyCacheRead: number;
}

/**
 * Maps a finished Run's numbers to V3 usage.
 *
 * @param inputs Counters and occupancy.
 * @returns The usage and its derivation.
 *
 * @example
 * ```ts
 * import { mapUsage } from "./map-usage.ts";
 *
 * const { usage } = mapUsage({ counters: undefined, currentUsed: 1000, priorUsed: 800 });
 * console.assert(usage.inputTokens.total === 999 && usage.inputTokens.cacheRead === 800);
 * console.assert(usage.outputTokens.total === 1);
 * ```
 */
export function mapUsage(inputs: UsageInputs): MappedUsage {
  const used = inputs.currentUsed ?? inputs.priorUsed;
  const source: UsageSource = inputs.currentUsed !== undefined
    ? "checkpoint-current-run"
    : inputs.priorUsed !== undefined
    ? "checkpoint-previous-turn"
    : "unavailable";
  const raw = rawCounters(inputs.counters);
  if (used === undefined || used <= 0) {
    return {
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 0, text: 0, reasoning: 0 },
        ...(raw ? { raw } : {}),
      },
      source,
      occupancyIn: 0,
      occupancyCacheRead: 0,
    };
  }
  const input = used - 1;
  const cacheRead = Math.min(inputs.priorUsed ?? 0, input);
  return {
    usage: {
      inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
      ...(raw ? { raw } : {}),
    },
    source,
    occupancyIn: input,
    occupancyCacheRead: cacheRead,
  };
}

/**
 * Cursor's real request counters as V3 usage: input split into uncached, cache read and
 * cache write; output (which includes reasoning) split into text and reasoning.
 *
 * @param counters The Run's TurnEnded counters, or `undefined` before the Run ended.
 * @returns The usage (all zero without counters).
 *
 * @example
 * ```ts
 * import { requestUsage } from "./map-usage.ts";
 *
 * const usage = requestUsage({
 *   inputTokens: 1000, outputTokens: 30, cacheReadTokens: 600, cacheWriteTokens: 150,
 *   reasoningTokens: 21, present: ["input", "output", "cacheRead", "cacheWrite", "reasoning"],
 * });
 * console.assert(usage.inputTokens.noCache === 250 && usage.outputTokens.text === 9);
 * ```
 */
export function requestUsage(counters: TurnCounters | undefined): LanguageModelV3Usage {
  if (counters === undefined) {
    return {
      inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 0, text: 0, reasoning: 0 },
    };
  }
  const output = Math.max(counters.outputTokens, counters.reasoningTokens);
  const raw = rawCounters(counters);
  return {
    inputTokens: {
      total: counters.inputTokens,
      noCache: Math.max(
        counters.inputTokens - counters.cacheReadTokens - counters.cacheWriteTokens,
        0,
      ),
      cacheRead: counters.cacheReadTokens,
      cacheWrite: counters.cacheWriteTokens,
    },
    outputTokens: {
      total: output,
      text: output - counters.reasoningTokens,
      reasoning: counters.reasoningTokens,
    },
    ...(raw ? { raw } : {}),
  };
}

function rawCounters(counters: TurnCounters | undefined): JSONObject | undefined {
  if (counters === undefined) return undefined;
  return {
    inputTokens: counters.inputTokens,
    outputTokens: counters.outputTokens,
    cacheReadTokens: counters.cacheReadTokens,
    cacheWriteTokens: counters.cacheWriteTokens,
    reasoningTokens: counters.reasoningTokens,
  };
}
