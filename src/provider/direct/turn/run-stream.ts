/**
 * The pure mapper from Run events to AI SDK stream parts: opens and closes text and
 * reasoning parts, collects what the finish needs, never touches I/O.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { RunEvent, TurnCounters } from "../../../agent-run/run-events.ts";

/** State the mapper keeps across events of one stream. */
export interface RunStreamState {
  textId: string | undefined;
  reasoningId: string | undefined;
  partCounter: number;
  counters: TurnCounters | undefined;
  latestUsed: number | undefined;
  latestCheckpoint: Uint8Array | undefined;
  checkpointCategories: string | undefined;
  /** The latest checkpoint's context window and category breakdown. */
  latestMax: number | undefined;
  latestCategories: Record<string, number> | undefined;
  /** The breakdown's own total, to validate the category sum. */
  latestBreakdownTotal: number | undefined;
  text: string;
}

/** A fresh mapper state. */
export function createRunStreamState(): RunStreamState {
  return {
    textId: undefined,
    reasoningId: undefined,
    partCounter: 0,
    counters: undefined,
    latestUsed: undefined,
    latestCheckpoint: undefined,
    checkpointCategories: undefined,
    latestMax: undefined,
    latestCategories: undefined,
    latestBreakdownTotal: undefined,
    text: "",
  };
}

/**
 * Maps one event to the stream parts it produces, updating the state.
 *
 * @param state The mapper state.
 * @param event The Run event.
 * @returns The parts to emit, in order.
 *
 * @example
 * ```ts
 * import { createRunStreamState, mapRunEvent } from "./run-stream.ts";
 *
 * const state = createRunStreamState();
 * const parts = mapRunEvent(state, { type: "text-delta", text: "Hi", serverNotice: false });
 * console.assert(parts[0]?.type === "text-start" && parts[1]?.type === "text-delta");
 * ```
 */
export function mapRunEvent(state: RunStreamState, event: RunEvent): LanguageModelV3StreamPart[] {
  switch (event.type) {
    case "text-delta": {
      if (event.text === "") return [];
      const parts = closeReasoning(state);
      if (state.textId === undefined) {
        state.textId = `text-${state.partCounter++}`;
        parts.push({ type: "text-start", id: state.textId });
      }
      state.text += event.text;
      parts.push({ type: "text-delta", id: state.textId, delta: event.text });
      return parts;
    }
    case "thinking-delta": {
      if (event.text === "") return [];
      const parts = closeText(state);
      if (state.reasoningId === undefined) {
        state.reasoningId = `reasoning-${state.partCounter++}`;
        parts.push({ type: "reasoning-start", id: state.reasoningId });
      }
      parts.push({ type: "reasoning-delta", id: state.reasoningId, delta: event.text });
      return parts;
    }
    case "thinking-completed":
      return closeReasoning(state);
    case "checkpoint":
      state.latestCheckpoint = event.bytes;
      if (event.tokenDetails && event.tokenDetails.usedTokens > 0) {
        state.latestUsed = event.tokenDetails.usedTokens;
        const categories = event.tokenDetails.breakdown?.categories ?? [];
        state.latestMax = event.tokenDetails.maxTokens;
        state.latestCategories = Object.fromEntries(
          categories.map((c) => [c.id, c.estimatedTokens]),
        );
        state.latestBreakdownTotal = event.tokenDetails.breakdown?.totalUsedTokens;
        state.checkpointCategories = `{${
          categories.map((c) => `${c.id}:${c.estimatedTokens}`).join(",")
        }}`;
      }
      return [];
    case "turn-ended":
      state.counters = event.counters;
      return [];
    default:
      return [];
  }
}

/**
 * Closes whatever text or reasoning part is open (before a finish or a tool call).
 *
 * @param state The mapper state.
 * @returns The closing parts.
 */
export function closeOpenParts(state: RunStreamState): LanguageModelV3StreamPart[] {
  return [...closeReasoning(state), ...closeText(state)];
}

function closeText(state: RunStreamState): LanguageModelV3StreamPart[] {
  if (state.textId === undefined) return [];
  const id = state.textId;
  state.textId = undefined;
  return [{ type: "text-end", id }];
}

function closeReasoning(state: RunStreamState): LanguageModelV3StreamPart[] {
  if (state.reasoningId === undefined) return [];
  const id = state.reasoningId;
  state.reasoningId = undefined;
  return [{ type: "reasoning-end", id }];
}

/**
 * Two Runs' counters as one (a counter is present when either had it).
 *
 * @param a One Run's counters.
 * @param b The other's.
 * @returns Their sums.
 */
export function addCounters(a: TurnCounters, b: TurnCounters): TurnCounters {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    present: [...new Set([...a.present, ...b.present])],
  };
}
