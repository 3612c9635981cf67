/**
 * The SSE transport keeps its connections across turns: later turns of a conversation
 * reuse the connections the first opened (each new one would cost a TCP and a TLS
 * handshake over a real network). Counted by the emulator's network relay, against the
 * provider as users build it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createCursor } from "../../node.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { createSseTransport } from "../../src/transport/sse-transport.ts";
import {
  type CursorEmulator,
  type NetworkStats,
  startCursorEmulator,
} from "../../src/testing/mod.ts";

/**
 * The global fetch, counting the requests in flight (each from its call until its response
 * body has been read to its end) and recording each response given up before its end (its
 * body cancelled, or failing when its request was aborted). A client opens a new
 * connection only when every open one carries a request, so a turn can need one only when
 * more of its requests overlap than connections are open.
 */
function countingFetch() {
  let inFlight = 0;
  let peak = 0;
  const givenUp: string[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const leg = String(input).split("/").pop() ?? "";
    inFlight++;
    peak = Math.max(peak, inFlight);
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      inFlight--;
    };
    init?.signal?.addEventListener("abort", () => {
      if (settled) return;
      givenUp.push(`${leg} aborted`);
      settle();
    }, { once: true });
    let response: Response;
    try {
      response = await globalThis.fetch(input, init);
    } catch (error) {
      settle();
      throw error;
    }
    if (response.body === null) {
      settle();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const read = await reader.read();
          if (read.done) {
            settle();
            controller.close();
          } else controller.enqueue(read.value);
        } catch (error) {
          if (!settled) givenUp.push(`${leg} failed`);
          settle();
          controller.error(error);
        }
      },
      cancel(reason) {
        if (!settled) givenUp.push(`${leg} cancelled`);
        settle();
        return reader.cancel(reason);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
  return {
    fetch,
    givenUp,
    inFlight: () => inFlight,
    /** The most requests in flight at once since the last call (starting from those now). */
    takePeak(): number {
      const seen = peak;
      peak = inFlight;
      return seen;
    },
  };
}

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

  it("keeps every connection, and opens one on a warm turn only for more requests at once", async () => {
    const counting = countingFetch();
    const cursor = createCursor({
      accessToken: "test",
      apiBaseURL: emulator.url,
      agentBaseURL: emulator.url,
      allowLoopback: true,
      transport: "sse",
      fetch: counting.fetch,
      env: {},
    });
    const prompt: LanguageModelV3Prompt = [];
    const turns: string[] = [];
    for (let turn = 1; turn <= 4; turn++) {
      prompt.push({
        role: "user",
        content: [{ type: "text", text: `Turn ${turn}\n::text Reply ${turn}` }],
      });
      const before = network(emulator);
      counting.takePeak();
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
      // The Run's stream and its appends are read to their end: nothing stays in flight.
      await settled(() => counting.inFlight() === 0, "requests still in flight after the turn");
      const peak = counting.takePeak();
      const now = network(emulator);
      const opened = now.connections - before.connections;
      // The connections there were to reuse (one closed by an idle timeout is not).
      const open = before.connections - now.closed;
      turns.push(`turn ${turn}: ${opened} opened, ${open} open before, ${peak} requests at once`);
      if (turn === 1) assert.ok(opened > 0, "the first turn connects");
      // Every open connection was reused before a new one was opened.
      else assert.ok(opened <= Math.max(0, peak - open), turns.join("; "));
    }
    assert.deepEqual(counting.givenUp, [], "no response given up before its end");
    assert.equal(network(emulator).closedInUse, 0, "no connection closed in use");
    assert.equal(emulator.violations().length, 0);
  });
});

function network(emulator: CursorEmulator): NetworkStats {
  const stats = emulator.network();
  assert.ok(stats !== undefined, "the emulator plays a network");
  return stats;
}

async function settled(done: () => boolean, message: string): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 10_000) assert.fail(message);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
