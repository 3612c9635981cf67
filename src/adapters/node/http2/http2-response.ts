/**
 * The answer side of an HTTP/2 Run: waiting for the response headers, the body as a web
 * stream with backpressure, and how a stream's failure becomes a `CursorError`.
 *
 * @module
 */
import http2 from "node:http2";
import { setImmediate } from "node:timers";
import { CursorError } from "../../../core/cursor-error.ts";
import { classifyFailure } from "../../../protocol/classify.ts";
import type { Frame } from "../../../transport/frame-stream.ts";
import { errorFromResponse } from "../../../transport/http-error.ts";
import { readRunFrames } from "../../../transport/run-protocol.ts";

/** How a Run's stream failed, as far as the stream's own events tell. */
export interface StreamFailures {
  /** The first failure recorded on the stream (an error, or gRPC trailers), if any. */
  failure(): CursorError | undefined;
  /** An error under the stream as the Run's failure. */
  readonly streamFailure: (error: unknown) => CursorError;
}

/**
 * The Run's server frames once its response headers arrived: an HTTP error for a status
 * other than 200, a `wrong_region` error for a Run accepted and closed without a frame.
 */
export async function* readResponse(
  request: http2.ClientHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  failures: StreamFailures,
  limits: {
    readonly readIdleMs?: number | undefined;
    readonly partialFrameMs?: number | undefined;
  },
): AsyncGenerator<Frame, void, undefined> {
  const status = Number(headers[":status"] ?? 0);
  const body = bodyOf(request, failures.streamFailure);
  if (status !== 200) {
    throw await errorFromResponse(new Response(body, { status }), "AgentService/Run");
  }
  // gRPC trailers arrive with the body's end: their failure is checked then.
  yield* readRunFrames(body, {
    readIdleMs: limits.readIdleMs,
    partialFrameMs: limits.partialFrameMs,
    failure: failures.failure,
    failureOf: failures.streamFailure,
    failureAtEnd: failures.failure,
  });
}

/**
 * The response body as a web stream, with backpressure (the request pauses while the
 * reader is behind). Written here rather than with `Readable.toWeb`, whose Deno version
 * throws an uncaught error when data arrives after the reader cancelled.
 */
function bodyOf(
  request: http2.ClientHttp2Stream,
  streamFailure: (error: unknown) => CursorError,
): ReadableStream<Uint8Array> {
  const state: BodyState = { finished: false, failure: undefined };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Deno's client can end an empty answer (a 464 without a body) before anyone reads
      // it, so its `end` has passed by now: the body is empty.
      if (request.readableEnded) {
        state.finished = true;
        controller.close();
        return;
      }
      forwardRequestEvents(request, controller, state, streamFailure);
    },
    pull(controller) {
      errorOnceRead(controller, state);
      request.resume();
    },
    cancel() {
      state.finished = true;
      state.failure = undefined;
      request.resume();
    },
  }, { highWaterMark: BODY_HIGH_WATER_MARK });
}

/** What a body's stream and its request's events share. */
interface BodyState {
  /** The body ended, failed or was cancelled: later events are ignored. */
  finished: boolean;
  /** A failure waiting until the reader took every frame that arrived before it. */
  failure: { readonly error: unknown } | undefined;
}

type BodyController = ReadableStreamDefaultController<Uint8Array>;

/** Hands the request's data, end, error and close on to the body's stream. */
function forwardRequestEvents(
  request: http2.ClientHttp2Stream,
  controller: BodyController,
  state: BodyState,
  streamFailure: (error: unknown) => CursorError,
): void {
  const flush = forwardDataInBatches(request, controller, state);
  const end = () => {
    flush();
    state.finished = true;
    controller.close();
  };
  request.once("end", () => {
    if (state.finished) return;
    end();
  });
  // An error empties a stream's queue: it waits until the reader took every frame
  // that arrived before it (a checkpoint just before a GOAWAY must still count).
  const fail = (error: unknown) => {
    if (state.finished) return;
    flush();
    state.finished = true;
    state.failure = { error };
    errorOnceRead(controller, state);
  };
  request.once("error", (error) => fail(error));
  request.once("close", () => {
    if (state.finished) return;
    // A reset (RST_STREAM) ends the stream without its end: a failure, not an end.
    const reset = resetError(request);
    if (reset) {
      fail(streamFailure(reset));
      return;
    }
    end();
  });
}

/**
 * Forwards the request's data events; returns the flush that hands on what is pending.
 * Each DATA frame is a `data` event of its own: those that arrive in one turn of the
 * event loop are handed on as one chunk (one copy), so the reader pays its per-read
 * cost (a promise, an idle timer, a stream hop) once per turn, not once per frame.
 */
