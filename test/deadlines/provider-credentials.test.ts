import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveProviderConfig } from "../../src/provider/direct/config/provider-config.ts";

describe("Provider credentials inside a held Run", () => {
  it("sends each BidiAppend with the token the source holds now, not the one the Run opened with", async () => {
    let token = "token-1";
    const appends: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      if (String(input).endsWith("/RunSSE")) {
        return Promise.resolve(new Response(new ReadableStream<Uint8Array>(), { status: 200 }));
      }
      appends.push(new Headers(init?.headers).get("authorization") ?? "");
      return Promise.resolve(new Response(new Uint8Array(0), { status: 200 }));
    };
    const config = resolveProviderConfig({
      accessToken: () => token,
      agentBaseURL: "https://agent.cursor.sh",
      fetch,
      clientVersion: "cli-2026.01.01-abcdef0",
      machineId: "a".repeat(64),
    });
    const stream = await config.transport.openRun({
      agentBaseURL: "https://agent.cursor.sh",
      headers: await config.headers("r1"),
      requestId: "r1",
    });
    try {
      await stream.send(new Uint8Array([1]));
      token = "token-2"; // renewed while the host ran a long tool
      await stream.send(new Uint8Array([2]));
    } finally {
      stream.close();
    }
    assert.deepEqual(appends, ["Bearer token-1", "Bearer token-2"]);
  });
});
