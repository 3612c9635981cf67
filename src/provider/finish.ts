/**
 * The `finish` part of a completed turn: occupancy-shaped usage, Cursor's exact
 * counters in `raw` and provider metadata, and the facts the `finish:` log line prints.
 *
 * @module
 */
import type { JSONObject, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { RunActivity } from "../session/agent-run.ts";
import { mapUsage, type UsageSource } from "./map-usage.ts";
import type { RunStreamState } from "./run-stream.ts";

/** What the `finish:` debug line prints. */
export interface FinishLog {
  readonly reason: "stop" | "tool-calls" | "error";
  readonly source: UsageSource;
  readonly v3In: number;
  readonly v3Out: number;
  readonly v3CacheRead: number;
  readonly v3CacheWrite: number;
  readonly raw: {
    readonly input: number;
    readonly output: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly reasoning: number;
  } | undefined;
  readonly occupancyPrefixCache: number;
}

/**
 * Builds the finish part after `turn_ended`.
 *
 * @param state The stream mapper's state (counters, latest occupancy).
 * @param context The prior context and the Run's activity.
 * @returns The part and its log facts.
 */
export function buildFinish(
  state: RunStreamState,
  context: { priorUsed: number | undefined; activity: RunActivity },
): { part: LanguageModelV3StreamPart; log: FinishLog } {
  const mapped = mapUsage({
    counters: state.counters,
    currentUsed: state.latestUsed,
    priorUsed: context.priorUsed,
  });
  const counters = state.counters;
  const metadata: JSONObject = {
    usageSource: mapped.source,
    contextTokens: state.latestUsed ?? null,
    priorContextTokens: context.priorUsed ?? null,
    categories: state.checkpointCategories ?? null,
    checkpointUpdates: context.activity.checkpointUpdates,
    steps: context.activity.stepsCompleted,
    ...(counters
      ? {
        raw: {
          inputTokens: counters.inputTokens,
          outputTokens: counters.outputTokens,
          cacheReadTokens: counters.cacheReadTokens,
          cacheWriteTokens: counters.cacheWriteTokens,
          reasoningTokens: counters.reasoningTokens,
        },
      }
      : {}),
  };
  const usage = mapped.usage;
  return {
    part: {
      type: "finish",
      finishReason: { unified: "stop", raw: "turn_ended" },
      usage,
      providerMetadata: { cursor: metadata },
    },
    log: {
      reason: "stop",
      source: mapped.source,
      v3In: usage.inputTokens.total ?? 0,
      v3Out: usage.outputTokens.total ?? 0,
      v3CacheRead: usage.inputTokens.cacheRead ?? 0,
      v3CacheWrite: usage.inputTokens.cacheWrite ?? 0,
      raw: counters
        ? {
          input: counters.inputTokens,
          output: counters.outputTokens,
          cacheRead: counters.cacheReadTokens,
          cacheWrite: counters.cacheWriteTokens,
          reasoning: counters.reasoningTokens,
        }
        : undefined,
      occupancyPrefixCache: context.priorUsed ?? 0,
    },
  };
}