function forwardDataInBatches(
  request: http2.ClientHttp2Stream,
  controller: BodyController,
  state: BodyState,
): () => void {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0 || state.finished) return;
    const chunk = concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 1) <= 0) request.pause();
  };
  request.on("data", (chunk: Uint8Array) => {
    if (state.finished) return;
    if (pending.length === 0) setImmediate(flush);
    pending.push(chunk);
    pendingBytes += chunk.length;
  });
  return flush;
}

/** Errors the body with its waiting failure once the reader has taken every frame. */
function errorOnceRead(controller: BodyController, state: BodyState): void {
  if (state.failure !== undefined && (controller.desiredSize ?? 0) >= BODY_HIGH_WATER_MARK) {
    controller.error(state.failure.error);
    state.failure = undefined;
  }
}

/** Chunks the body holds for a reader that is behind, before the stream pauses. */
const BODY_HIGH_WATER_MARK = 16;

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The stream's answer (headers or how it ended), recorded from the moment the Run opens. */
export interface ResponseWatch {
  /** Resolves with the response headers; waits at most `timeoutMs` once called. */
  wait(timeoutMs: number): Promise<http2.IncomingHttpHeaders>;
}

type Answer =
  | { readonly kind: "headers"; readonly headers: http2.IncomingHttpHeaders }
  | { readonly kind: "failed"; readonly error: CursorError };

export function watchResponse(
  request: http2.ClientHttp2Stream,
  failure: () => CursorError | undefined,
  streamFailure: (error: unknown) => CursorError,
): ResponseWatch {
  let answer: Answer | undefined;
  let notify: (() => void) | undefined;
  const settle = (value: Answer) => {
    answer ??= value;
    notify?.();
  };
  request.once("response", (headers) => settle({ kind: "headers", headers }));
  request.once(
    "error",
    (error) => settle({ kind: "failed", error: failure() ?? streamFailure(error) }),
  );
  request.once("close", () => {
    const reset = resetError(request);
    settle({
      kind: "failed",
      error: failure() ??
        (reset ? streamFailure(reset) : new CursorError(
          "network",
          "The Run's stream closed before a response",
          { replaySafe: true },
        )),
    });
  });
  const outcome = (settled: Answer) =>
    settled.kind === "headers" ? Promise.resolve(settled.headers) : Promise.reject(settled.error);
  return {
    wait(timeoutMs) {
      if (answer) return outcome(answer);
      return new Promise<Answer>((resolve, reject) => {
        const timer = setTimeout(() => {
          notify = undefined;
          reject(
            new CursorError("timeout", `The agent host did not answer within ${timeoutMs} ms`, {
              retryable: true,
              replaySafe: true,
            }),
          );
        }, timeoutMs);
        notify = () => {
          clearTimeout(timer);
          notify = undefined;
          if (answer) resolve(answer);
        };
      }).then(outcome);
    },
  };
}

/**
 * A stream that failed under the Run: the caller's own abort is `canceled`; anything else
 * (a reset, a broken session, a socket error) is a retryable transport failure, never an
 * abort, even when the runtime names it `AbortError`. A write may have reached Cursor, so
 * it is not replay-safe.
 */
export function streamFailureOf(error: unknown, callerAborted: boolean): CursorError {
  const base = CursorError.from(error);
  if (callerAborted) {
    return base.code === "canceled"
      ? base
      : new CursorError("canceled", "Request was canceled", { cause: error });
  }
  if (base.code !== "internal" && base.code !== "canceled") return base;
  const code = typeof error === "object" && error !== null
    ? String((error as { code?: unknown }).code ?? "")
    : "";
  const classification = classifyFailure({ message: base.message });
  const reset = base.code === "canceled" || code.startsWith("ERR_HTTP2");
  return new CursorError(
    reset ? "network" : classification.code,
    `HTTP/2 stream failed: ${errorText(error)}`,
    { retryable: true, replaySafe: false, cause: error },
  );
}

/** The stream's reset as an error, when Cursor reset it (RST_STREAM with an error code). */
function resetError(request: http2.ClientHttp2Stream): Error | undefined {
  const code = request.rstCode;
  if (code === undefined || code === http2.constants.NGHTTP2_NO_ERROR) return undefined;
  return Object.assign(new Error(`Cursor reset the stream (HTTP/2 error code ${code})`), {
    code: "ERR_HTTP2_STREAM_ERROR",
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
