import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { generateText, streamText } from "ai";
import { CursorError } from "../../src/core/cursor-error.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createCursorProvider } from "../../src/provider/cursor-provider.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { HTTP2_RETRY_AFTER_MS } from "../../src/transport/transport-choice.ts";
import {
  type CursorEmulator,
  startCursorEmulator,
  type StartEmulatorOptions,
} from "../../src/testing/mod.ts";
import { type AgentOriginFront, startAgentOriginFront } from "../support/agent-origin-front.ts";

const API_KEY = "crsr_test_key_0123456789";
const quiet = { maxRetries: 0 } as const;

/** What a test gets: the emulator behind one agent origin, and a provider pointed at it. */
interface Setup {
  readonly emulator: CursorEmulator;
  readonly front: AgentOriginFront;
  readonly lines: string[];
  readonly clock: { ms: number };
  readonly cursor: ReturnType<typeof createCursorProvider>;
}

/**
 * Starts the emulator behind a front that serves both protocols on one origin (announced
 * by `GetServerConfig`), and a provider with `transport` that looks the origin up.
 */
async function withOrigin(
  options: StartEmulatorOptions,
  settings: CursorProviderSettings,
  fn: (setup: Setup) => Promise<void>,
): Promise<void> {
  const front = await startAgentOriginFront();
  const emulator = await startCursorEmulator({ ...options, agentUrl: front.url });
  front.target(emulator.url, emulator.http2Url ?? emulator.url);
  const http2 = createHttp2Transport({ connectTimeoutMs: 5_000 });
  const { logger, lines } = createMemoryLogger();
  const clock = { ms: Date.now() };
  const cursor = createCursorProvider({
    apiKey: API_KEY,
    apiBaseURL: emulator.url,
    allowLoopback: true,
    env: {},
    debug: logger,
    now: () => clock.ms,
    conversationSnapshots: false,
    imageStaging: false,
    ...settings,
  }, { http2Transport: () => http2 });
  try {
    await fn({ emulator, front, lines, clock, cursor });
  } finally {
    http2.close();
    await front.close();
    await emulator.close();
  }
}

const fallbackLines = (lines: readonly string[]) =>
  lines.filter((line) => line.startsWith("transport fallback:"));
const transports = (emulator: CursorEmulator) => emulator.runs().map((run) => run.transport);

async function turn(setup: Setup, text: string): Promise<void> {
  const result = await generateText({
    model: setup.cursor("gpt-5"),
    prompt: `::text ${text}`,
    ...quiet,
  });
  assert.equal(result.text, text);
}

