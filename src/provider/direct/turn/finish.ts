/**
 * The `finish` part of a pass: usage in the call's mode (occupancy or request, ADR 080),
 * Cursor's exact counters in `raw` and provider metadata, and the `finish:` event.
 *
 * @module
 */
import type { JSONObject, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { RunActivity } from "../../../agent-run/run-activity.ts";
import type { FinishEvent, FinishSource, UsageMode } from "../diagnostics/usage-events.ts";
import { mapUsage, requestUsage, type UsageSource } from "../billing/map-usage.ts";
import type { RunStreamState } from "./run-stream.ts";

/** What {@link buildFinish} needs besides the stream state. */
export interface FinishContext {
  /** Context occupancy of the checkpoint the Run started from. */
  readonly priorUsed: number | undefined;
  /** Context occupancy at the previous finish of this Run (read from cache by this step). */
  readonly previousStepUsed: number | undefined;
  readonly activity: Readonly<RunActivity>;
  readonly reason: "stop" | "tool-calls";
  readonly mode: UsageMode;
  /** The provider's char/4 estimate of the step, for finishes before any token details. */
  readonly estimate: { readonly input: number; readonly output: number };
}

/** A built finish: the part (before billing metadata) and its `finish:` event. */
export interface BuiltFinish {
  readonly part: Extract<LanguageModelV3StreamPart, { type: "finish" }>;
  readonly event: FinishEvent;
}

/**
 * Builds the finish part of a pass.
 *
 * @param state The stream mapper's state (counters, latest occupancy).
 * @param context The prior context, the Run's activity, the reason and the usage mode.
 * @returns The part and its event.
 */
export function buildFinish(state: RunStreamState, context: FinishContext): BuiltFinish {
  const { reason } = context;
  const mapped = mapUsage({
    counters: reason === "stop" ? state.counters : undefined,
    currentUsed: state.latestUsed,
    priorUsed: context.priorUsed,
  });
  const source: FinishSource = reason === "stop" ? mapped.source : occupancySource(mapped.source);
  const counters = state.counters;
  const usage = context.mode === "occupancy"
    ? mapped.usage
    : requestUsage(reason === "stop" ? counters : undefined);
  return {
    part: {
      type: "finish",
      finishReason: reason === "stop"
        ? { unified: "stop", raw: "turn_ended" }
        : { unified: "tool-calls", raw: "exec" },
      usage,
      providerMetadata: { cursor: finishMetadata(state, context, source) },
    },
    event: finishEvent(state, context, { source, usage, occupancyIn: mapped.occupancyIn }),
  };
}

/** The finish's `providerMetadata.cursor`: where its usage came from, and the raw counters. */
function finishMetadata(
  state: RunStreamState,
  context: FinishContext,
  source: FinishSource,
): JSONObject {
  const counters = state.counters;
  const staleBreakdown = state.latestBreakdownTotal !== undefined &&
    state.latestBreakdownTotal !== state.latestUsed;
  return {
    usageSource: source,
    usageMode: context.mode,
    contextTokens: state.latestUsed ?? null,
    priorContextTokens: context.priorUsed ?? null,
    // A stale breakdown (its own total is an older occupancy) is not current evidence.
    categories: staleBreakdown ? null : state.checkpointCategories ?? null,
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
}

/** The finish's debug event (the runbook's `finish:` line). */
function finishEvent(
  state: RunStreamState,
  context: FinishContext,
  mapped: {
    readonly source: FinishSource;
    readonly usage: BuiltFinish["part"]["usage"];
    readonly occupancyIn: number;
  },
): BuiltFinish["event"] {
  const { reason } = context;
  const { source, usage } = mapped;
  const counters = state.counters;
  const stepCacheRead = Math.min(
    context.previousStepUsed ?? context.priorUsed ?? 0,
    mapped.occupancyIn,
  );
  return {
    kind: "finish",
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
    ...(reason === "tool-calls" && source !== "intermediate-zero"
      ? { occupancy: { input: mapped.occupancyIn, cacheRead: stepCacheRead, cacheWrite: 0 } }
      : {}),
    ...(reason === "tool-calls" && source === "intermediate-zero"
      ? { estimate: context.estimate }
      : {}),
  };
}

function occupancySource(source: UsageSource): FinishSource {
  if (source === "checkpoint-current-run") return "occupancy-checkpoint-current-run";
  if (source === "checkpoint-previous-turn") return "occupancy-checkpoint-previous-turn";
  return "intermediate-zero";
}
