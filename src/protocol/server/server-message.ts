/**
 * Classifies one decoded `agent.v1.AgentServerMessage` into the flat
 * {@link ServerMessageView} for the session layer.
 *
 * {@link classifyServerMessage} walks the nested oneofs of one server message;
 * interaction updates are classified in `interaction-update.ts`. Any unset or
 * unknown oneof case at a level that decides the kind becomes
 * `{ kind: "unknown" }`, which also says whether the server is waiting for an
 * answer.
 *
 * The module is pure: no I/O, no timers, no module-level mutable state.
 *
 * @module
 */

import type { ExecServerControlMessage, ExecServerMessage } from "../../gen/agent/v1/exec_pb.ts";
import type { InteractionQuery } from "../../gen/agent/v1/interaction_query_pb.ts";
import type { KvServerMessage } from "../../gen/agent/v1/kv_pb.ts";
import type { AgentServerMessage } from "../../gen/agent/v1/server_message_pb.ts";
import { classifyInteractionUpdate } from "./interaction-update.ts";
import type { ServerMessageView } from "./server-message-view.ts";
import { unknownCase } from "./unknown-case.ts";

/**
 * Classifies one decoded `AgentServerMessage`.
 *
 * A message whose oneof is unset but which carries `ttft_breakdown` becomes
 * `ttft-breakdown`; `ttft_breakdown` riding along with another case is ignored.
 *
 * @param message A decoded server message.
 * @returns The flat view of the message.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AgentServerMessageSchema } from "../../gen/agent/v1/server_message_pb.ts";
 * import { classifyServerMessage } from "./server-message.ts";
 *
 * const message = create(AgentServerMessageSchema, {
 *   message: {
 *     case: "kvServerMessage",
 *     value: {
 *       id: 4,
 *       message: { case: "getBlobArgs", value: { blobId: new Uint8Array([1, 2]) } },
 *     },
 *   },
 * });
 * const view = classifyServerMessage(message);
 * if (view.kind !== "kv-get-blob" || view.id !== 4) {
 *   throw new Error(`Unexpected view "${view.kind}"`);
 * }
 *
 * const empty = classifyServerMessage(create(AgentServerMessageSchema));
 * if (empty.kind !== "unknown") throw new Error(`Unexpected view "${empty.kind}"`);
 * ```
 */
export function classifyServerMessage(message: AgentServerMessage): ServerMessageView {
  const envelope = message.message;
  switch (envelope.case) {
    case "interactionUpdate":
      return classifyInteractionUpdate(envelope.value);
    case "execServerMessage":
      return classifyExecServerMessage(envelope.value);
    case "conversationCheckpointUpdate":
      return { kind: "checkpoint", state: envelope.value };
    case "kvServerMessage":
      return classifyKvServerMessage(envelope.value);
    case "execServerControlMessage":
      return classifyExecServerControlMessage(envelope.value);
    case "interactionQuery":
      return classifyInteractionQuery(envelope.value);
    case undefined:
      if (message.ttftBreakdown !== undefined) {
        return { kind: "ttft-breakdown", breakdown: message.ttftBreakdown };
      }
      return unknownCase("AgentServerMessage.message", message, undefined);
  }
}

function classifyExecServerMessage(exec: ExecServerMessage): ServerMessageView {
  const request = exec.message;
  if (request.case === undefined) {
    return unknownCase("ExecServerMessage.message", exec, { channel: "exec", id: exec.id });
  }
  return { kind: "exec-request", id: exec.id, execId: exec.execId, request, message: exec };
}

function classifyExecServerControlMessage(control: ExecServerControlMessage): ServerMessageView {
  const command = control.message;
  switch (command.case) {
    case "abort":
      return { kind: "exec-abort", id: command.value.id };
    case undefined:
      return unknownCase("ExecServerControlMessage.message", control, undefined);
  }
}

function classifyKvServerMessage(kv: KvServerMessage): ServerMessageView {
  const request = kv.message;
  switch (request.case) {
    case "getBlobArgs":
      return { kind: "kv-get-blob", id: kv.id, blobId: request.value.blobId };
    case "setBlobArgs":
      return {
        kind: "kv-set-blob",
        id: kv.id,
        blobId: request.value.blobId,
        blobData: request.value.blobData,
      };
    case undefined:
      return unknownCase("KvServerMessage.message", kv, { channel: "kv", id: kv.id });
  }
}

function classifyInteractionQuery(query: InteractionQuery): ServerMessageView {
  const question = query.query;
  if (question.case === undefined) {
    return unknownCase("InteractionQuery.query", query, { channel: "interaction", id: query.id });
  }
  return { kind: "interaction-query", id: query.id, query: question, message: query };
}
