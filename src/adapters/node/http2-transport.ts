/**
 * The `"http2"` transport: the bidi `Run` over `node:http2` (Node and Bun), one stream
 * per Run on a pooled session per origin. Client frames are Connect envelopes written
 * in order, waiting for drain under backpressure.
 *
 * @module
 */
import http2 from "node:http2";
import { CursorError } from "../../core/cursor-error.ts";
import { encodeEnvelope } from "../../protocol/envelope.ts";
import { decodeErrorDetail } from "../../protocol/error-detail.ts";
import { classifyFailure } from "../../protocol/classify.ts";
import type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
} from "../../transport/agent-transport.ts";
import { type Frame, readFrames } from "../../transport/frame-stream.ts";
import { errorFromResponse } from "../../transport/http-error.ts";

/** Options for {@link createHttp2Transport}. */
export interface Http2TransportOptions {
  /** Limit on silence (no whole frame, heartbeats included) while reading; default 120 s. */
  readonly readIdleMs?: number | undefined;
  /** Connect deadline; default 15 s. */
  readonly connectTimeoutMs?: number | undefined;
  /** Drain wait for a write under backpressure; default 5 s. */
  readonly drainTimeoutMs?: number | undefined;
  /** Extra TLS/connect options (e.g. `ca` for a test certificate). */
  readonly connectOptions?: http2.SecureClientSessionOptions | undefined;
}

const RUN_PATH = "/agent.v1.AgentService/Run";

/**
 * Creates the HTTP/2 transport. Its sessions are closed by `close()`.
 *
 * @param options Limits and connect options.
 * @returns An {@link AgentTransport} of kind `"http2"` with a `close()` for its sessions.
 *
 * @example
 * ```ts
 * import { createHttp2Transport } from "./http2-transport.ts";
 *
 * const transport = createHttp2Transport();
 * console.assert(transport.kind === "http2");
 * transport.close();
 * ```
 */
export function createHttp2Transport(
  options: Http2TransportOptions = {},
): AgentTransport & { close(): void } {
  const sessions = new Map<string, http2.ClientHttp2Session>();
  const session = (origin: string): http2.ClientHttp2Session => {
    const existing = sessions.get(origin);
    if (existing && !existing.closed && !existing.destroyed) return existing;
    const created = http2.connect(origin, options.connectOptions ?? {});
    created.on("error", () => sessions.delete(origin));
    created.on("close", () => sessions.delete(origin));
    created.on("goaway", () => sessions.delete(origin));
    created.unref();
    sessions.set(origin, created);
    return created;
  };
  return {
    kind: "http2",
    openRun: (run) => Promise.resolve(openHttp2Run(() => session(run.agentBaseURL), run, options)),
    close() {
      for (const s of sessions.values()) s.close();
      sessions.clear();
    },
  };
}

/** One HTTP/2 stream of a Run: the first, or the one re-opened after a refused token. */
interface StreamAttempt {
  readonly request: http2.ClientHttp2Stream;
  readonly answer: ResponseWatch;
  failure(): CursorError | undefined;
  readonly streamFailure: (error: unknown) => CursorError;
  /** Cursor answered 401 (recorded as soon as the headers arrive, read or not). */
  refusedToken(): boolean;
  release(): void;
}

