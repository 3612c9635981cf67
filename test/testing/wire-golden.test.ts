/**
 * Golden wire fixtures (test/fixtures/wire/agent-frames.json) checked against both sides:
 * the client's codecs (src/protocol, src/transport) and the emulator's own
 * (src/testing/emulator/wire). The two sides share no framing code, so a change of either
 * side's bytes fails here even when the other side would have accepted it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  create,
  type DescMessage,
  fromBinary,
  fromJson,
  type JsonValue,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../../src/gen/aiserver/v1/bidi_pb.ts";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { bytesToHex, hexToBytes } from "../../src/core/bytes.ts";
import { encodeEnvelope, EnvelopeDecoder } from "../../src/protocol/envelope.ts";
import { parseEndStream } from "../../src/protocol/end-stream.ts";
import { decodeErrorDetail } from "../../src/protocol/error-detail.ts";
import { decodeBidiAppend, encodeBidiAppend } from "../../src/protocol/bidi-append.ts";
import { encodeRunRequestMessage } from "../../src/protocol/run-request-bytes.ts";
import { AgentRunRequestSchema } from "../../src/gen/agent/v1/run_request_pb.ts";
import { gunzip, readFrames } from "../../src/transport/frame-stream.ts";
import { frame, FrameReader, inflate, rawField } from "../../src/testing/emulator/wire/envelope.ts";
import { endStreamEnvelope } from "../../src/testing/emulator/wire/connect-http.ts";
import { ERROR_PRESETS } from "../../src/testing/emulator/faults/faults.ts";
import { createEmulator } from "../../src/testing/mod.ts";

interface FrameFixture {
  readonly name: string;
  readonly source: readonly string[];
  readonly flags: number;
  readonly schema?: string;
  readonly message: JsonValue;
  readonly payloadHex: string;
  readonly frameHex: string;
  /** For a run request: the checkpoint bytes the client echoes, unknown fields included. */
  readonly checkpointHex?: string;
}

interface UnaryFixture {
  readonly name: string;
  readonly source: readonly string[];
  readonly message: JsonValue;
  readonly bodyHex: string;
}

const fixtures = JSON.parse(
  readFileSync("test/fixtures/wire/agent-frames.json", "utf8"),
) as { frames: FrameFixture[]; unary: UnaryFixture[] };

const SCHEMAS: Readonly<Record<string, DescMessage>> = {
  "aiserver.v1.BidiRequestId": BidiRequestIdSchema,
  "aiserver.v1.BidiAppendRequest": BidiAppendRequestSchema,
  "agent.v1.AgentClientMessage": AgentClientMessageSchema,
  "agent.v1.AgentServerMessage": AgentServerMessageSchema,
};

function hex(text: string): Uint8Array {
  const bytes = hexToBytes(text);
  assert.ok(bytes, `valid hex ${text.slice(0, 16)}`);
  return bytes;
}

function fixture(name: string): FrameFixture {
  const found = fixtures.frames.find((entry) => entry.name === name);
  assert.ok(found, `fixture ${name}`);
  return found;
}

/** Splits bytes into uneven chunks (1, 2, 3, … bytes) so decoders see frames cut anywhere. */
function unevenChunks(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0, size = 1; offset < bytes.length; offset += size, size++) {
    chunks.push(bytes.subarray(offset, offset + size));
  }
  return chunks;
}

const plain = fixtures.frames.filter((entry) => (entry.flags & 0x01) === 0);
const endStreams = fixtures.frames.filter((entry) => entry.flags === 0x02);
const serverMessages = fixtures.frames.filter((entry) =>
  entry.schema === "agent.v1.AgentServerMessage"
);

