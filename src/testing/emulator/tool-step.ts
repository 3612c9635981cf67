/**
 * A model step that calls tools: display events (partial → started → deltas →
 * completed), the staged checkpoint before the execs, the execs/queries in parallel,
 * and the settled checkpoint after every result (with the assistant and tool JSON roots
 * and the ToolCall steps stored first).
 *
 * @module
 */
import type { ToolSpec } from "./directives.ts";
import { beginCall, completeCall } from "./model-call.ts";
import { runTool, type ToolResult } from "./tool-run.ts";
import { argsJson, displayToolCall, emptyToolCall, toolName } from "./tool-display.ts";
import {
  addRoot,
  addStep,
  assistantRoot,
  countOutput,
  publishCheckpoint,
  sendUpdate,
  storeTurn,
  type TurnState,
} from "./turn-state.ts";

/** A tool call of a step, with its ids. */
export interface PlannedCall {
  readonly spec: ToolSpec;
  readonly toolCallId: string;
}

/** The JSON a staged checkpoint lists for a pending tool call (parsed back on resume). */
export function pendingJson(call: PlannedCall, step: number): string {
  return JSON.stringify({
    type: "tool-call",
    toolCallId: call.toolCallId,
    toolName: toolName(call.spec),
    args: JSON.parse(argsJson(call.spec)),
    providerOptions: { emulator: { step, spec: call.spec } },
  });
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
    toolCallId: reissue?.[index] ?? `call_${state.turnNumber}_${step}_${index}`,
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
  await sendUpdate(state, {
    case: "toolCallCompleted",
    value: { callId, toolCall: result.completed, modelCallId },
  });
  return result;
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
  await publishCheckpoint(state, [], "settled");
}
