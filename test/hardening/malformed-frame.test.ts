import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fromBinary } from "@bufbuild/protobuf";
import { streamText } from "ai";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { encodeEnvelope, EnvelopeDecoder } from "../../src/protocol/envelope.ts";
import { type Frame, gunzip, readFrames } from "../../src/transport/frame-stream.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

/** A header with a reserved flag bit: malformed whatever follows. */
const RESERVED_FLAG_HEADER = [0x80, 0, 0, 0, 1, 0];
/** A header announcing more than the limit. */
const OVERSIZED_HEADER = [0x00, 0x7f, 0xff, 0xff, 0xff];

function oneChunk(...parts: ArrayLike<number>[]): ReadableStream<Uint8Array> {
  const bytes = new Uint8Array(parts.flatMap((part) => Array.from(part)));
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<{
  frames: Frame[];
  error: unknown;
}> {
  const frames: Frame[] = [];
  try {
    for await (const frame of readFrames(body, { decodeDetail: () => undefined })) {
      frames.push(frame);
    }
    return { frames, error: undefined };
  } catch (error) {
    return { frames, error };
  }
}

describe("a malformed frame in the same read as good ones", () => {
  for (
    const [name, bad, pattern] of [
      ["reserved flag bits", RESERVED_FLAG_HEADER, /reserved flag bits/],
      ["an oversized length", OVERSIZED_HEADER, /exceeds limit/],
    ] as const
  ) {
    it(`keeps every whole frame before ${name}, then fails`, async () => {
      const { frames, error } = await collect(oneChunk(
        encodeEnvelope(new Uint8Array([1, 2, 3])),
        encodeEnvelope(new Uint8Array([4])),
        bad,
      ));
      assert.deepEqual(
        frames.map((f) => f.kind === "message" ? Array.from(f.bytes) : f.kind),
        [[1, 2, 3], [4]],
      );
      assert.ok(error instanceof CursorError, `a CursorError, got ${String(error)}`);
      assert.equal(error.code, "protocol");
      assert.match(error.message, pattern);
    });
  }

  it("the decoder hands out the whole envelopes and throws on the next call", () => {
    const decoder = new EnvelopeDecoder();
    const chunk = new Uint8Array([...encodeEnvelope(new Uint8Array([7])), ...RESERVED_FLAG_HEADER]);
    assert.equal(decoder.push(chunk).length, 1);
    assert.throws(() => decoder.push(new Uint8Array(0)), /reserved flag bits/);
    assert.throws(() => decoder.finish(), /reserved flag bits/);
  });

  it("the text streamed before the malformed frame reaches the caller, with the error", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse", { fetch: corruptAfterFirstText });
      const result = streamText({
        model: cursor("gpt-5"),
        prompt: "::text Partial answer kept",
        maxRetries: 0,
      });
      let text = "";
      let error: unknown;
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") text += part.text;
        if (part.type === "error") error = part.error;
      }
      assert.equal(text, "Partial answer kept");
      assert.ok(error instanceof Error, "the stream ended with an error");
      assert.match(error.message, /reserved flag bits/);
    });
  });
});

/**
 * Passes requests to the emulator; the RunSSE body is cut after the first text delta,
 * which is delivered in one read together with a malformed frame header (frames
 * before it pass one by one, so the Run proceeds as usual up to there).
 */
const corruptAfterFirstText: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (!String(input).endsWith("/agent.v1.AgentService/RunSSE") || !response.body) {
    return response;
  }
  const decoder = new EnvelopeDecoder();
  let done = false;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        if (done) return;
        for (const envelope of decoder.push(chunk)) {
          const whole = new Uint8Array([
            envelope.flags,
            ...lengthBytes(envelope.data.length),
            ...envelope.data,
          ]);
          if (!await isTextDelta(envelope.data, envelope.flags)) {
            controller.enqueue(whole);
            continue;
          }
          controller.enqueue(new Uint8Array([...whole, ...RESERVED_FLAG_HEADER]));
          done = true;
          controller.terminate();
          return;
        }
      },
    }),
  );
  return new Response(body, { status: response.status, headers: response.headers });
};

async function isTextDelta(data: Uint8Array, flags: number): Promise<boolean> {
  if ((flags & 0x02) !== 0) return false;
  const payload = (flags & 0x01) !== 0 ? await gunzip(data, 1 << 24) : data;
  const message = fromBinary(AgentServerMessageSchema, payload).message;
  return message.case === "interactionUpdate" && message.value.message.case === "textDelta";
}

function lengthBytes(length: number): number[] {
  return [(length >>> 24) & 0xff, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff];
}