function startAttempt(
  session: http2.ClientHttp2Session,
  run: OpenRunOptions,
  headers: Record<string, string>,
): StreamAttempt {
  session.ref();
  const request = session.request({
    ":method": "POST",
    ":path": RUN_PATH,
    ...headers,
    "x-request-id": run.requestId,
    "content-type": "application/connect+proto",
    "connect-protocol-version": "1",
    "connect-accept-encoding": "gzip",
    "x-cursor-streaming": "true",
    "te": "trailers",
  }, run.signal ? { signal: run.signal } : {});
  let failure: CursorError | undefined;
  let status = 0;
  const streamFailure = (error: unknown) => streamFailureOf(error, run.signal?.aborted === true);
  request.on("error", (error) => (failure ??= streamFailure(error)));
  request.on("trailers", (trailers) => (failure ??= grpcTrailerError(trailers)));
  request.once("response", (answer) => (status = Number(answer[":status"] ?? 0)));
  // Listen for the answer now: it may arrive while the turn still awaits hashes or the
  // start message, long before anyone reads the frames.
  const answer = watchResponse(request, () => failure, streamFailure);
  let released = false;
  return {
    request,
    answer,
    failure: () => failure,
    streamFailure,
    refusedToken: () => status === 401,
    release() {
      if (released) return;
      released = true;
      if (!request.closed) request.close(http2.constants.NGHTTP2_CANCEL);
      session.unref();
    },
  };
}

function openHttp2Run(
  session: () => http2.ClientHttp2Session,
  run: OpenRunOptions,
  options: Http2TransportOptions,
): AgentRunStream {
  const drainMs = options.drainTimeoutMs ?? 5_000;
  const rejected = run.credentials?.rejected?.bind(run.credentials);
  let attempt = startAttempt(session(), run, run.headers);
  let renewed = false;
  /** Envelopes sent before the answer was read: a Run re-opened after a 401 sends them again. */
  const unanswered: Uint8Array[] = [];
  let answered = false;
  let queue: Promise<void> = Promise.resolve();
  const mayRenew = () => rejected !== undefined && !renewed;
  const writeTo = async (target: StreamAttempt, bytes: Uint8Array) => {
    // A stream Cursor refused for its token is re-opened and sent everything again.
    if (target.refusedToken() && mayRenew()) return;
    try {
      await write(target.request, bytes, drainMs, target.failure);
    } catch (error) {
      if (!(target.refusedToken() && mayRenew())) throw error;
    }
  };
  /** Re-opens the Run once with a renewed token; false when no renewal is possible. */
  const reopen = async (): Promise<boolean> => {
    renewed = true;
    const sent = bearerOf(run.headers);
    if (rejected === undefined || sent === undefined) return false;
    const fresh = await rejected(sent, run.signal).catch(() => undefined);
    if (fresh === undefined || fresh === sent) return false;
    const refused = attempt;
    attempt = startAttempt(session(), run, withBearer(run.headers, fresh));
    refused.release();
    const target = attempt;
    const replay = [...unanswered];
    queue = queue.catch(() => {}).then(async () => {
      for (const bytes of replay) await write(target.request, bytes, drainMs, target.failure);
    });
    return true;
  };
  async function* frames(): AsyncGenerator<Frame, void, undefined> {
    const timeoutMs = options.connectTimeoutMs ?? 15_000;
    let headers = await attempt.answer.wait(timeoutMs);
    if (Number(headers[":status"] ?? 0) === 401 && mayRenew() && await reopen()) {
      headers = await attempt.answer.wait(timeoutMs);
    }
    answered = true;
    unanswered.length = 0;
    yield* readResponse(attempt, headers, options);
  }
  return {
    send(message) {
      const bytes = encodeEnvelope(message);
      if (!answered) unanswered.push(bytes);
      const target = attempt;
      queue = queue.then(() => writeTo(target, bytes));
      return queue;
    },
    frames: frames(),
    close: () => attempt.release(),
  };
}

function bearerOf(headers: Record<string, string>): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === "authorization") return /^Bearer (.+)$/.exec(value)?.[1];
  }
  return undefined;
}

function withBearer(headers: Record<string, string>, token: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "authorization") out[name] = value;
  }
  out.authorization = `Bearer ${token}`;
  return out;
}

