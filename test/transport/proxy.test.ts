/**
 * Cursor requests through an HTTP CONNECT proxy (`HTTPS_PROXY`, as corporate networks
 * have them), against the emulator over TLS in its own process and a real proxy process
 * on loopback: SSE through the proxied fetch, HTTP/2 through a tunnel, a proxy that wants
 * credentials, one that refuses, and `NO_PROXY`. The proxy's credentials never show in an
 * error or a debug line.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createCursor } from "../../node.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { createProxyFetch } from "../../src/adapters/node/proxy/proxy-fetch.ts";
import { proxyFor } from "../../src/transport/proxy-rules.ts";
import { type EmulatorProcess, startEmulatorProcess } from "../../scripts/lib/emulator-process.ts";
import { type ProxyProcess, startProxyProcess } from "../../scripts/lib/proxy-process.ts";

const CA = readFileSync("test/testing/fixtures/local-ca.pem", "utf8");
const SECRET = "s3cret-proxy-password";

type Transport = "sse" | "http2";

/** A provider whose Cursor requests follow `env`'s proxy variables. */
function provider(emulator: EmulatorProcess, env: Record<string, string>, transport: Transport) {
  const { logger, lines } = createMemoryLogger();
  const http2 = createHttp2Transport({
    connectOptions: { ca: CA },
    proxy: (origin) => proxyFor(origin, env),
  });
  const cursor = createCursor({
    accessToken: "test",
    apiBaseURL: emulator.url,
    agentBaseURL: emulator.url,
    allowLoopback: true,
    env: {},
    debug: logger,
    fetch: createProxyFetch(env, fetch, { ca: CA }),
    ...(transport === "http2" ? { transport: http2 } : { transport: "sse" as const }),
  });
  return { cursor, lines, close: () => http2.close() };
}

async function turn(cursor: ReturnType<typeof createCursor>, text: string): Promise<string> {
  const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text }] }];
  const { stream } = await cursor("gpt-5").doStream({ prompt });
  let reply = "";
  for await (const part of stream) {
    if (part.type === "error") throw part.error;
    if (part.type === "text-delta") reply += part.delta;
  }
  return reply;
}

describe("Cursor requests through an HTTP CONNECT proxy", () => {
  let emulator: EmulatorProcess;
  let open: ProxyProcess;
  let guarded: ProxyProcess;
  let refusing: ProxyProcess;
  let target: string;

  before(async () => {
    [emulator, open, guarded, refusing] = await Promise.all([
      startEmulatorProcess({ args: ["--no-auth", "--quiet", "--tls", "--latency", "0"] }),
      startProxyProcess(),
      startProxyProcess(["--auth", `user:${SECRET}`]),
      startProxyProcess(["--refuse"]),
    ]);
    target = new URL(emulator.url).host;
  });
  after(async () => {
    await Promise.all([emulator?.stop(), open?.stop(), guarded?.stop(), refusing?.stop()]);
  });

  for (const transport of ["sse", "http2"] as const) {
    it(`carries ${transport} Runs through the tunnel`, async () => {
      const before = open.connects().length;
      const { cursor, close } = provider(emulator, { HTTPS_PROXY: open.url }, transport);
      try {
        assert.equal(await turn(cursor, "::text through the proxy"), "through the proxy");
        assert.equal(await turn(cursor, "::text again"), "again");
      } finally {
        close();
      }
      const connects = open.connects().slice(before);
      assert.ok(connects.length > 0, "the proxy saw the requests");
      for (const line of connects) {
        assert.equal(line, `proxy: connect target=${target} auth=none status=200`);
      }
      if (transport === "http2") assert.equal(connects.length, 1, "one tunnel for both Runs");
    });

    it(`passes the proxy's credentials (${transport}), and fails clearly without them`, async () => {
      const port = new URL(guarded.url).port;
      const good = provider(emulator, {
        https_proxy: `http://user:${SECRET}@127.0.0.1:${port}`,
      }, transport);
      try {
        assert.equal(await turn(good.cursor, "::text let in"), "let in");
      } finally {
        good.close();
      }
      assert.match(guarded.connects().at(-1) ?? "", /auth=ok status=200$/);
      const bad = provider(emulator, {
        HTTPS_PROXY: `http://user:wrong-${SECRET}@127.0.0.1:${port}`,
      }, transport);
      try {
        const error = await turn(bad.cursor, "::text never").then(() => undefined, (e) => e);
        assert.ok(error instanceof Error, "the turn failed");
        assert.match(error.message, /Proxy "http:\/\/127\.0\.0\.1:\d+" .*HTTP 407/);
        assert.doesNotMatch(`${error.message} ${String(error.cause)}`, new RegExp(SECRET));
        assert.doesNotMatch(bad.lines.join("\n"), new RegExp(SECRET));
      } finally {
        bad.close();
      }
    });

    it(`fails clearly when the proxy refuses the tunnel (${transport})`, async () => {
      const { cursor, close } = provider(emulator, { HTTPS_PROXY: refusing.url }, transport);
      try {
        const error = await turn(cursor, "::text never").then(() => undefined, (e) => e);
        assert.ok(error instanceof Error, "the turn failed");
        assert.match(error.message, /did not open a tunnel to .*: it answered HTTP 403/);
      } finally {
        close();
      }
    });
  }

  it("goes direct for hosts in NO_PROXY", async () => {
    // A proxy of its own: no line of an earlier test can arrive late.
    const unused = await startProxyProcess(["--refuse"]);
    const { cursor, close } = provider(emulator, {
      HTTPS_PROXY: unused.url,
      NO_PROXY: "example.com,127.0.0.1",
    }, "http2");
    try {
      assert.equal(await turn(cursor, "::text direct"), "direct");
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(unused.connects(), [], "the proxy was not asked");
    } finally {
      close();
      await unused.stop();
    }
  });
});
