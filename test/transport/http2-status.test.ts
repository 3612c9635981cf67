import { describe, it } from "node:test";
import assert from "node:assert/strict";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { CursorError } from "../../src/core/cursor-error.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { errorFromResponse } from "../../src/transport/http-error.ts";
import { withEmulator } from "../support/emulator.ts";

describe("HTTP/2 transport: an origin that does not serve the bidi Run", () => {
  it("fails the Run with a typed error, and nothing escapes uncaught", async () => {
    await withEmulator({ auth: { required: false }, log: false }, async (emulator) => {
      const transport = createHttp2Transport({ connectTimeoutMs: 5_000 });
      try {
        // The emulator's HTTP/1.1 origin: under Deno it answers HTTP/2 with 464, as Cursor's
        // load balancer does; Node's and Bun's HTTP/1.1 servers break the connection at the
        // preface, so the Run does not open (nothing of it is sent).
        await assert.rejects(
          async () => {
            const stream = await transport.openRun({
              agentBaseURL: emulator.url,
              headers: {},
              requestId: "refused-run",
            });
            stream.send(new Uint8Array([0x0a, 0x00])).catch(() => {});
            for await (const _ of stream.frames) { /* none expected */ }
          },
          (error: unknown) => {
            assert.ok(error instanceof CursorError, String(error));
            assert.match(
              error.message,
              /AgentService\/Run failed with HTTP 464: .*agentBaseURL.*"sse"|Cannot open an HTTP\/2 connection to http:\/\/127\.0\.0\.1:\d+: /,
            );
            if (error.message.includes("464")) assert.equal(error.retryable, false);
            else assert.equal(error.replaySafe, true);
            return true;
          },
        );
      } finally {
        transport.close();
      }
    });
  });

  it("ends the Run with the status of an answer that has no body", async () => {
    // Deno's client ended such a stream before it was read, and the Run waited forever.
    const server = http2.createServer();
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on("session", (session) => sessions.add(session));
    server.on("stream", (stream) => {
      stream.on("error", () => {});
      stream.respond({ ":status": 464, "content-type": "text/plain" });
      stream.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const transport = createHttp2Transport({ connectTimeoutMs: 5_000 });
    try {
      const stream = await transport.openRun({
        agentBaseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        headers: {},
        requestId: "empty-answer",
      });
      await assert.rejects(
        async () => {
          for await (const _ of stream.frames) { /* none expected */ }
        },
        (error: unknown) => error instanceof CursorError && error.httpStatus === 464,
      );
    } finally {
      transport.close();
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("reads Cursor's 464 (a Run over HTTP/1.1) as a setting to fix, not a failure to retry", async () => {
    const error = await errorFromResponse(new Response(null, { status: 464 }), "AgentService/Run");
    assert.equal(error.code, "config");
    assert.equal(error.retryable, false);
    assert.match(error.message, /HTTP 464: the agent host refused the Run as HTTP\/1\.1/);
    assert.match(error.message, /set agentBaseURL .* or use transport "sse"/);
  });
});
