import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { CursorError } from "../../src/core/cursor-error.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { create } from "@bufbuild/protobuf";
import { silentLogger } from "../../src/core/logger.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { AgentRun } from "../../src/agent-run/agent-run.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";

/** What the stub agent host does with a Run, chosen by the Run's request id. */
type Scenario = "reset-before-headers" | "reset-mid-answer" | "refuse-old-token";

/** A plaintext HTTP/2 agent host whose Runs misbehave on purpose. */
function stubAgentHost() {
  const server = http2.createServer();
  const authorizations: string[] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    stream.on("error", () => {});
    const scenario = String(headers["x-request-id"]) as Scenario;
    authorizations.push(String(headers.authorization ?? ""));
    if (scenario === "reset-before-headers") {
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    if (scenario === "reset-mid-answer") {
      stream.respond({ ":status": 200, "content-type": "application/connect+proto" });
      stream.write(encodeEnvelope(new Uint8Array([1, 2, 3])));
      setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), 20);
      return;
    }
    if (headers.authorization !== "Bearer renewed") {
      stream.respond({ ":status": 401, "content-type": "application/json" });
      stream.end(JSON.stringify({ code: "unauthenticated", message: "Token expired" }));
      return;
    }
    // Echo the first client frame back, then end the stream cleanly.
    stream.respond({ ":status": 200, "content-type": "application/connect+proto" });
    stream.once("data", (chunk: Uint8Array) => {
      stream.write(encodeEnvelope(new Uint8Array(chunk).subarray(5)));
      stream.end(encodeEnvelope(new TextEncoder().encode("{}"), FLAG_END_STREAM));
    });
  });
  return {
    authorizations,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      }),
  };
}

/** Rejects with "hung" when `work` is still pending after the guard. */
async function withinGuard<T>(work: Promise<T>, guardMs = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("hung")), guardMs);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}

async function readAll(frames: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of frames) count++;
  return count;
}

describe("HTTP/2 transport: streams reset by the agent host", () => {
  let host: ReturnType<typeof stubAgentHost>;
  let origin: string;
  let transport: ReturnType<typeof createHttp2Transport>;
  beforeEach(async () => {
    host = stubAgentHost();
    origin = await host.listen();
    transport = createHttp2Transport({ connectTimeoutMs: 15_000 });
  });
  afterEach(async () => {
    transport.close();
    await host.close();
  });

  const retryableTransportFailure = (error: unknown) => {
    assert.ok(error instanceof CursorError, String(error));
    assert.notEqual(error.code, "canceled", error.message);
    assert.ok(error.retryable, `${error.code}: ${error.message}`);
    return true;
  };

  it("fails at once, retryably, when the stream is reset before any answer", async () => {
    const stream = await transport.openRun({
      agentBaseURL: origin,
      headers: {},
      requestId: "reset-before-headers",
    });
    stream.send(new Uint8Array([0x0a, 0x00])).catch(() => {});
    await assert.rejects(withinGuard(readAll(stream.frames)), retryableTransportFailure);
    stream.close();
  });

  it("reports a reset in the middle of the answer as a retryable transport failure", async () => {
    const stream = await transport.openRun({
      agentBaseURL: origin,
      headers: {},
      requestId: "reset-mid-answer",
    });
    const run = new AgentRun(stream, {
      blobs: createMemoryBlobStore(),
      requestContext: create(RequestContextSchema, {}),
      logger: silentLogger,
      heartbeatMs: 60_000,
    });
    await run.start(new Uint8Array([0x0a, 0x00]));
    const events: string[] = [];
    await assert.rejects(
      withinGuard((async () => {
        for await (const event of run.events()) events.push(event.type);
      })()),
      (error: unknown) => {
        retryableTransportFailure(error);
        assert.equal((error as CursorError).replaySafe, false);
        return true;
      },
    );
    assert.deepEqual(events, ["warning"]); // the one (undecodable) frame came through first
  });

  it("re-opens a Run refused with 401 once, with a renewed token, resending what was sent", async () => {
    const refused: string[] = [];
    const stream = await transport.openRun({
      agentBaseURL: origin,
      headers: { authorization: "Bearer expired" },
      requestId: "refuse-old-token",
      credentials: {
        current: () => Promise.resolve("expired"),
        rejected: (token) => {
          refused.push(token);
          return Promise.resolve("renewed");
        },
      },
    });
    await stream.send(new Uint8Array([7, 8, 9]));
    const frames: number[][] = [];
    await withinGuard((async () => {
      for await (const frame of stream.frames) {
        if (frame.kind === "message") frames.push([...frame.bytes]);
      }
    })());
    stream.close();
    assert.deepEqual(refused, ["expired"]);
    assert.deepEqual(host.authorizations, ["Bearer expired", "Bearer renewed"]);
    assert.deepEqual(frames, [[7, 8, 9]]);
  });
});
