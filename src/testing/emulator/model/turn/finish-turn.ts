/**
 * The success tail of a turn: the open model call closes, `turn_ended` goes out with all
 * five counters, then the staged, final and repeated final checkpoints, and the stream
 * ends with `{}`.
 *
 * @module
 */
import { completeCall, storeCallSteps } from "./model-call.ts";
import type { TurnState } from "./turn-state.ts";
import {
  addRoot,
  assistantRoot,
  publishCheckpoint,
  sendCheckpoint,
  sendUpdate,
  storeTurn,
} from "./turn-state.ts";

/**
 * Finishes the turn successfully and ends the stream with `{}`. The final answer's blob
 * is SET after `turn_ended` (captures) or before it (the documented tail), as the
 * `finalAnswerBlob` option says.
 *
 * @param state The turn.
 */
export async function finishTurn(state: TurnState): Promise<void> {
  const call = state.call;
  if (call !== undefined) {
    await completeCall(state);
    await storeCallSteps(state, call);
    state.call = undefined;
  }
  const answered = call !== undefined && (call.text !== "" || call.thinking !== "");
  if (answered && state.finalAnswerBeforeTurnEnded) {
    await addRoot(state, assistantRoot(call, [], undefined));
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
  if (answered && !state.finalAnswerBeforeTurnEnded) {
    await addRoot(state, assistantRoot(call, [], undefined));
  }
  await publishCheckpoint(state, [], "final");
  if (state.lastCheckpoint !== undefined) {
    await sendCheckpoint(state, state.lastCheckpoint, "final");
  }
  await state.io.writer.finish();
}
