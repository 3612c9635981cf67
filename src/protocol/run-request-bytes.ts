/**
 * Encodes the first client message of a Run with the checkpoint spliced in as the
 * exact bytes the server sent, so nothing in it is reordered or dropped.
 *
 * @module
 */
import { toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { type AgentRunRequest, AgentRunRequestSchema } from "../gen/agent/v1/run_request_pb.ts";

/**
 * Encodes `AgentClientMessage{ run_request }`, with `conversation_state` (field 1 of
 * `AgentRunRequest`) written from raw checkpoint bytes. An empty checkpoint is still
 * sent (present, zero length): the service requires the field.
 *
 * @param request The run request; its own `conversationState` must be unset.
 * @param checkpoint The checkpoint bytes as received, or an empty array for a new conversation.
 * @returns The encoded `AgentClientMessage`.
 *
 * @example
 * ```ts
 * import { create, fromBinary } from "@bufbuild/protobuf";
 * import { AgentRunRequestSchema } from "../gen/agent/v1/run_request_pb.ts";
 * import { AgentClientMessageSchema } from "../gen/agent/v1/client_message_pb.ts";
 * import { encodeRunRequestMessage } from "./run-request-bytes.ts";
 *
 * const bytes = encodeRunRequestMessage(create(AgentRunRequestSchema, { conversationId: "c" }), new Uint8Array(0));
 * const message = fromBinary(AgentClientMessageSchema, bytes);
 * console.assert(message.message.case === "runRequest" && message.message.value.conversationState !== undefined);
 * ```
 */
export function encodeRunRequestMessage(
  request: AgentRunRequest,
  checkpoint: Uint8Array,
): Uint8Array {
  const body = toBinary(AgentRunRequestSchema, request);
  const withState = new BinaryWriter()
    .tag(1, WireType.LengthDelimited).bytes(checkpoint)
    .raw(body)
    .finish();
  return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(withState).finish();
}
