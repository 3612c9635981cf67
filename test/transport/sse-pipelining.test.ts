import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  type AgentClientMessage,
  AgentClientMessageSchema,
} from "../../src/gen/agent/v1/client_message_pb.ts";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { decodeBidiAppend } from "../../src/protocol/bidi-append.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { bytesToHex } from "../../src/core/bytes.ts";
import { AgentRun } from "../../src/agent-run/agent-run.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import { createSseTransport, MAX_APPENDS_IN_FLIGHT } from "../../src/transport/sse-transport.ts";

type ServerInit = MessageInitShape<typeof AgentServerMessageSchema>;

/** One held BidiAppend: its decoded body and the switch that answers it. */
interface HeldAppend {
  readonly seqno: number;
  readonly message: AgentClientMessage;
  answer(status?: number): void;
}

/**
 * A fake Cursor behind `fetch`: RunSSE answers with frames pushed by the test; every
 * BidiAppend is held until the test answers it, so how many travel at once is visible.
 */
function fakeCursor() {
  let push: (bytes: Uint8Array) => void = () => {};
  let endBody: () => void = () => {};
  let failBody: (reason: unknown) => void = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (bytes) => controller.enqueue(bytes);
      endBody = () => controller.close();
      failBody = (reason) => controller.error(reason);
    },
  });
  const held: HeldAppend[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const arrivals: (() => void)[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = String(input);
    if (url.endsWith("/RunSSE")) {
      // As fetch does: aborting the request errors the body being read.
      init?.signal?.addEventListener("abort", () => failBody(init.signal?.reason), { once: true });
      return Promise.resolve(new Response(body, { status: 200 }));
    }
    const append = decodeBidiAppend(init?.body as Uint8Array);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise((resolve, reject) => {
      const settle = () => inFlight--;
      init?.signal?.addEventListener("abort", () => {
        settle();
        reject(init.signal?.reason);
      }, { once: true });
      held.push({
        seqno: append.seqno,
        message: fromBinary(AgentClientMessageSchema, append.message),
        answer(status = 200) {
          settle();
          resolve(new Response(new Uint8Array(0), { status }));
        },
      });
      arrivals.splice(0).forEach((wake) => wake());
    });
  };
  return {
    fetch,
    held,
    maxInFlight: () => maxInFlight,
    emit(init: ServerInit) {
      push(
        encodeEnvelope(toBinary(AgentServerMessageSchema, create(AgentServerMessageSchema, init))),
      );
    },
    end() {
      push(encodeEnvelope(new TextEncoder().encode("{}"), FLAG_END_STREAM));
      endBody();
    },
    /** Resolves once `count` appends have arrived in all; rejects when they stop coming. */
    async arrived(count: number): Promise<void> {
      while (held.length < count) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stalled = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Only ${held.length} of ${count} appends were sent`)),
            5_000,
          );
        });
        try {
          await Promise.race([new Promise<void>((wake) => arrivals.push(wake)), stalled]);
        } finally {
          clearTimeout(timer);
        }
      }
    },
  };
}

function getBlob(id: number, blobId: Uint8Array): ServerInit {
  return {
    message: {
      case: "kvServerMessage",
      value: { id, message: { case: "getBlobArgs", value: { blobId } } },
    },
  };
}

const turnEnded: ServerInit = {
  message: {
    case: "interactionUpdate",
    value: { message: { case: "turnEnded", value: {} } },
  },
};

async function startRun(cursor: ReturnType<typeof fakeCursor>, blobCount: number) {
  const blobs = createMemoryBlobStore();
  const ids: Uint8Array[] = [];
  for (let i = 0; i < blobCount; i++) {
    const id = new Uint8Array(32).fill(i + 1);
    blobs.set(bytesToHex(id), new TextEncoder().encode(`blob ${i}`));
    ids.push(id);
  }
  const transport = createSseTransport({ fetch: cursor.fetch });
  const stream = await transport.openRun({
    agentBaseURL: "https://agent.cursor.sh",
    headers: {},
    requestId: "r",
  });
  const run = new AgentRun(stream, {
    blobs,
    requestContext: create(RequestContextSchema, {}),
    logger: silentLogger,
    heartbeatMs: 60_000,
  });
  return { run, ids };
}

describe("SSE transport: pipelined appends", () => {
  it("answers a burst of blob requests with every append in flight at once, in seqno order", async () => {
    const cursor = fakeCursor();
    const { run, ids } = await startRun(cursor, 8);
    const started = run.start(new Uint8Array([0x0a, 0x00]));
    await cursor.arrived(1);
    cursor.held[0]?.answer();
    await started;
    ids.forEach((id, index) => cursor.emit(getBlob(index, id)));
    const events = (async () => {
      const seen: string[] = [];
      for await (const event of run.events()) seen.push(event.type);
      return seen;
    })();
    // All eight answers are on the wire before the first is acknowledged.
    await cursor.arrived(1 + ids.length);
    assert.equal(cursor.maxInFlight(), ids.length);
    const answers = cursor.held.slice(1);
    assert.deepEqual(answers.map((a) => a.seqno), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual(
      answers.map((a) =>
        a.message.message.case === "kvClientMessage" && a.message.message.value.id
      ),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    for (const append of answers.reverse()) append.answer();
    cursor.emit(turnEnded);
    cursor.end();
    assert.deepEqual(await events, ["turn-ended"]);
  });

  it(`keeps at most ${MAX_APPENDS_IN_FLIGHT} appends in flight and sends the rest as they settle`, async () => {
    const cursor = fakeCursor();
    const { run, ids } = await startRun(cursor, MAX_APPENDS_IN_FLIGHT + 4);
    const started = run.start(new Uint8Array([0x0a, 0x00]));
    await cursor.arrived(1);
    cursor.held[0]?.answer();
    await started;
    ids.forEach((id, index) => cursor.emit(getBlob(index, id)));
    const events = (async () => {
      for await (const _ of run.events()) { /* drain */ }
    })();
    await cursor.arrived(1 + MAX_APPENDS_IN_FLIGHT);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(cursor.held.length, 1 + MAX_APPENDS_IN_FLIGHT, "the 17th waits");
    for (let answered = 1; answered <= ids.length; answered++) {
      cursor.held[answered]?.answer();
      await cursor.arrived(Math.min(1 + ids.length, 1 + MAX_APPENDS_IN_FLIGHT + answered));
    }
    assert.equal(cursor.maxInFlight(), MAX_APPENDS_IN_FLIGHT);
    assert.deepEqual(cursor.held.map((a) => a.seqno), [...Array(1 + ids.length).keys()]);
    cursor.emit(turnEnded);
    cursor.end();
    await events;
  });

  it("fails the Run with the append's error when one pipelined answer is refused", async () => {
    const cursor = fakeCursor();
    const { run, ids } = await startRun(cursor, 3);
    const started = run.start(new Uint8Array([0x0a, 0x00]));
    await cursor.arrived(1);
    cursor.held[0]?.answer();
    await started;
    ids.forEach((id, index) => cursor.emit(getBlob(index, id)));
    const outcome = (async () => {
      for await (const _ of run.events()) { /* drain */ }
    })();
    await cursor.arrived(4);
    cursor.held[2]?.answer(500);
    await assert.rejects(outcome, (error: Error & { code?: string }) => {
      assert.match(error.message, /BidiAppend/);
      return true;
    });
  });
});
