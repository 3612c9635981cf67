import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { exchangeApiKey } from "../../src/auth/api-key-exchange.ts";
import { encodeEnvelope } from "../../src/protocol/envelope.ts";
import { decodeErrorDetail } from "../../src/protocol/error-detail.ts";
import {
  DEFAULT_PARTIAL_FRAME_MS,
  partialFrameLimitMs,
  readFrames,
} from "../../src/transport/frame-stream.ts";
import { createSseTransport } from "../../src/transport/sse-transport.ts";
import { callUnaryJson } from "../../src/transport/unary.ts";

/**
 * Settles like `work`, or rejects with "hung" when `work` is still pending after the
 * guard: a deadline that never fires shows as "hung", not as a stuck test run.
 */
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

/** A fetch that never answers and ignores its signal, as a stuck connection can. */
const silentFetch: typeof fetch = () => new Promise<Response>(() => {});

function isTimeout(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof CursorError, String(error));
    assert.equal(error.code, "timeout", error.message);
    assert.ok(error.retryable);
    assert.match(error.message, pattern);
    return true;
  };
}

/** A RunSSE answer whose body stays open, and appends answered by `append`. */
function sseCursor(append: (init: RequestInit | undefined) => Promise<Response>): typeof fetch {
  return (input, init) => {
    if (String(input).endsWith("/RunSSE")) {
      return Promise.resolve(new Response(new ReadableStream<Uint8Array>(), { status: 200 }));
    }
    return append(init);
  };
}

describe("Deadlines held by owned timers", () => {
  it("fails a BidiAppend that never answers at the append deadline", async () => {
    const transport = createSseTransport({
      fetch: sseCursor(() => new Promise<Response>(() => {})),
      appendTimeoutMs: 50,
    });
    const stream = await transport.openRun({
      agentBaseURL: "https://agent.cursor.sh",
      headers: {},
      requestId: "append-deadline",
    });
    try {
      await assert.rejects(
        withinGuard(stream.send(new Uint8Array([1]))),
        isTimeout(/BidiAppend did not answer within 50 ms/),
      );
    } finally {
      stream.close();
    }
  });

  it("fails a unary call whose fetch ignores its signal at the unary deadline", async () => {
    await assert.rejects(
      withinGuard(callUnaryJson({
        url: "https://api2.cursor.sh/aiserver.v1.AiService/AvailableModels",
        headers: {},
        fetch: silentFetch,
        timeoutMs: 50,
      }, {})),
      isTimeout(/AiService\/AvailableModels did not answer within 50 ms/),
    );
  });

  it("fails an API-key exchange that never answers at the exchange deadline", async () => {
    await assert.rejects(
      withinGuard(exchangeApiKey(`crsr_${"a".repeat(64)}`, {
        apiBaseURL: "https://api2.cursor.sh",
        fetch: silentFetch,
        timeoutMs: 50,
      })),
      isTimeout(/did not answer the API-key exchange within 50 ms/),
    );
  });
});

describe("Read-idle counts whole frames", () => {
  it("fails a body that drips one frame a byte at a time", async () => {
    const frame = encodeEnvelope(new Uint8Array(4_096).fill(7));
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let offset = 0;
        timer = setInterval(() => {
          if (offset < frame.length) controller.enqueue(frame.subarray(offset, ++offset));
        }, 5);
      },
      cancel() {
        clearInterval(timer);
      },
    });
    try {
      await assert.rejects(
        withinGuard(
          (async () => {
            for await (
              const _ of readFrames(body, { decodeDetail: decodeErrorDetail, readIdleMs: 100 })
            ) { /* the frame never completes */ }
          })(),
        ),
        isTimeout(/No frame from Cursor/),
      );
    } finally {
      clearInterval(timer);
    }
  });

  it("does not count the time the reader spends holding a frame", async () => {
    const frames = [encodeEnvelope(new Uint8Array([1])), encodeEnvelope(new Uint8Array([2]))];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const frame of frames) controller.enqueue(frame);
        controller.close();
      },
    });
    const seen: number[] = [];
    for await (
      const frame of readFrames(body, { decodeDetail: decodeErrorDetail, readIdleMs: 30 })
    ) {
      if (frame.kind === "message") seen.push(frame.bytes[0] ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 60)); // the host runs a tool
    }
    assert.deepEqual(seen, [1, 2]);
  });
});

