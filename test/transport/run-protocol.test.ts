import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { streamingHeaders } from "../../src/protocol/headers.ts";
import type { Frame } from "../../src/transport/frame-stream.ts";
import {
  encodeRunMessage,
  readRunFrames,
  type RunBodyOptions,
  runRequestHeaders,
  trailerError,
} from "../../src/transport/run-protocol.ts";

const text = (value: string) => new TextEncoder().encode(value);
const endOfStream = (json: string) => encodeEnvelope(text(json), FLAG_END_STREAM);

/** A body delivering `chunks`, then ending (or failing with `error`). */
function bodyOf(chunks: readonly Uint8Array[], error?: unknown): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (error === undefined) controller.close();
      else controller.error(error);
    },
  });
}

const NO_FAILURE: RunBodyOptions = {
  failure: () => undefined,
  failureOf: (cause) => new CursorError("network", `pipe failed: ${String(cause)}`),
};

async function readAll(frames: AsyncIterable<Frame>): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const frame of frames) out.push(frame);
  return out;
}

async function failureOf(frames: AsyncIterable<Frame>): Promise<CursorError> {
  try {
    await readAll(frames);
  } catch (error) {
    assert.ok(error instanceof CursorError, `expected a CursorError, got ${String(error)}`);
    return error;
  }
  assert.fail("the frames ended without an error");
}

describe("run protocol: request headers", () => {
  it("adds the streaming call's Connect headers and the request id to the Run's own", () => {
    const headers = runRequestHeaders(
      { authorization: "Bearer t", "x-request-id": "stale", "x-cursor-client-type": "cli" },
      "run-1",
    );
    assert.deepEqual(headers, {
      authorization: "Bearer t",
      "x-request-id": "run-1",
      "x-cursor-client-type": "cli",
      "connect-protocol-version": "1",
      "content-type": "application/connect+proto",
      "connect-accept-encoding": "gzip",
      "x-cursor-streaming": "true",
    });
  });

  it("sends what streamingHeaders adds for every streaming call", () => {
    const streaming = streamingHeaders({
      accessToken: "t",
      clientVersion: "cli-2026.08.11-e8db854",
      requestId: "run-1",
      nowMs: 0,
      machineId: "a".repeat(64),
    });
    const run = runRequestHeaders({}, "run-1");
    for (const name of ["connect-protocol-version", "content-type", "connect-accept-encoding"]) {
      assert.equal(run[name], streaming[name], name);
    }
    assert.equal(run["x-cursor-streaming"], streaming["x-cursor-streaming"]);
  });

  it("writes a client message as one plain envelope", () => {
    assert.deepEqual([...encodeRunMessage(new Uint8Array([8, 1]))], [0, 0, 0, 0, 2, 8, 1]);
  });
});

describe("run protocol: reading a Run's body", () => {
  it("yields the messages and the end-of-stream in order", async () => {
    const frames = await readAll(readRunFrames(
      bodyOf([
        encodeEnvelope(new Uint8Array([1])),
        encodeEnvelope(new Uint8Array([2])),
        endOfStream("{}"),
      ]),
      NO_FAILURE,
    ));
    assert.deepEqual(frames.map((frame) => frame.kind), ["message", "message", "end"]);
    assert.deepEqual(frames[1]?.kind === "message" ? [...frames[1].bytes] : [], [2]);
    assert.equal(frames[2]?.kind === "end" && frames[2].end.ok, true);
  });

  it("decodes an end-of-stream error into a typed error", async () => {
    const frames = await readAll(readRunFrames(
      bodyOf([endOfStream('{"error":{"code":"resource_exhausted","message":"slow down"}}')]),
      NO_FAILURE,
    ));
    const end = frames[0];
    assert.ok(end?.kind === "end" && !end.end.ok);
    assert.ok(end.end.error instanceof CursorError);
    assert.match(end.end.error.message, /slow down/);
  });

  it("fails a Run accepted and closed without a single frame as wrong_region", async () => {
    const error = await failureOf(readRunFrames(bodyOf([]), NO_FAILURE));
    assert.equal(error.code, "wrong_region");
    assert.equal(error.replaySafe, true);
    assert.match(error.message, /agent URL/);
  });

  it("reports a failure known at the body's end (trailers) before a missing frame", async () => {
    const trailers = new CursorError("unavailable", "Cursor ended the Run with gRPC status 14");
    const error = await failureOf(
      readRunFrames(bodyOf([]), { ...NO_FAILURE, failureAtEnd: () => trailers }),
    );
    assert.equal(error, trailers);
  });

  it("tells a broken body by the pipe's rule, unless the Run recorded its own failure", async () => {
    const broken = () => bodyOf([encodeEnvelope(new Uint8Array([1]))], new Error("socket hang up"));
    const error = await failureOf(readRunFrames(broken(), NO_FAILURE));
    assert.equal(error.code, "network");
    assert.match(error.message, /pipe failed: Error: socket hang up/);
    const recorded = new CursorError("timeout", "BidiAppend did not answer");
    assert.equal(
      await failureOf(readRunFrames(broken(), { ...NO_FAILURE, failure: () => recorded })),
      recorded,
    );
  });

  it("keeps a framing error as it is", async () => {
    const error = await failureOf(
      readRunFrames(bodyOf([endOfStream("{}"), encodeEnvelope(new Uint8Array([1]))]), NO_FAILURE),
    );
    assert.equal(error.code, "protocol");
    assert.match(error.message, /after the end-of-stream/);
  });

  it("refuses a frame over the size limit", async () => {
    const error = await failureOf(readRunFrames(
      bodyOf([encodeEnvelope(new Uint8Array(64))]),
      { ...NO_FAILURE, maxFrameBytes: 16 },
    ));
    assert.equal(error.code, "protocol");
  });
});

describe("run protocol: trailers", () => {
  it("reads no failure from a clean or absent gRPC status", () => {
    assert.equal(trailerError({}), undefined);
    assert.equal(trailerError({ "grpc-status": "0" }), undefined);
  });

  it("classifies a failing gRPC status with its decoded message", () => {
    const error = trailerError({ "grpc-status": "14", "grpc-message": "host%20draining" });
    assert.ok(error instanceof CursorError);
    assert.equal(error.code, "unavailable");
    assert.equal(error.retryable, true);
    assert.equal(error.message, "Cursor ended the Run with gRPC status 14: host draining");
  });
});
