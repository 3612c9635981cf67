/**
 * What the emulated model does in a turn, in the order it happens: a model call opens
 * (prompt accounting against the emulated cache, `step_started`, automatic thinking for
 * thinking models) and streams thinking and text; a tool step announces its calls
 * (partial → started → deltas → completed), stages a checkpoint, runs the execs or
 * queries in parallel and settles the checkpoint; the success tail sends `turn_ended`
 * with all five counters and the staged, final and repeated final checkpoints, then
 * `{}`.
 *
 * @module
 */
import { refuseOverflow } from "./context-window.ts";
import { accountPrompt, assemblePrompt } from "../conversation/prompt-cache.ts";
import type { ToolSpec } from "./directive-plan.ts";
import type { ToolFaultPoint } from "./fault-directive.ts";
import { pendingJson, type PlannedCall } from "./pending-calls.ts";
import { runTool, type ToolResult } from "./tool-run.ts";
import { argsJson, displayToolCall, emptyToolCall, toolName } from "./tool-display.ts";
import {
  addRoot,
  addStep,
  assistantRoot,
  countOutput,
  type OpenCall,
  publishCheckpoint,
  sendCheckpoint,
  sendUpdate,
  storeTurn,
  type TurnState,
} from "./turn-state.ts";

// ---- model calls ----

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

// ---- tool steps ----

/**
 * A tool call's id, unique across conversations as Cursor's are (a client that keys
 * anything by call id alone would mix two conversations up):
 * `call_<conversation tag>_<turn>_<step>_<n>`.
 */
function toolCallIdOf(state: TurnState, step: number, index: number): string {
  const tag = state.conversationId.replace(/[^A-Za-z0-9]/g, "").slice(0, 8) || "conv";
  return `call_${tag}_${state.turnNumber}_${step}_${index}`;
}

/**
 * Runs one model step with tool calls.
 *
 * @param state The turn.
 * @param specs The tool calls.
 * @param reissue Ids of a staged batch being re-issued on resume (no new model call).
 * @returns The results, in call order.
 */
export async function runToolStep(
  state: TurnState,
  specs: readonly ToolSpec[],
  reissue?: readonly string[],
): Promise<ToolResult[]> {
  const step = state.toolSteps;
  const calls: PlannedCall[] = specs.map((spec, index) => ({
    spec,
    toolCallId: reissue?.[index] ?? toolCallIdOf(state, step, index),
  }));
  const modelCallId = `model_${state.turnNumber}_${step}`;
  const startedAt = BigInt(state.io.now());
  if (reissue === undefined) await announce(state, calls, modelCallId, step);
  for (const call of calls) {
    const toolCall = displayToolCall(call.spec, call.toolCallId, state.toolEnv.workspace);
    toolCall.startedAtMs = startedAt;
    await sendUpdate(state, {
      case: "toolCallStarted",
      value: { callId: call.toolCallId, toolCall, modelCallId },
    });
  }
  const results = await Promise.all(
    calls.map((call) => runOne(state, call, modelCallId, startedAt)),
  );
  const open = state.call;
  await completeCall(state);
  state.call = undefined;
  await storeResults(state, results, open, step);
  state.toolSteps++;
  return results;
}

async function announce(
  state: TurnState,
  calls: readonly PlannedCall[],
  modelCallId: string,
  step: number,
): Promise<void> {
  const call = await beginCall(state);
  for (const planned of calls) {
    const callId = planned.toolCallId;
    await sendUpdate(state, {
      case: "partialToolCall",
      value: { callId, toolCall: emptyToolCall(planned.spec, callId), modelCallId },
    });
    const args = argsJson(planned.spec);
    countOutput(state, args, false);
    await sendUpdate(state, {
      case: "partialToolCall",
      value: { callId, argsTextDelta: args, modelCallId },
    });
  }
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
  await storeTurn(state);
  await publishCheckpoint(state, calls.map((planned) => pendingJson(planned, step)), "staged");
}

async function runOne(
  state: TurnState,
  call: PlannedCall,
  modelCallId: string,
  startedAt: bigint,
): Promise<ToolResult> {
  const callId = call.toolCallId;
  const result = await runTool(state.toolEnv, call.spec, callId, (delta) => {
    const toolCallDelta = delta.stream === "edit"
      ? { delta: { case: "editToolCallDelta" as const, value: { streamContentDelta: delta.text } } }
      : {
        delta: {
          case: "shellToolCallDelta" as const,
          value: { delta: { case: delta.stream, value: { content: delta.text } } },
        },
      };
    sendUpdate(state, { case: "toolCallDelta", value: { callId, toolCallDelta, modelCallId } })
      .catch(() => {});
  });
  result.completed.startedAtMs = startedAt;
  result.completed.completedAtMs = BigInt(state.io.now());
  await republishLate(state, "tool-result");
  fireDeferredFault(state, "tool-result");
  await sendUpdate(state, {
    case: "toolCallCompleted",
    value: { callId, toolCall: result.completed, modelCallId },
  });
  fireDeferredFault(state, "tool-ack");
  return result;
}

/**
 * Fires a `::fault … at=<point>` waiting for this point of the tool step, behind the
 * frames already queued.
 *
 * @param state The turn.
 * @param point The point reached.
 */
export function fireDeferredFault(state: TurnState, point: ToolFaultPoint): void {
  const deferred = state.deferredFault;
  if (deferred === undefined || deferred.point !== point) return;
  state.deferredFault = undefined;
  const fire = () => state.io.writer.fireNow(deferred.spec);
  const fired = deferred.delayMs > 0 ? state.io.sleep(deferred.delayMs).then(fire) : fire();
  fired.catch(() => {});
}

/**
 * Publishes the tool step's pre-result checkpoint again when a `late-checkpoint` waits for
 * this point: the call is still pending in it, the result not yet in the conversation.
 *
 * @param state The turn.
 * @param point The point reached.
 */
export async function republishLate(
  state: TurnState,
  point: "exec" | "tool-result",
): Promise<void> {
  const checkpoint = state.lastCheckpoint;
  if (state.lateCheckpoint !== point || checkpoint === undefined) return;
  state.lateCheckpoint = undefined;
  state.io.record.faults.push(`late-checkpoint at ${point}`);
  await sendCheckpoint(state, checkpoint, "staged");
}

async function storeResults(
  state: TurnState,
  results: readonly ToolResult[],
  call: Parameters<typeof assistantRoot>[0],
  step: number,
): Promise<void> {
  for (const result of results) {
    await addStep(state, { message: { case: "toolCall", value: result.completed } });
  }
  const toolCalls = results.map((result) => ({
    toolCallId: result.toolCallId,
    toolName: toolName(result.spec),
    args: JSON.parse(argsJson(result.spec)),
  }));
  await addRoot(state, assistantRoot(call, toolCalls, step));
  for (const result of results) {
    await addRoot(state, {
      role: "tool",
      id: result.toolCallId,
      content: [{
        type: "tool-result",
        toolCallId: result.toolCallId,
        toolName: toolName(result.spec),
        result: result.summary,
      }],
      providerOptions: { emulator: { step } },
    });
  }
  await storeTurn(state);
  if (state.withholdSettled === true) {
    state.withholdSettled = undefined;
    state.io.record.faults.push("no-checkpoint after the tool step");
    return;
  }
  await publishCheckpoint(state, [], "settled");
}

// ---- the success tail ----

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
