/**
 * Why the client reads checkpoints from the raw frame instead of a decoded message (and
 * why a generated Connect client, which hands out decoded messages only, cannot carry
 * the Run): Cursor wants the last checkpoint back verbatim, and decoding then encoding
 * moves fields the schema does not know.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { ConversationStateStructureSchema } from "../../src/gen/agent/v1/conversation_state_pb.ts";
import { rawFieldBytes } from "../../src/protocol/raw-field.ts";

/** A checkpoint frame whose state starts with a field this schema does not know. */
function checkpointFrame(): { frame: Uint8Array; state: Uint8Array } {
  const state = new BinaryWriter();
  state.tag(99, WireType.Varint).uint32(7);
  state.tag(1, WireType.LengthDelimited).bytes(new Uint8Array(32).fill(1));
  const stateBytes = state.finish();
  const frame = new BinaryWriter();
  frame.tag(3, WireType.LengthDelimited).bytes(stateBytes);
  return { frame: frame.finish(), state: stateBytes };
}

describe("checkpoint bytes", () => {
  it("are taken from the frame byte for byte", () => {
    const { frame, state } = checkpointFrame();
    assert.deepEqual(rawFieldBytes(frame, 3), state);
  });

  it("would not survive a decode and re-encode (the reason they are not re-encoded)", () => {
    const { frame, state } = checkpointFrame();
    const message = fromBinary(AgentServerMessageSchema, frame);
    assert.equal(message.message.case, "conversationCheckpointUpdate");
    const reencoded = message.message.case === "conversationCheckpointUpdate"
      ? toBinary(ConversationStateStructureSchema, message.message.value)
      : new Uint8Array(0);
    assert.equal(reencoded.length, state.length, "the same fields");
    assert.notDeepEqual(reencoded, state, "but the unknown field moved to the end");
  });
});
