/**
 * The SSE transport keeps its connections across turns: after the first turn of a
 * conversation, later turns open no new TCP connection (each would cost a TCP and a TLS
 * handshake over a real network). Counted by the emulator's network relay, against the
 * provider as users build it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createCursor } from "../../node.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { createSseTransport } from "../../src/transport/sse-transport.ts";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";

/**
 * A fetch whose every response body ends a moment after its last bytes (as the end of a
 * chunked body or a TLS record arrives after the data), and that records each response
 * given up before its end: a body cancelled, or its request aborted, before the body
 * ended. Each such response costs a real client its connection.
 */
function endingLate() {
  const lost: string[] = [];
  let finishRunSse: () => void = () => {};
  const answered: (() => void)[] = [];
  const respond = (path: string, signal: AbortSignal | undefined, chunks: Uint8Array[]) => {
    let ended = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        const finish = () => {
          if (ended) return;
          ended = true;
          controller.close();
        };
        if (path === "RunSSE") finishRunSse = () => setTimeout(finish, 5);
        else setTimeout(finish, 5);
        signal?.addEventListener("abort", () => {
          if (ended) return;
          ended = true;
          lost.push(`${path} aborted`);
          controller.error(signal.reason);
        }, { once: true });
      },
      cancel() {
        if (!ended) lost.push(`${path} cancelled`);
        ended = true;
      },
    });
    return new Response(body, { status: 200 });
  };
  let runSse: ((frames: Uint8Array[]) => void) | undefined;
  const fetch: typeof globalThis.fetch = (input, init) => {
    const path = String(input).split("/").pop() ?? "";
    const signal = init?.signal ?? undefined;
    if (path === "RunSSE") {
      return new Promise((resolve) => {
        runSse = (frames) => resolve(respond(path, signal, frames));
      });
    }
    // Appends answer once the test lets them, with a body that ends a moment later.
    return new Promise((resolve) => {
      answered.push(() => resolve(respond(path, signal, [new TextEncoder().encode("{}")])));
    });
  };
  return {
    fetch,
    lost,
    /** Answers RunSSE with one message and the end of stream; its body ends 5 ms later. */
    endRun() {
      runSse?.([
        encodeEnvelope(new Uint8Array([8, 1])),
        encodeEnvelope(new TextEncoder().encode("{}"), FLAG_END_STREAM),
      ]);
      finishRunSse();
    },
    /** Answers the appends sent so far, once at least one has arrived. */
    async answerAppends() {
      for (let waited = 0; answered.length === 0; waited += 5) {
        if (waited > 5_000) throw new Error("No append arrived");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      answered.splice(0).forEach((answer) => answer());
    },
  };
}

describe("SSE gives no response up before its end", () => {
  it("reads appends and the RunSSE tail to their end, and waits for appends in flight", async () => {
    const server = endingLate();
    const transport = createSseTransport({ fetch: server.fetch });
    const run = await transport.openRun({
      agentBaseURL: "https://agent.example",
      headers: {},
      requestId: "r1",
    });
    const first = run.send(new Uint8Array([1]));
    await server.answerAppends();
    await first;
    // One append still unanswered when the Run's stream ends and the Run is closed.
    const late = run.send(new Uint8Array([2]));
    server.endRun();
    const kinds: string[] = [];
    for await (const frame of run.frames) {
      kinds.push(frame.kind);
      if (frame.kind === "end") break;
    }
    run.close();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await server.answerAppends();
    await late;
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.deepEqual(kinds, ["message", "end"]);
    assert.deepEqual(server.lost, []);
  });
});

describe("SSE connections across turns", () => {
  let emulator: CursorEmulator;

  before(async () => {
    emulator = await startCursorEmulator({ auth: { required: false }, network: {} });
  });
  after(async () => await emulator?.close());

  it("opens no new connection on warm turns", async () => {
    const cursor = createCursor({
      accessToken: "test",
      apiBaseURL: emulator.url,
      agentBaseURL: emulator.url,
      allowLoopback: true,
      transport: "sse",
      env: {},
    });
    const prompt: LanguageModelV3Prompt = [];
    const opened: number[] = [];
    for (let turn = 1; turn <= 4; turn++) {
      prompt.push({
        role: "user",
        content: [{ type: "text", text: `Turn ${turn}\n::text Reply ${turn}` }],
      });
      const before = emulator.network()?.connections ?? 0;
      const { stream } = await cursor("gpt-5").doStream({
        prompt,
        providerOptions: { cursor: { sessionId: "keep-alive" } },
      });
      let reply = "";
      for await (const part of stream) {
        if (part.type === "error") throw part.error;
        if (part.type === "text-delta") reply += part.delta;
      }
      assert.equal(reply, `Reply ${turn}`);
      prompt.push({ role: "assistant", content: [{ type: "text", text: reply }] });
      opened.push((emulator.network()?.connections ?? 0) - before);
      // A person's next message comes after the answer, not in the same millisecond: the
      // transport reads the Run's stream tail to the end to keep its connection (ADR 165), and
      // a loaded test process can still be reading it when a next turn starts at once.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.ok((opened[0] ?? 0) > 0, "the first turn connects");
    assert.deepEqual(opened.slice(1), [0, 0, 0], `new connections per turn: ${opened.join(", ")}`);
    assert.equal(emulator.violations().length, 0);
  });
});
