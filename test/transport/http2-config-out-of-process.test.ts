import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createCursorProvider } from "../../src/provider/cursor-provider.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import type { AgentTransport } from "../../src/transport/agent-transport.ts";
import { type EmulatorProcess, startEmulatorProcess } from "../../scripts/lib/emulator-process.ts";

describe("GetServerConfig's http2_config from an emulator in another process", () => {
  let emulator: EmulatorProcess;
  before(async () => {
    emulator = await startEmulatorProcess({
      lifetimeMs: 60_000,
      args: ["--http2-config", "force-all-disabled", "--quiet"],
    });
  });
  after(async () => await emulator?.stop());

  it("keeps every Run on SSE and never opens an HTTP/2 Run", async () => {
    const http2 = createHttp2Transport({ connectTimeoutMs: 5_000 });
    let http2Runs = 0;
    const counted: AgentTransport = {
      kind: "http2",
      openRun: (run) => {
        http2Runs++;
        return http2.openRun(run);
      },
    };
    const { logger, lines } = createMemoryLogger();
    const cursor = createCursorProvider({
      apiKey: "crsr_test_key_0123456789",
      apiBaseURL: emulator.url,
      allowLoopback: true,
      transport: "auto",
      env: {},
      debug: logger,
      conversationSnapshots: false,
      imageStaging: false,
    }, { http2Transport: () => counted });
    try {
      for (const text of ["one", "two"]) {
        const result = await generateText({
          model: cursor("gpt-5"),
          prompt: `::text ${text}`,
          maxRetries: 0,
        });
        assert.equal(result.text, text);
      }
      // The process's own server speaks HTTP/2 too and refuses a Run there with 464.
      assert.equal(http2Runs, 0);
      assert.deepEqual(lines.filter((line) => line.startsWith("transport fallback:")), [
        "transport fallback: to=sse reason=server-config http2Config=HTTP2_CONFIG_FORCE_ALL_DISABLED",
      ]);
    } finally {
      http2.close();
    }
  });
});
