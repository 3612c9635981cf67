import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText } from "ai";
import { createCursor } from "../../node.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { type EmulatorProcess, startEmulatorProcess } from "../../scripts/lib/emulator-process.ts";

const RUNS = 200;
const AT_ONCE = 4;

describe("HTTP/2 Runs against an emulator in another process", () => {
  let emulator: EmulatorProcess;
  before(async () => {
    emulator = await startEmulatorProcess({ lifetimeMs: 180_000 });
  });
  after(async () => await emulator?.stop());

  it(`completes ${RUNS} Runs without losing one to early response headers`, async () => {
    // A short answer deadline: a Run whose response headers went unheard fails in 5 s
    // instead of 15 s, so a regression shows quickly.
    const transport = createHttp2Transport({ connectTimeoutMs: 5_000 });
    const cursor = createCursor({
      apiKey: "crsr_test_key_0123456789",
      apiBaseURL: emulator.url,
      agentBaseURL: emulator.http2Url,
      allowLoopback: true,
      transport,
      env: {},
    });
    try {
      let next = 0;
      const worker = async () => {
        while (next < RUNS) {
          const index = next++;
          const result = await generateText({
            model: cursor("gpt-5"),
            prompt: `::text run ${index}`,
            maxRetries: 0,
          });
          assert.equal(result.text, `run ${index}`, `Run ${index} answered`);
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, worker));
      assert.equal(next, RUNS);
    } finally {
      transport.close();
    }
  });
});