function write(
  request: http2.ClientHttp2Stream,
  bytes: Uint8Array,
  drainMs: number,
  failure: () => CursorError | undefined,
): Promise<void> {
  const failed = failure();
  if (failed) return Promise.reject(failed);
  if (request.closed || request.writableEnded) {
    return Promise.reject(
      new CursorError("interrupted", "Cannot send: the Run's stream is closed", {
        replaySafe: false,
      }),
    );
  }
  return new Promise((resolve, reject) => {
    const ok = request.write(bytes, (error) => {
      if (error) {
        reject(
          new CursorError("network", `Write to the Run failed: ${error.message}`, {
            replaySafe: false,
            cause: error,
          }),
        );
      }
    });
    if (ok) return resolve();
    const timer = setTimeout(() => {
      reject(
        new CursorError("network", `The Run did not drain within ${drainMs} ms`, {
          retryable: false,
          replaySafe: false,
        }),
      );
    }, drainMs);
    request.once("drain", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function* readResponse(
  attempt: StreamAttempt,
  headers: http2.IncomingHttpHeaders,
  options: Http2TransportOptions,
): AsyncGenerator<Frame, void, undefined> {
  const { failure, streamFailure } = attempt;
  const status = Number(headers[":status"] ?? 0);
  const body = bodyOf(attempt.request, streamFailure);
  if (status !== 200) {
    throw await errorFromResponse(new Response(body, { status }), "AgentService/Run");
  }
  let frames = 0;
  try {
    for await (
      const frame of readFrames(body, {
        decodeDetail: decodeErrorDetail,
        readIdleMs: options.readIdleMs,
      })
    ) {
      frames++;
      yield frame;
    }
  } catch (error) {
    throw failure() ?? (error instanceof CursorError ? error : streamFailure(error));
  }
  const failed = failure();
  if (failed) throw failed;
  if (frames === 0) {
    throw new CursorError(
      "wrong_region",
      "Cursor accepted the Run and closed it without a single frame; the agent host may not serve your account's region (check the agent URL)",
      { retryable: false, replaySafe: true },
    );
  }
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
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      request.on("data", (chunk: Uint8Array) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 1) <= 0) request.pause();
      });
      request.once("end", () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      request.once("error", (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
      request.once("close", () => {
        if (finished) return;
        finished = true;
        // A reset (RST_STREAM) ends the stream without its end: a failure, not an end.
        const reset = resetError(request);
        if (reset) controller.error(streamFailure(reset));
        else controller.close();
      });
    },
    pull() {
      request.resume();
    },
    cancel() {
      finished = true;
      request.resume();
    },
  }, { highWaterMark: 16 });
}

/** The stream's answer (headers or how it ended), recorded from the moment the Run opens. */
interface ResponseWatch {
  /** Resolves with the response headers; waits at most `timeoutMs` once called. */
  wait(timeoutMs: number): Promise<http2.IncomingHttpHeaders>;
}

type Answer =
  | { readonly kind: "headers"; readonly headers: http2.IncomingHttpHeaders }
  | { readonly kind: "failed"; readonly error: CursorError };

function watchResponse(
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

/** A gRPC-style failure in HTTP/2 trailers (`grpc-status` other than 0), if any. */
function grpcTrailerError(trailers: http2.IncomingHttpHeaders): CursorError | undefined {
  const status = Number(trailers["grpc-status"] ?? 0);
  if (!status) return undefined;
  const message = decodeURIComponent(String(trailers["grpc-message"] ?? ""));
  const classification = classifyFailure({ grpcStatus: status, message });
  return new CursorError(
    classification.code,
    `Cursor ended the Run with gRPC status ${status}${message ? `: ${message}` : ""}`,
    {
      retryable: classification.retryable,
      replaySafe: classification.replaySafe,
    },
  );
}

/**
 * A stream that failed under the Run: the caller's own abort is `canceled`; anything else
 * (a reset, a broken session, a socket error) is a retryable transport failure, never an
 * abort, even when the runtime names it `AbortError`. A write may have reached Cursor, so
 * it is not replay-safe.
 */
function streamFailureOf(error: unknown, callerAborted: boolean): CursorError {
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
