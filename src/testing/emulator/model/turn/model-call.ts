/**
 * One model call of a turn, as it streams: the call opens (prompt accounting against the
 * emulated cache, the context-window check, `step_started`, automatic thinking for thinking
 * models), streams thinking and text deltas with their token counts, and closes with
 * `step_completed`; its thinking and text then become steps of the turn.
 *
 * @module
 */
import { refuseOverflow } from "./context-window.ts";
import { accountPrompt, assemblePrompt } from "../../conversation/prompt-cache.ts";
import { addStep, countOutput, type OpenCall, sendUpdate, type TurnState } from "./turn-state.ts";

/** Builds the prompt of a model call from the transcript as it stands. */
export function currentPrompt(state: TurnState, rootCount?: number): Uint8Array {
  const roots = state.transcript.roots;
  const end = rootCount ?? roots.length;
  return assemblePrompt({
    system: roots[0]?.bytes ?? new Uint8Array(0),
    context: state.contextBytes,
    roots: roots.slice(1, Math.max(1, end)).map((root) => root.bytes),
    current: [],
  });
}

/** The transcript after the system prompt as `role: text` lines (injected context left out). */
function contextLines(state: TurnState): string[] {
  return state.transcript.roots.slice(1)
    .filter((root) => root.json.providerOptions?.emulator?.injected !== true)
    .map((root) => {
      const content = root.json.content;
      return `${root.json.role}: ${
        typeof content === "string" ? content : JSON.stringify(content)
      }`;
    });
}

/**
 * Opens a model call unless one is open: accounts its prompt, sends `step_started`,
 * and, for thinking models, a short thinking phase.
 *
 * @returns The open call.
 */
export async function beginCall(state: TurnState): Promise<OpenCall> {
  if (state.call !== undefined) return state.call;
  const prompt = currentPrompt(state);
  const first = state.previousPrompt === undefined;
  const previous = first ? state.conversation.lastPrompt : state.previousPrompt;
  const idealBytes = first
    ? state.hasHistory ? currentPrompt(state, state.idealRootCount).length : 0
    : state.previousPrompt?.length ?? 0;
  const usage = accountPrompt(prompt, previous, idealBytes);
  refuseOverflow(state, usage.promptTokens);
  const record = state.io.record;
  record.modelCalls.push({ ...usage, outputTokens: 0, context: contextLines(state) });
  record.counters.input += usage.promptTokens;
  record.counters.cacheRead += usage.cacheRead;
  record.counters.cacheWrite += usage.cacheWrite;
  record.idealCacheRead += usage.idealCacheRead;
  state.previousPrompt = prompt;
  state.conversation.lastPrompt = prompt;
  const call: OpenCall = {
    stepId: ++state.stepIds,
    startedAt: state.io.now(),
    text: "",
    thinking: "",
    thinkingMs: 0,
    recordIndex: record.modelCalls.length - 1,
  };
  state.call = call;
  await sendUpdate(state, { case: "stepStarted", value: { stepId: BigInt(call.stepId) } });
  if (state.model.thinks) {
    await emitThinking(
      state,
      `Reading the request. Planning step ${call.stepId} of turn ${state.turnNumber}.`,
    );
  }
  return call;
}

/** Splits text into deltas of about `size` characters, at spaces where possible. */
export function splitText(text: string, size: number): string[] {
  if (text.length <= size) return text === "" ? [] : [text];
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const space = rest.lastIndexOf(" ", size);
    const cut = space > size / 2 ? space + 1 : size;
    chunks.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest !== "") chunks.push(rest);
  return chunks;
}

/** Streams thinking (two or more deltas) followed by `thinking_completed`. */
export async function emitThinking(state: TurnState, text: string): Promise<void> {
  const call = await beginCall(state);
  const started = state.io.now();
  const chunks = splitText(text, Math.max(8, Math.ceil(text.length / 2)));
  for (const chunk of chunks) {
    await sendUpdate(state, {
      case: "thinkingDelta",
      value: { text: chunk, thinkingStyle: state.model.model.thinkingStyle },
    });
  }
  call.thinking += text;
  countOutput(state, text, true);
  const duration = Math.max(1, state.io.now() - started);
  call.thinkingMs += duration;
  await sendUpdate(state, { case: "thinkingCompleted", value: { thinkingDurationMs: duration } });
}

/** Streams text as deltas, each followed by a `token_delta`. */
export async function emitText(state: TurnState, text: string, chunkChars?: number): Promise<void> {
  await emitChunks(state, splitText(text, chunkChars ?? state.chunkChars));
}

/** Streams the given chunks as text deltas, each followed by a `token_delta`. */
export async function emitChunks(state: TurnState, chunks: Iterable<string>): Promise<void> {
  const call = await beginCall(state);
  for (const chunk of chunks) {
    await sendUpdate(state, { case: "textDelta", value: { text: chunk } });
    const tokens = countOutput(state, chunk, false);
    await sendUpdate(state, { case: "tokenDelta", value: { tokens } });
    call.text += chunk;
  }
}

/** Closes the open call with `step_completed`. */
export async function completeCall(state: TurnState): Promise<void> {
  const call = state.call;
  if (call === undefined) return;
  await sendUpdate(state, {
    case: "stepCompleted",
    value: {
      stepId: BigInt(call.stepId),
      stepDurationMs: BigInt(Math.max(1, state.io.now() - call.startedAt)),
    },
  });
}

/** Adds the call's thinking and text, where there was any, to the turn's steps. */
export async function storeCallSteps(state: TurnState, call: OpenCall): Promise<void> {
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
}
