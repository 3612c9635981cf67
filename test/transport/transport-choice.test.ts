/**
 * The HTTP/2-or-SSE choice on its own, with stub transports: which origins HTTP/2 is tried
 * on, and that an HTTP/2 client throwing (as Bun's `node:http2` can, synchronously, from
 * inside its own code) moves the Run to SSE with a debug line instead of escaping.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryLogger } from "../../src/core/logger.ts";
import type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
} from "../../src/transport/agent-transport.ts";
import { createTransportChoice } from "../../src/transport/transport-choice.ts";

const sseRun: AgentRunStream = {
  send: () => Promise.resolve(),
  frames: { [Symbol.asyncIterator]: async function* () {} },
  close: () => {},
};

function stubs(http2OpenRun: (run: OpenRunOptions) => Promise<AgentRunStream>) {
  const opened: string[] = [];
  const http2: AgentTransport = {
    kind: "http2",
    openRun: (run) => {
      opened.push(`http2 ${run.agentBaseURL}`);
      return http2OpenRun(run);
    },
  };
  const sse: AgentTransport = {
    kind: "sse",
    openRun: (run) => {
      opened.push(`sse ${run.agentBaseURL}`);
      return Promise.resolve(sseRun);
    },
  };
  return { http2, sse, opened };
}

const run = (agentBaseURL: string): OpenRunOptions => ({
  agentBaseURL,
  headers: {},
  requestId: "r-1",
});

describe("the HTTP/2-or-SSE choice", () => {
  it("with cleartextHttp2 off, opens http: origins over SSE and https: over HTTP/2", async () => {
    const { http2, sse, opened } = stubs(() => Promise.resolve(sseRun));
    const { logger, lines } = createMemoryLogger();
    const choice = createTransportChoice({
      http2,
      sse,
      serverConfig: () => undefined,
      logger,
      now: Date.now,
      cleartextHttp2: false,
    });
    await choice.openRun(run("http://127.0.0.1:1"));
    assert.equal(choice.kind, "sse", "the next Run on that origin is SSE");
    await choice.openRun(run("https://agent.example"));
    assert.equal(choice.kind, "http2");
    assert.deepEqual(opened, ["sse http://127.0.0.1:1", "http2 https://agent.example"]);
    assert.deepEqual(lines, [], "no fallback: the rule for http:");
  });

  it('tries h2c on an http: origin by default (the "http2" setting)', async () => {
    const { http2, sse, opened } = stubs(() => Promise.resolve(sseRun));
    const { logger } = createMemoryLogger();
    const choice = createTransportChoice({
      http2,
      sse,
      serverConfig: () => undefined,
      logger,
      now: Date.now,
    });
    await choice.openRun(run("http://127.0.0.1:1"));
    assert.deepEqual(opened, ["http2 http://127.0.0.1:1"]);
  });

  it("moves the Run to SSE when the HTTP/2 client throws synchronously", async () => {
    const { http2, sse, opened } = stubs(() => {
      throw new TypeError(
        'The "authority" argument must be of type string, Object, or URL. Received type number',
      );
    });
    const { logger, lines } = createMemoryLogger();
    const choice = createTransportChoice({
      http2,
      sse,
      serverConfig: () => undefined,
      logger,
      now: Date.now,
    });
    const opened1 = await choice.openRun(run("https://agent.example"));
    assert.equal(opened1, sseRun);
    assert.deepEqual(opened, ["http2 https://agent.example", "sse https://agent.example"]);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] ?? "",
      /^transport fallback: to=sse reason=http2-unavailable code=internal retryAfterMs=300000 error=".*authority/,
    );
  });
});
