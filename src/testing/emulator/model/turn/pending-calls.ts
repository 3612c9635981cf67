/**
 * The tool calls a staged checkpoint lists as pending: written as JSON when a step
 * stages its batch, and parsed back when a later Run resumes the turn.
 *
 * @module
 */
import type { ConversationStateStructure } from "../../../../gen/agent/v1/conversation_state_pb.ts";
import type { ToolSpec } from "../plan/directive-plan.ts";
import { argsJson, toolName } from "../tools/tool-display.ts";

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

/** A staged batch read back from a checkpoint. */
export interface PendingBatch {
  readonly step: number;
  readonly ids: string[];
  readonly specs: ToolSpec[];
}

/** The staged batch of a checkpoint, when every pending call is one this emulator wrote. */
export function parsePending(
  state: ConversationStateStructure | undefined,
): PendingBatch | undefined {
  const calls = (state?.pendingToolCalls ?? []).map((text) => {
    try {
      const json = JSON.parse(text) as {
        toolCallId?: unknown;
        providerOptions?: { emulator?: { step?: unknown; spec?: unknown } };
      };
      const spec = json.providerOptions?.emulator?.spec;
      const step = json.providerOptions?.emulator?.step;
      if (
        typeof json.toolCallId !== "string" || typeof step !== "number" ||
        typeof spec !== "object" || spec === null
      ) {
        return undefined;
      }
      return { id: json.toolCallId, step, spec: spec as ToolSpec };
    } catch {
      return undefined;
    }
  });
  const valid = calls.filter((call) => call !== undefined);
  if (valid.length === 0 || valid.length !== calls.length) return undefined;
  return {
    step: valid[0]?.step ?? 0,
    ids: valid.map((call) => call.id),
    specs: valid.map((call) => call.spec),
  };
}
