import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import {
  frame,
  FrameReader,
  FramingError,
  inflate,
  rawField,
} from "../../src/testing/emulator/wire/envelope.ts";

describe("the emulator's frame reader", () => {
  it("refuses reserved flag bits, for good", () => {
    const reader = new FrameReader(1024);
    assert.throws(
      () => reader.push(frame(new Uint8Array([1]), 0x04)),
      /reserved flag bits set in 0x4/,
    );
    assert.throws(() => reader.push(frame(new Uint8Array([1]))), FramingError);
  });

  it("refuses a length over the limit before its bytes arrive", () => {
    const reader = new FrameReader(8);
    const header = frame(new Uint8Array(9)).subarray(0, 5);
    assert.throws(
      () => reader.push(header),
      (error: unknown) =>
        error instanceof FramingError && error.tooLarge &&
        error.message === "Cannot decode frame: length 9 exceeds limit 8",
    );
  });

  it("reports a stream that ends inside a frame", () => {
    const reader = new FrameReader(1024);
    assert.deepEqual(reader.push(frame(new Uint8Array([1, 2, 3])).subarray(0, 6)), []);
    assert.throws(
      () => reader.finish(),
      /stream ended inside an envelope with 6 byte\(s\) buffered/,
    );
  });

  it("reads a large frame split into many chunks, and frames behind it", () => {
    const big = new Uint8Array(300_000).map((_, index) => index % 251);
    const bytes = new Uint8Array([...frame(big), ...frame(new Uint8Array([7]))]);
    const reader = new FrameReader(1 << 20);
    const frames = [];
    for (let offset = 0; offset < bytes.length; offset += 4096) {
      frames.push(...reader.push(bytes.subarray(offset, offset + 4096)));
    }
    reader.finish();
    assert.equal(frames.length, 2);
    assert.deepEqual(frames[0]?.payload, big);
    assert.deepEqual(frames[1]?.payload, new Uint8Array([7]));
  });

  it("refuses corrupt gzip and gzip that inflates past the limit", async () => {
    await assert.rejects(inflate(new Uint8Array([1, 2, 3]), 1024), /corrupt gzip payload/);
    const zeros = new Uint8Array(4096);
    const compressed = new Uint8Array(
      await new Response(new Blob([zeros]).stream().pipeThrough(new CompressionStream("gzip")))
        .arrayBuffer(),
    );
    await assert.rejects(inflate(compressed, 1000), /inflated size exceeds limit 1000/);
    assert.equal((await inflate(compressed, 4096)).length, 4096);
  });

  it("takes a field's raw bytes exactly as sent, or nothing from a broken message", () => {
    const message = toBinary(
      AgentClientMessageSchema,
      create(AgentClientMessageSchema, {
        message: { case: "runRequest", value: { conversationId: "c-1" } },
      }),
    );
    const runRequest = rawField(message, 1);
    assert.ok(runRequest);
    assert.deepEqual(rawField(message.subarray(0, message.length - 1), 1), undefined);
    assert.equal(rawField(message, 2), undefined);
  });
});
