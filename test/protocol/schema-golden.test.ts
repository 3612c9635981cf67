import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { ConversationStateStructureSchema } from "../../src/gen/agent/v1/conversation_state_pb.ts";
import { TurnEndedUpdateSchema } from "../../src/gen/agent/v1/interaction_update_pb.ts";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { BidiAppendRequestSchema } from "../../src/gen/aiserver/v1/bidi_pb.ts";

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array {
  const pairs = hex.match(/../g) ?? [];
  return Uint8Array.from(pairs, (pair) => Number.parseInt(pair, 16));
}

/** Reads the varint fields of a flat message into a field-number → value map. */
function varintFields(bytes: Uint8Array): Map<number, bigint> {
  const reader = new BinaryReader(bytes);
  const fields = new Map<number, bigint>();
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    assert.equal(wireType, WireType.Varint, `field ${fieldNo} is not a varint`);
    fields.set(fieldNo, BigInt(reader.uint64()));
  }
  return fields;
}

const TURN_ENDED = {
  inputTokens: 18_234n,
  outputTokens: 212n,
  cacheReadTokens: 15_360n,
  cacheWriteTokens: 1_639n,
  reasoningTokens: 96n,
};

/** TurnEndedUpdate{1: 18234, 2: 212, 3: 15360, 4: 1639 (cache write), 5: 96}. */
const TURN_ENDED_HEX = "08ba8e0110d40118807820e70c2860";

/** AgentServerMessage{1: InteractionUpdate{14: <TURN_ENDED_HEX>}}. */
const SERVER_TURN_ENDED_HEX = `0a11720f${TURN_ENDED_HEX}`;

/** AgentClientMessage{7: ClientHeartbeat{}}. */
const CLIENT_HEARTBEAT_HEX = "3a00";

/** BidiAppendRequest{1: "3a00", 2: BidiRequestId{1: "req-1"}, 3: 2}. */
const BIDI_APPEND_HEX = "0a043361303012070a057265712d311802";

function turnEndedBytes(): Uint8Array {
  return toBinary(TurnEndedUpdateSchema, create(TurnEndedUpdateSchema, TURN_ENDED));
}

describe("golden bytes: TurnEndedUpdate", () => {
  it("encodes all five counters with field 4 as cache write", () => {
    const bytes = turnEndedBytes();
    assert.equal(toHex(bytes), TURN_ENDED_HEX);
    assert.deepEqual(
      varintFields(bytes),
      new Map([[1, 18_234n], [2, 212n], [3, 15_360n], [4, 1_639n], [5, 96n]]),
    );
  });

  it("decodes the pinned bytes into the named counters", () => {
    const decoded = fromBinary(TurnEndedUpdateSchema, fromHex(TURN_ENDED_HEX));
    assert.equal(decoded.cacheWriteTokens, 1_639n);
    assert.equal(decoded.cacheReadTokens, 15_360n);
    assert.equal(decoded.inputTokens, 18_234n);
    assert.equal(decoded.outputTokens, 212n);
    assert.equal(decoded.reasoningTokens, 96n);
  });

  it("keeps an explicit zero counter on the wire (explicit presence)", () => {
    const bytes = toBinary(
      TurnEndedUpdateSchema,
      create(TurnEndedUpdateSchema, { cacheWriteTokens: 0n }),
    );
    assert.equal(toHex(bytes), "2000");
    assert.equal(toBinary(TurnEndedUpdateSchema, create(TurnEndedUpdateSchema)).length, 0);
  });

  it("pins the full server envelope payload", () => {
    const message = create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: { message: { case: "turnEnded", value: TURN_ENDED } },
      },
    });
    assert.equal(toHex(toBinary(AgentServerMessageSchema, message)), SERVER_TURN_ENDED_HEX);
  });
});

describe("golden bytes: BidiAppendRequest", () => {
  it("pins a hex-mode append carrying a client heartbeat", () => {
    const heartbeat = create(AgentClientMessageSchema, {
      message: { case: "clientHeartbeat", value: {} },
    });
    const data = toHex(toBinary(AgentClientMessageSchema, heartbeat));
    assert.equal(data, CLIENT_HEARTBEAT_HEX);
    const append = create(BidiAppendRequestSchema, {
      data,
      requestId: { requestId: "req-1" },
      appendSeqno: 2n,
    });
    assert.equal(toHex(toBinary(BidiAppendRequestSchema, append)), BIDI_APPEND_HEX);
  });

  it("puts binary-mode data in field 4", () => {
    const append = create(BidiAppendRequestSchema, {
      dataBinary: fromHex(CLIENT_HEARTBEAT_HEX),
      requestId: { requestId: "req-1" },
      appendSeqno: 0n,
    });
    assert.equal(toHex(toBinary(BidiAppendRequestSchema, append)), "12070a057265712d3122023a00");
  });
});

describe("golden bytes: unknown fields", () => {
  it("keeps unknown fields of a flat message through a round trip", () => {
    const writer = new BinaryWriter();
    writer.raw(turnEndedBytes());
    writer.tag(99, WireType.LengthDelimited).string("from a newer server");
    writer.tag(100, WireType.Varint).uint64(7n);
    const bytes = writer.finish();

    const decoded = fromBinary(TurnEndedUpdateSchema, bytes);
    assert.equal(decoded.cacheWriteTokens, 1_639n);
    assert.deepEqual(decoded.$unknown?.map((field) => field.no), [99, 100]);
    assert.deepEqual(toBinary(TurnEndedUpdateSchema, decoded), bytes);
  });

  it("keeps unknown fields nested inside known messages", () => {
    const writer = new BinaryWriter();
    writer.tag(1, WireType.LengthDelimited).fork(); // interaction_update
    writer.tag(14, WireType.LengthDelimited).fork(); // turn_ended
    writer.raw(turnEndedBytes());
    writer.tag(6, WireType.Varint).uint32(42); // a counter this schema does not know
    writer.join();
    writer.tag(77, WireType.LengthDelimited).bytes(new Uint8Array([1, 2, 3]));
    writer.join();
    const bytes = writer.finish();

    const decoded = fromBinary(AgentServerMessageSchema, bytes);
    assert.equal(decoded.message.case, "interactionUpdate");
    assert.deepEqual(toBinary(AgentServerMessageSchema, decoded), bytes);
  });

  it("keeps undeclared checkpoint fields so a checkpoint can be sent back intact", () => {
    const writer = new BinaryWriter();
    writer.tag(1, WireType.LengthDelimited).bytes(new Uint8Array(32).fill(9));
    writer.tag(21, WireType.LengthDelimited).fork(); // tracked_git_repo_branches (undeclared)
    writer.tag(1, WireType.LengthDelimited).string("main");
    writer.join();
    writer.tag(23, WireType.LengthDelimited).bytes(new Uint8Array([5])); // undeclared
    const bytes = writer.finish();

    const decoded = fromBinary(ConversationStateStructureSchema, bytes);
    assert.equal(decoded.rootPromptMessagesJson.length, 1);
    assert.deepEqual(decoded.$unknown?.map((field) => field.no), [21, 23]);
    assert.deepEqual(toBinary(ConversationStateStructureSchema, decoded), bytes);
  });
});
