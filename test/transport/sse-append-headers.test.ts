import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createSseTransport } from "../../src/transport/sse-transport.ts";

/** Records each request's headers; RunSSE's body stays open, appends answer at once. */
function recordingFetch() {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = String(input);
    requests.push({ url, headers: { ...(init?.headers as Record<string, string>) } });
    if (url.endsWith("/RunSSE")) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          init?.signal?.addEventListener("abort", () => controller.error(init.signal?.reason), {
            once: true,
          });
        },
      });
      return Promise.resolve(new Response(body, { status: 200 }));
    }
    return Promise.resolve(new Response(new Uint8Array(0), { status: 200 }));
  };
  return { fetch, requests };
}

describe("SSE transport: BidiAppend headers", () => {
  it("sends connect-protocol-version, connect-timeout-ms (the append deadline) and x-cursor-streaming, as Cursor's client", async () => {
    for (const appendTimeoutMs of [undefined, 12_345]) {
      const recorded = recordingFetch();
      const transport = createSseTransport(
        appendTimeoutMs === undefined
          ? { fetch: recorded.fetch }
          : { fetch: recorded.fetch, appendTimeoutMs },
      );
      const stream = await transport.openRun({
        agentBaseURL: "https://agent.cursor.sh",
        headers: { "x-cursor-client-type": "cli", "connect-accept-encoding": "gzip" },
        requestId: "r",
      });
      await stream.send(new Uint8Array([0x0a, 0x00]));
      stream.close();
      const append = recorded.requests.find((r) => r.url.endsWith("/BidiAppend"));
      assert.ok(append);
      assert.equal(append.headers["connect-protocol-version"], "1");
      assert.equal(append.headers["connect-timeout-ms"], String(appendTimeoutMs ?? 30_000));
      assert.equal(append.headers["content-type"], "application/proto");
      assert.equal(append.headers["x-cursor-streaming"], "true");
      assert.equal(append.headers["x-request-id"], "r");
      assert.equal(append.headers["x-cursor-client-type"], "cli");
      // The run stream's own encoding negotiation is not an append's.
      assert.equal(append.headers["connect-accept-encoding"], undefined);
    }
  });
});
