/**
 * The `finish` part of a completed turn: occupancy-shaped usage, Cursor's exact
 * counters in `raw` and provider metadata, and the facts the `finish:` log line prints.
 *
 * @module
 */
import type { JSONObject, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { RunActivity } from "../../session/agent-run.ts";
import { mapUsage, type UsageSource } from "./map-usage.ts";
import type { RunStreamState } from "./run-stream.ts";

/** Where a finish's usage came from (runbook `source=`). */
export type FinishSource =
  | UsageSource
  | "occupancy-checkpoint-current-run"
  | "occupancy-checkpoint-previous-turn"
  | "intermediate-zero";

/** What the `finish:` debug line prints. */
export interface FinishLog {
  readonly reason: "stop" | "tool-calls" | "error";
  readonly source: FinishSource;
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
  context: { priorUsed: number | undefined; activity: RunActivity; reason?: "stop" | "tool-calls" },
): { part: LanguageModelV3StreamPart; log: FinishLog } {
  const reason = context.reason ?? "stop";
  const mapped = mapUsage({
    counters: reason === "stop" ? state.counters : undefined,
    currentUsed: state.latestUsed,
    priorUsed: context.priorUsed,
  });
  const source: FinishSource = reason === "stop" ? mapped.source : occupancySource(mapped.source);
  const counters = state.counters;
  const metadata: JSONObject = {
    usageSource: source,
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
      finishReason: reason === "stop"
        ? { unified: "stop", raw: "turn_ended" }
        : { unified: "tool-calls", raw: "exec" },
      usage,
      providerMetadata: { cursor: metadata },
    },
    log: {
      reason,
      source,
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

function occupancySource(source: UsageSource): FinishSource {
  if (source === "checkpoint-current-run") return "occupancy-checkpoint-current-run";
  if (source === "checkpoint-previous-turn") return "occupancy-checkpoint-previous-turn";
  return "intermediate-zero";
}