/** A body that sends `head` at once, then `rest` in `size`-byte pieces every `everyMs`. */
function drippedBody(head: Uint8Array, rest: Uint8Array, size: number, everyMs: number) {
  let timer: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
      let offset = 0;
      timer = setInterval(() => {
        if (offset >= rest.length) {
          clearInterval(timer);
          controller.close();
          return;
        }
        controller.enqueue(rest.subarray(offset, offset + size));
        offset += size;
      }, everyMs);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return { body, stop: () => clearInterval(timer) };
}

describe("A started frame must complete within its partial-frame limit (ADR 170)", () => {
  it("fails a frame that drips past its limit, long before the idle limit, and finally", async () => {
    const frame = encodeEnvelope(new Uint8Array(4_096).fill(7));
    const whole = encodeEnvelope(new Uint8Array([1]));
    const { body, stop } = drippedBody(whole, frame, 16, 10);
    const seen: number[] = [];
    try {
      await assert.rejects(
        withinGuard((async () => {
          for await (
            const f of readFrames(body, {
              decodeDetail: decodeErrorDetail,
              readIdleMs: 60_000,
              partialFrameMs: 100,
            })
          ) if (f.kind === "message") seen.push(f.bytes.length);
        })()),
        (error: unknown) =>
          error instanceof CursorError && error.code === "timeout" && !error.retryable &&
          /stalled: \d+ of 4101 bytes .*partial-frame limit/.test(error.message),
      );
      assert.deepEqual(seen, [1], "the whole frame before it was delivered");
    } finally {
      stop();
    }
  });

  it("lets a large frame arriving faster than the slowest allowed rate complete", async () => {
    // 64 KiB at 64 KiB/s: a second, under the 100 ms base plus four seconds for its size.
    const frame = encodeEnvelope(new Uint8Array(64 * 1024).fill(3));
    const { body, stop } = drippedBody(new Uint8Array(0), frame, 1024, 16);
    try {
      const sizes: number[] = [];
      await withinGuard((async () => {
        for await (
          const f of readFrames(body, { decodeDetail: decodeErrorDetail, partialFrameMs: 100 })
        ) if (f.kind === "message") sizes.push(f.bytes.length);
      })());
      assert.deepEqual(sizes, [64 * 1024]);
    } finally {
      stop();
    }
  });

  it("gives a frame 10 s plus its size at 16 KiB/s by default", () => {
    assert.equal(DEFAULT_PARTIAL_FRAME_MS, 10_000);
    assert.equal(partialFrameLimitMs(undefined, DEFAULT_PARTIAL_FRAME_MS), 10_000);
    assert.equal(partialFrameLimitMs(16 * 1024, DEFAULT_PARTIAL_FRAME_MS), 11_000);
  });
});

describe("Credentials inside a held Run", () => {
  it("sends every BidiAppend with the token current at that moment", async () => {
    const sent: string[] = [];
    const transport = createSseTransport({
      fetch: sseCursor((init) => {
        sent.push(new Headers(init?.headers).get("authorization") ?? "");
        return Promise.resolve(new Response(new Uint8Array(0), { status: 200 }));
      }),
    });
    let token = "opening-token";
    const stream = await transport.openRun({
      agentBaseURL: "https://agent.cursor.sh",
      headers: { authorization: "Bearer opening-token" },
      requestId: "renewing",
      credentials: { current: () => Promise.resolve(token) },
    });
    try {
      await stream.send(new Uint8Array([1]));
      token = "renewed-token"; // the source renewed while a tool ran
      await stream.send(new Uint8Array([2]));
      assert.deepEqual(sent, ["Bearer opening-token", "Bearer renewed-token"]);
    } finally {
      stream.close();
    }
  });
});
