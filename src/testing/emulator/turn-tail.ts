/**
 * The success tail of a Run: the final step's blobs, `turn_ended` with all five
 * counters, then the staged, final and repeated final checkpoints (the final answer's
 * JSON root joins the transcript only after `turn_ended`), then `{}`.
 *
 * @module
 */
import { completeCall } from "./model-call.ts";
import {
  addRoot,
  addStep,
  assistantRoot,
  publishCheckpoint,
  sendCheckpoint,
  sendUpdate,
  storeTurn,
  type TurnState,
} from "./turn-state.ts";

/**
 * Finishes the turn successfully and ends the stream with `{}`.
 *
 * @param state The turn.
 */
export async function finishTurn(state: TurnState): Promise<void> {
  const call = state.call;
  if (call !== undefined) {
    await completeCall(state);
    if (call.thinking !== "") {
      await addStep(state, {
        message: {
          case: "thinkingMessage",
          value: { text: call.thinking, durationMs: call.thinkingMs },
        },
      });
    }
    if (call.text !== "") {
      await addStep(state, { message: { case: "assistantMessage", value: { text: call.text } } });
    }
    state.call = undefined;
  }
  await storeTurn(state);
  await state.blobs.flush();
  const counters = state.io.record.counters;
  await sendUpdate(state, {
    case: "turnEnded",
    value: {
      inputTokens: BigInt(counters.input),
      outputTokens: BigInt(counters.output),
      cacheReadTokens: BigInt(counters.cacheRead),
      cacheWriteTokens: BigInt(counters.cacheWrite),
      reasoningTokens: BigInt(counters.reasoning),
    },
  });
  state.io.record.turnEnded = true;
  await publishCheckpoint(state, [], "staged");
  if (call !== undefined && (call.text !== "" || call.thinking !== "")) {
    await addRoot(state, assistantRoot(call, [], undefined));
  }
  await publishCheckpoint(state, [], "final");
  if (state.lastCheckpoint !== undefined) {
    await sendCheckpoint(state, state.lastCheckpoint, "final");
  }
  await state.io.writer.finish();
}