describe("wire fixtures", () => {
  it("every fixture cites its protocol source and its message matches its payload", () => {
    for (const entry of [...fixtures.frames, ...fixtures.unary]) {
      assert.ok(
        entry.source.length > 0 && entry.source.every((s) => /\.md §\d/.test(s)),
        entry.name,
      );
    }
    for (const entry of fixtures.frames) {
      const payload = hex(entry.payloadHex);
      if (entry.schema === undefined) {
        assert.deepEqual(JSON.parse(new TextDecoder().decode(payload)), entry.message, entry.name);
        continue;
      }
      const schema = SCHEMAS[entry.schema];
      assert.ok(schema, entry.schema);
      assert.deepEqual(
        toJson(schema, fromBinary(schema, payload)),
        entry.message,
        `${entry.name}: the golden payload decodes to the readable message`,
      );
      if (entry.checkpointHex !== undefined) continue; // carries fields JSON cannot show
      assert.equal(
        bytesToHex(toBinary(schema, fromJson(schema, entry.message))),
        entry.payloadHex,
        `${entry.name}: the schema encodes the readable message to the golden payload`,
      );
    }
  });
});

describe("wire fixtures: the client's codecs", () => {
  it("frames each payload to the golden bytes", () => {
    for (const entry of plain) {
      assert.equal(
        bytesToHex(encodeEnvelope(hex(entry.payloadHex), entry.flags)),
        entry.frameHex,
        entry.name,
      );
    }
  });

  it("reads each golden frame back, cut anywhere, compressed or not", async () => {
    for (const entry of fixtures.frames) {
      const decoder = new EnvelopeDecoder();
      const envelopes = unevenChunks(hex(entry.frameHex)).flatMap((c) => decoder.push(c));
      decoder.finish();
      assert.equal(envelopes.length, 1, entry.name);
      assert.equal(envelopes[0]?.flags, entry.flags, entry.name);
      const data = envelopes[0]?.data ?? new Uint8Array(0);
      const payload = (entry.flags & 0x01) === 0 ? data : await gunzip(data, 1 << 20);
      assert.equal(bytesToHex(payload), entry.payloadHex, entry.name);
    }
  });

  it("reads a server stream of golden frames to its end", async () => {
    const bytes = hex(
      [...serverMessages, fixture("end-stream-ok")].map((e) => e.frameHex).join(""),
    );
    const chunks = unevenChunks(bytes);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
    });
    const seen: string[] = [];
    for await (const item of readFrames(body, { decodeDetail: decodeErrorDetail })) {
      if (item.kind === "end") {
        assert.equal(item.end.ok, true);
        seen.push("end");
      } else {
        const message = fromBinary(AgentServerMessageSchema, item.bytes);
        seen.push(
          message.message.case === "interactionUpdate"
            ? message.message.value.message.case ?? "?"
            : "?",
        );
      }
    }
    assert.deepEqual(seen, ["textDelta", "heartbeat", "turnEnded", "end"]);
  });

  it("takes the golden error end-stream as a retryable rate limit with Cursor's detail", () => {
    const end = parseEndStream(
      hex(fixture("end-stream-error").payloadHex),
      decodeErrorDetail,
    );
    assert.equal(end.ok, false);
    if (end.ok) return;
    assert.equal(end.error.code, "rate_limited");
    assert.equal(end.error.retryAfterMs, 2000);
    assert.equal(end.error.detail?.error, "ERROR_RATE_LIMITED");
    assert.equal(end.error.detail?.title, "Too many requests");
  });

  it("sends the checkpoint inside the golden run request byte for byte", () => {
    const entry = fixture("client-run-request");
    const request = create(AgentRunRequestSchema, {
      action: {
        action: { case: "userMessageAction", value: { userMessage: { text: "::text hi" } } },
      },
      conversationId: "golden-conversation",
      requestedModel: { modelId: "gpt-5" },
    });
    assert.equal(
      bytesToHex(encodeRunRequestMessage(request, hex(entry.checkpointHex ?? ""))),
      entry.payloadHex,
    );
  });

  it("encodes and decodes the golden BidiAppend body", () => {
    const [append] = fixtures.unary;
    assert.ok(append);
    const heartbeat = hex(fixture("client-heartbeat").payloadHex);
    assert.equal(bytesToHex(encodeBidiAppend("golden-req-1", 0, heartbeat)), append.bodyHex);
    const decoded = decodeBidiAppend(hex(append.bodyHex));
    assert.deepEqual(
      { ...decoded, message: bytesToHex(decoded.message) },
      { requestId: "golden-req-1", seqno: 0, message: "3a00", encoding: "hex" },
    );
  });
});

