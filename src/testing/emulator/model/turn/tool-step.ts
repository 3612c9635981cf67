/**
 * One model step with tool calls: the step announces its calls (partial → started →
 * deltas → completed), stages a checkpoint listing them as pending, runs the execs or
 * queries in parallel, stores the results in the conversation and settles the checkpoint.
 * Faults deferred to a point of the step (`::fault … at=`, `late-checkpoint`,
 * `no-checkpoint`) fire here.
 *
 * @module
 */
import type { ToolSpec } from "../plan/directive-plan.ts";
import type { ToolFaultPoint } from "../plan/fault-directive.ts";
import { pendingJson, type PlannedCall } from "./pending-calls.ts";
import { runTool, type ToolResult } from "../tools/tool-run.ts";
import { argsJson, displayToolCall, emptyToolCall, toolName } from "../tools/tool-display.ts";
import { beginCall, completeCall, storeCallSteps } from "./model-call.ts";
import {
  addRoot,
  addStep,
  assistantRoot,
  countOutput,
  publishCheckpoint,
  sendCheckpoint,
  sendUpdate,
  storeTurn,
  type TurnState,
} from "./turn-state.ts";

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
  await storeCallSteps(state, call);
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
