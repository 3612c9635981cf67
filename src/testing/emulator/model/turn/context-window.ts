/**
 * The context window of a model call: a prompt over the resolved model's window (the
 * catalogue's, its `context` parameter's, 1M in Max Mode) fails the Run as Cursor refuses a
 * too-long conversation (see `EmulatorOptions.contextOverflow`).
 *
 * @module
 */
import { detail, RunFailure } from "../../wire/connect-http.ts";
import type { TurnState } from "./turn-state.ts";

/**
 * Fails the Run the way Cursor refuses a conversation too long for the model's window,
 * before the call streams anything.
 *
 * @param state The turn (its resolved model, the `contextOverflow` option, the record).
 * @param promptTokens The call's prompt size in tokens.
 * @throws {RunFailure} when `promptTokens` exceeds the resolved window.
 */
export function refuseOverflow(state: TurnState, promptTokens: number): void {
  const window = state.model.contextTokens;
  if (promptTokens <= window) return;
  state.io.record.faults.push(`context overflow ${promptTokens}/${window}`);
  const tooLong = state.contextOverflow === "conversation-too-long";
  const message = tooLong ? "Conversation too long" : "Maximum tokens exceeded";
  throw new RunFailure({
    code: "invalid_argument",
    message,
    detail: detail(
      tooLong ? "ERROR_CONVERSATION_TOO_LONG" : "ERROR_MAX_TOKENS",
      message,
      `The conversation has about ${promptTokens} tokens; this model takes ${window}. Summarize it or start a new one.`,
      false,
    ),
  });
}