describe("wire fixtures: the emulator's codecs", () => {
  it("frames each payload to the golden bytes", () => {
    for (const entry of plain) {
      assert.equal(
        bytesToHex(frame(hex(entry.payloadHex), entry.flags)),
        entry.frameHex,
        entry.name,
      );
    }
  });

  it("ends streams with the golden end-stream frames", () => {
    const preset = ERROR_PRESETS["rate-limit"];
    assert.equal(bytesToHex(endStreamEnvelope()), fixture("end-stream-ok").frameHex);
    assert.equal(
      bytesToHex(endStreamEnvelope({
        code: preset?.code ?? "",
        message: preset?.message ?? "",
        ...(preset?.detail === undefined ? {} : { detail: preset.detail }),
        ...(preset?.retryAfterMs === undefined ? {} : { retryAfterMs: preset.retryAfterMs }),
      })),
      fixture("end-stream-error").frameHex,
    );
    assert.equal(endStreams.length, 2);
  });

  it("reads each golden frame back, cut anywhere, compressed or not", async () => {
    for (const entry of fixtures.frames) {
      const reader = new FrameReader(1 << 20);
      const frames = unevenChunks(hex(entry.frameHex)).flatMap((c) => reader.push(c));
      reader.finish();
      assert.equal(frames.length, 1, entry.name);
      assert.equal(frames[0]?.flags, entry.flags, entry.name);
      const data = frames[0]?.payload ?? new Uint8Array(0);
      const payload = (entry.flags & 0x01) === 0 ? data : await inflate(data, 1 << 20);
      assert.equal(bytesToHex(payload), entry.payloadHex, entry.name);
    }
  });

  it("takes the checkpoint out of the golden run request byte for byte", () => {
    const entry = fixture("client-run-request");
    const runRequest = rawField(hex(entry.payloadHex), 1);
    assert.ok(runRequest);
    assert.equal(bytesToHex(rawField(runRequest, 1) ?? new Uint8Array(0)), entry.checkpointHex);
  });

  it("opens a Run from the golden RunSSE request and reads the golden BidiAppend", async () => {
    const emulator = await createEmulator({ auth: { required: false } });
    try {
      const response = await emulator.fetch(
        new Request("http://emulator.test/agent.v1.AgentService/RunSSE", {
          method: "POST",
          headers: { "content-type": "application/connect+proto" },
          body: new Uint8Array(hex(fixture("runsse-request").frameHex)),
        }),
      );
      assert.equal(response.status, 200);
      const [append] = fixtures.unary;
      const appended = await emulator.fetch(
        new Request("http://emulator.test/aiserver.v1.BidiService/BidiAppend", {
          method: "POST",
          headers: { "content-type": "application/proto" },
          body: new Uint8Array(hex(append?.bodyHex ?? "")),
        }),
      );
      assert.equal(appended.status, 200);
      const body = new Uint8Array(await response.arrayBuffer());
      const reader = new FrameReader(1 << 20);
      const frames = reader.push(body);
      const last = frames[frames.length - 1];
      assert.equal(last?.flags, 0x02, "the Run ended with an end-stream frame");
      const [run] = emulator.runs();
      assert.equal(run?.requestId, "golden-req-1");
      assert.deepEqual(
        emulator.violations().map((v) => [v.rule, v.message]),
        [["first-message-not-run-request", "First client message was clientHeartbeat"]],
        "the emulator decoded the appended heartbeat",
      );
    } finally {
      await emulator.close();
    }
  });
});
