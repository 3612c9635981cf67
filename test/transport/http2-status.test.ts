import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2-transport.ts";
import { withEmulator } from "../support/emulator.ts";

describe("HTTP/2 transport: a Run the server refuses", () => {
  it("fails with a typed error carrying the HTTP status, and nothing escapes uncaught", async () => {
    await withEmulator({ auth: { required: false }, log: false }, async (emulator) => {
      const transport = createHttp2Transport({ connectTimeoutMs: 5_000 });
      try {
        // The emulator's HTTP/1.1 origin refuses the bidi Run as Cursor's load balancer does.
        const stream = await transport.openRun({
          agentBaseURL: emulator.url,
          headers: {},
          requestId: "refused-run",
        });
        stream.send(new Uint8Array([0x0a, 0x00])).catch(() => {});
        await assert.rejects(
          async () => {
            for await (const _ of stream.frames) { /* none expected */ }
          },
          (error: unknown) => {
            assert.ok(error instanceof CursorError, String(error));
            assert.match(error.message, /AgentService\/Run failed with HTTP 464/);
            return true;
          },
        );
      } finally {
        transport.close();
      }
    });
  });
});
