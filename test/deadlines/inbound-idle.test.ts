import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { CursorError } from "../../src/core/cursor-error.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { AgentRun } from "../../src/agent-run/agent-run.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import type { AgentRunStream } from "../../src/transport/agent-transport.ts";
import type { Frame } from "../../src/transport/frame-stream.ts";

type ServerInit = MessageInitShape<typeof AgentServerMessageSchema>;

/** A Run stream with no deadline of its own: frames arrive only when the test pushes them. */
function heldStream() {
  const queue: Frame[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const sent: string[] = [];
  const stream: AgentRunStream = {
    send(bytes) {
      sent.push(String(fromBinary(AgentClientMessageSchema, bytes).message.case));
      return Promise.resolve();
    },
    frames: (async function* () {
      while (!closed) {
        const frame = queue.shift();
        if (frame) {
          yield frame;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    })(),
    close() {
      closed = true;
      wake?.();
    },
  };
  return {
    stream,
    sent,
    emit(init: ServerInit) {
      const bytes = toBinary(AgentServerMessageSchema, create(AgentServerMessageSchema, init));
      queue.push({ kind: "message", bytes });
      wake?.();
    },
  };
}

const serverHeartbeat: ServerInit = {
  message: { case: "interactionUpdate", value: { message: { case: "heartbeat", value: {} } } },
};
const text: ServerInit = {
  message: {
    case: "interactionUpdate",
    value: { message: { case: "textDelta", value: { text: "hi" } } },
  },
};
const turnEnded: ServerInit = {
  message: { case: "interactionUpdate", value: { message: { case: "turnEnded", value: {} } } },
};

function driver(stream: AgentRunStream, inboundIdleMs: number): AgentRun {
  return new AgentRun(stream, {
    blobs: createMemoryBlobStore(),
    requestContext: create(RequestContextSchema, {}),
    logger: silentLogger,
    heartbeatMs: 10,
    tailGraceMs: 10,
    inboundIdleMs,
  });
}

async function collect(run: AgentRun, onEvent?: () => Promise<void>): Promise<string[]> {
  const types: string[] = [];
  for await (const event of run.events()) {
    types.push(event.type);
    await onEvent?.();
  }
  return types;
}

/** Rejects with "hung" when `work` is still pending after the guard. */
async function withinGuard<T>(work: Promise<T>, guardMs = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("hung")), guardMs);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("An active Run without inbound frames", () => {
  it("fails as a retryable timeout although client heartbeats keep flowing", async () => {
    const cursor = heldStream();
    const run = driver(cursor.stream, 150);
    await run.start(new Uint8Array(0));
    await assert.rejects(withinGuard(collect(run)), (error: unknown) => {
      assert.ok(error instanceof CursorError, String(error));
      assert.equal(error.code, "timeout");
      assert.ok(error.retryable && error.replaySafe);
      assert.match(error.message, /No frame from Cursor for 0.15 s while the Run was active/);
      return true;
    });
    assert.ok(cursor.sent.includes("clientHeartbeat"), cursor.sent.join());
  });

  it("is not replay-safe once text reached the host", async () => {
    const cursor = heldStream();
    const run = driver(cursor.stream, 150);
    await run.start(new Uint8Array(0));
    cursor.emit(text);
    await assert.rejects(withinGuard(collect(run)), (error: unknown) => {
      assert.ok(error instanceof CursorError && error.code === "timeout", String(error));
      assert.equal(error.replaySafe, false);
      return true;
    });
  });

  it("lives on while server heartbeats keep coming", async () => {
    const cursor = heldStream();
    const run = driver(cursor.stream, 150);
    await run.start(new Uint8Array(0));
    const beating = (async () => {
      for (let i = 0; i < 20; i++) {
        cursor.emit(serverHeartbeat);
        await sleep(25);
      }
      cursor.emit(turnEnded);
    })();
    const types = await withinGuard(collect(run));
    await beating;
    assert.ok(types.includes("turn-ended"), types.join());
  });

  it("does not count the time the host holds an event", async () => {
    const cursor = heldStream();
    const run = driver(cursor.stream, 100);
    await run.start(new Uint8Array(0));
    cursor.emit(text);
    let held = false;
    const types = await withinGuard(collect(run, async () => {
      if (held) return;
      held = true;
      await sleep(250); // the host runs a tool; nobody waits for Cursor
      cursor.emit(turnEnded);
    }));
    assert.deepEqual(types.slice(0, 2), ["text-delta", "turn-ended"]);
  });
});