describe("HTTP/2 with SSE behind it", () => {
  it("runs over HTTP/2 when the server allows it and the origin speaks it", async () => {
    await withOrigin({}, { transport: "http2" }, async (setup) => {
      await turn(setup, "one");
      await turn(setup, "two");
      assert.deepEqual(transports(setup.emulator), ["http2", "http2"]);
      assert.deepEqual(fallbackLines(setup.lines), []);
      assert.equal(setup.front.http2Attempts(), 1, "one session serves both Runs");
    });
  });

  it('keeps "auto" (the default) off HTTP/2 on a cleartext origin: SSE, no h2c attempt', async () => {
    for (const settings of [{ transport: "auto" as const }, {}]) {
      await withOrigin({}, settings, async (setup) => {
        await turn(setup, "one");
        await turn(setup, "two");
        assert.deepEqual(transports(setup.emulator), ["sse", "sse"]);
        assert.equal(setup.front.http2Attempts(), 0, "no HTTP/2 connection is tried");
        assert.deepEqual(fallbackLines(setup.lines), [], "not a fallback: the rule for http:");
        // The first Run's line is written before the agent origin is known (it comes from
        // the server config); later ones name the transport the Run uses.
        const outbound = setup.lines.filter((line) => line.startsWith("outbound Run:"));
        assert.match(outbound[1] ?? "", / transport=sse /);
      });
    }
  });

  for (const choice of ["http2", "auto"] as const) {
    it(`runs over SSE when GetServerConfig forces HTTP/2 off (transport "${choice}")`, async () => {
      await withOrigin(
        { http2Config: "force-all-disabled" },
        { transport: choice },
        async (setup) => {
          await turn(setup, "one");
          await turn(setup, "two");
          assert.deepEqual(transports(setup.emulator), ["sse", "sse"]);
          assert.equal(setup.front.http2Attempts(), 0, "no HTTP/2 connection is tried");
          assert.deepEqual(fallbackLines(setup.lines), [
            "transport fallback: to=sse reason=server-config http2Config=HTTP2_CONFIG_FORCE_ALL_DISABLED",
          ]);
          // The first Run's line is written before the server config is known; later ones
          // name the transport the Run will use.
          const outbound = setup.lines.filter((line) => line.startsWith("outbound Run:"));
          assert.equal(outbound.length, 2);
          assert.match(outbound[1] ?? "", / transport=sse /);
        },
      );
    });
  }

  it("opens the Run over SSE when HTTP/2 cannot connect, and tries HTTP/2 again later", async () => {
    await withOrigin({}, { transport: "http2" }, async (setup) => {
      setup.front.mode = "refuse-http2";
      await turn(setup, "one");
      await turn(setup, "two");
      assert.deepEqual(transports(setup.emulator), ["sse", "sse"]);
      assert.equal(setup.front.http2Attempts(), 1, "one failed attempt within the window");
      const [line, ...more] = fallbackLines(setup.lines);
      assert.deepEqual(more, []);
      assert.match(
        line ?? "",
        /^transport fallback: to=sse reason=http2-unavailable code=network retryAfterMs=300000 error="Cannot open an HTTP\/2 connection to http:\/\/127\.0\.0\.1:\d+: /,
      );
      // Past the window HTTP/2 is tried again, and used once the network carries it.
      setup.front.mode = "both";
      setup.clock.ms += HTTP2_RETRY_AFTER_MS + 1;
      await turn(setup, "three");
      assert.deepEqual(transports(setup.emulator), ["sse", "sse", "http2"]);
      assert.equal(setup.front.http2Attempts(), 2);
    });
  });

  it("moves a Run refused with 464 before its first frame to SSE, sending it once there", async () => {
    await withOrigin({}, { transport: "http2" }, async (setup) => {
      setup.front.mode = "answer-464";
      await turn(setup, "one");
      await turn(setup, "two");
      assert.deepEqual(transports(setup.emulator), ["sse", "sse"]);
      assert.equal(setup.front.http2Attempts(), 1, "the refusal is remembered");
      const [line, ...more] = fallbackLines(setup.lines);
      assert.deepEqual(more, []);
      assert.match(
        line ?? "",
        /^transport fallback: to=sse reason=http2-refused code=config retryAfterMs=300000 error="AgentService\/Run failed with HTTP 464: /,
      );
      assert.deepEqual(setup.emulator.violations(), []);
    });
  });

  it("opens over SSE when the origin speaks only HTTP/1.1", async () => {
    const emulator = await startCursorEmulator({ http2: false, server: "node" });
    const http2 = createHttp2Transport({ connectTimeoutMs: 5_000 });
    const { logger, lines } = createMemoryLogger();
    try {
      const cursor = createCursorProvider({
        apiKey: API_KEY,
        apiBaseURL: emulator.url,
        allowLoopback: true,
        env: {},
        debug: logger,
        transport: "http2",
        conversationSnapshots: false,
        imageStaging: false,
      }, { http2Transport: () => http2 });
      const result = await generateText({ model: cursor("gpt-5"), prompt: "::text hi", ...quiet });
      assert.equal(result.text, "hi");
      assert.deepEqual(emulator.runs().map((run) => run.transport), ["sse"]);
      assert.equal(fallbackLines(lines).length, 1);
      assert.deepEqual(emulator.violations(), []);
    } finally {
      http2.close();
      await emulator.close();
    }
  });

  it("keeps HTTP/2 when a Run fails after it started", async () => {
    await withOrigin({}, { transport: "http2" }, async (setup) => {
      setup.emulator.faults.next({ kind: "rst-stream", afterFrames: 2 });
      const result = streamText({ model: setup.cursor("gpt-5"), prompt: "::deltas 5", ...quiet });
      for await (const _ of result.fullStream) { /* drain; an error part is fine */ }
      await turn(setup, "after");
      const seen = transports(setup.emulator);
      assert.ok(seen.length >= 2, `the reset Run and the next one: ${seen.join(",")}`);
      assert.ok(seen.every((transport) => transport === "http2"), seen.join(","));
      assert.deepEqual(fallbackLines(setup.lines), []);
    });
  });

  it("writes no credential into the debug log", async () => {
    await withOrigin({}, { transport: "http2" }, async (setup) => {
      setup.front.mode = "refuse-http2";
      await turn(setup, "one");
      const { accessToken } = await setup.emulator.auth.issueTokens();
      assert.ok(fallbackLines(setup.lines).length === 1);
      const log = setup.lines.join("\n");
      assert.ok(!log.includes(API_KEY), "no API key");
      assert.ok(!log.includes(accessToken.split(".")[0] + "."), "no token header");
      assert.doesNotMatch(log, /Bearer|authorization/i);
    });
  });
});

describe("the HTTP/2 transport against an origin without HTTP/2", () => {
  for (const server of ["node", "auto"] as const) {
    it(`rejects with a CursorError, nothing sent (server "${server}")`, async () => {
      const emulator = await startCursorEmulator({ http2: false, server });
      const transport = createHttp2Transport({ connectTimeoutMs: 5_000 });
      try {
        const opened = transport.openRun({
          agentBaseURL: emulator.url,
          headers: {},
          requestId: "r-1",
        }).then(async (run) => {
          // Deno's server speaks HTTP/2 with prior knowledge and refuses the Run with 464.
          for await (const _ of run.frames) { /* the answer */ }
        });
        const error = await opened.then(() => undefined, (caught: unknown) => caught);
        assert.ok(error instanceof CursorError, `a CursorError, got ${String(error)}`);
        assert.ok(error.replaySafe, "nothing of the Run reached a server that could run it");
      } finally {
        transport.close();
        await emulator.close();
      }
    });
  }
});

describe("the HTTP/2 transport against an origin that never answers the handshake", () => {
  it("times out with nothing sent and closes the connection it opened", async () => {
    const sockets: Socket[] = [];
    let closed = 0;
    // Accepts TCP and stays silent: no SETTINGS, no HTTP/1.1 answer.
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.on("close", () => closed++);
      socket.on("error", () => {});
      socket.resume(); // reads (and drops) the client's preface, so its end is seen
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const transport = createHttp2Transport({ connectTimeoutMs: 300 });
    try {
      const error = await transport.openRun({
        agentBaseURL: `http://127.0.0.1:${port}`,
        headers: {},
        requestId: "r-1",
      }).then(() => undefined, (caught: unknown) => caught);
      assert.ok(error instanceof CursorError, `a CursorError, got ${String(error)}`);
      assert.equal(error.code, "timeout");
      assert.ok(error.replaySafe, "nothing of the Run was sent");
      const deadline = Date.now() + 2_000;
      while (closed < sockets.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(sockets.length, 1, "one connection was opened");
      assert.equal(closed, 1, "and closed once its handshake timed out");
    } finally {
      transport.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
