/**
 * The emulator's network: a one-way delay on each direction (per chunk, a new connection
 * paying its TCP handshake), connection and byte counts, and HTTP responses whose head
 * leaves with the first bytes of the body.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { type NodeResponse, writeResponse } from "../../src/testing/adapters/node-fetch-bridge.ts";

const LATENCY_MS = 40;

describe("emulated network", () => {
  let emulator: CursorEmulator;

  before(async () => {
    emulator = await startCursorEmulator({
      auth: { required: false },
      network: { latencyMs: LATENCY_MS },
    });
  });
  after(async () => await emulator?.close());

  it("delays each direction, counts the connection and the bytes each way", async () => {
    const started = performance.now();
    const first = await fetch(`${emulator.url}/health`);
    assert.equal(await first.text(), "Cursor emulator");
    const firstMs = performance.now() - started;
    // SYN, SYN-ACK, the request, then the answer: four one-way trips at least.
    assert.ok(firstMs >= 4 * LATENCY_MS - 2, `a new connection's request took ${firstMs} ms`);
    const again = performance.now();
    const second = await fetch(`${emulator.url}/health`);
    await second.text();
    const secondMs = performance.now() - again;
    assert.ok(secondMs >= 2 * LATENCY_MS - 2, `a request on a kept connection took ${secondMs} ms`);
    const stats = emulator.network();
    assert.ok(stats !== undefined);
    assert.ok(stats.connections >= 1);
    assert.ok(stats.bytesUp > 0 && stats.bytesDown > "Cursor emulator".length * 2, "bytes counted");
  });

  it("counts a connection closed", async () => {
    const before = emulator.network();
    assert.ok(before !== undefined);
    // One request on a connection of its own, which the client closes after the answer.
    const body = await new Promise<string>((resolve, reject) => {
      const request = http.get(`${emulator.url}/health`, {
        agent: false,
        headers: { connection: "close" },
      }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve(text));
      });
      request.on("error", reject);
    });
    assert.equal(body, "Cursor emulator");
    let after = emulator.network();
    for (let waited = 0; after !== undefined && after.closed === before.closed; waited += 10) {
      if (waited > 5_000) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
      after = emulator.network();
    }
    assert.equal(after?.connections, before.connections + 1);
    assert.equal(after?.closed, before.closed + 1);
    assert.equal(after?.closedInUse, before.closedInUse + 1, "closed right after its answer");
  });

  it("has no network without the option", async () => {
    const plain = await startCursorEmulator({ auth: { required: false } });
    try {
      assert.equal(plain.network(), undefined);
    } finally {
      await plain.close();
    }
  });
});

describe("Node-served responses", () => {
  it("write the head together with the first bytes of the body", async () => {
    const events: string[] = [];
    let produced = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        produced = true;
        controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.close();
      },
    });
    const response: NodeResponse = {
      writeHead: (status) => events.push(`head ${status} body-ready=${produced}`),
      write: (chunk, callback) => {
        events.push(`write ${chunk.length}`);
        callback?.();
        return true;
      },
      end: () => events.push("end"),
      destroy: () => events.push("destroy"),
      on: () => {},
      off: () => {},
      writableFinished: false,
    };
    await writeResponse(new Response(body), response, new AbortController().signal);
    assert.deepEqual(events, ["head 200 body-ready=true", "write 3", "end"]);
  });
});
