/**
 * The `"http2"` transport: the bidi `Run` over `node:http2` (Node and Bun), one stream
 * per Run on a pooled session per origin. A Run opens its stream only once the session's
 * handshake succeeded, so `openRun` rejecting means nothing of the Run was sent. Client
 * frames are Connect envelopes written in order, waiting for drain under backpressure.
 *
 * @module
 */
import http2 from "node:http2";
import { CursorError } from "../../../core/cursor-error.ts";
import type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
} from "../../../transport/agent-transport.ts";
import type { Frame } from "../../../transport/frame-stream.ts";
import { createRenewOnce, refusesToken, withBearer } from "../../../transport/renew-once.ts";
import {
  encodeRunMessage,
  RUN_PATH,
  runRequestHeaders,
  trailerError,
} from "../../../transport/run-protocol.ts";
import {
  readResponse,
  type ResponseWatch,
  streamFailureOf,
  watchResponse,
} from "./http2-response.ts";
import { createSessionPool, type ProxyLookup } from "./http2-sessions.ts";

/** Options for {@link createHttp2Transport}. */
export interface Http2TransportOptions {
  /** Limit on silence (no whole frame, heartbeats included) while reading; default 120 s. */
  readonly readIdleMs?: number | undefined;
  /** Base of the limit on a started frame's completion (ADR 170); default 10 s. */
  readonly partialFrameMs?: number | undefined;
  /** Deadline for the HTTP/2 handshake and for the Run's response headers; default 15 s. */
  readonly connectTimeoutMs?: number | undefined;
  /** Drain wait for a write under backpressure; default 5 s. */
  readonly drainTimeoutMs?: number | undefined;
  /** Extra TLS/connect options (e.g. `ca` for a test certificate). */
  readonly connectOptions?: http2.SecureClientSessionOptions | undefined;
  /** The proxy an origin's connections tunnel through (CONNECT), if any. */
  readonly proxy?: ProxyLookup | undefined;
}

/** How long after a GOAWAY a Run's open stream is reported as going away (ADR 171). */
const GOAWAY_SETTLE_MS = 500;

/**
 * Creates the HTTP/2 transport. Its sessions are closed by `close()`. `openRun` waits for
 * the origin's HTTP/2 handshake and rejects, with nothing sent, when it fails.
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
  const pool = createSessionPool(options.connectOptions, options.proxy);
  const timeoutMs = options.connectTimeoutMs ?? 15_000;
  return {
    kind: "http2",
    async openRun(run) {
      const session = () => pool.ready(run.agentBaseURL, timeoutMs, run.signal);
      const first = await session();
      // A session that went away since its handshake takes no new stream: connect again.
      return openHttp2Run(
        first.closed || first.destroyed ? await session() : first,
        session,
        run,
        options,
      );
    },
    close: () => pool.close(),
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
  goingAway: () => void,
): StreamAttempt {
  session.ref();
  // The server will close this connection (GOAWAY, e.g. draining for a deploy): the Run
  // decides whether to wait for it (it has shown output) or to replay at once.
  session.on("goaway", goingAway);
  const request = session.request({
    ":method": "POST",
    ":path": RUN_PATH,
    ...runRequestHeaders(headers, run.requestId),
    "te": "trailers",
  }, run.signal ? { signal: run.signal } : {});
  let failure: CursorError | undefined;
  let status = 0;
  const streamFailure = (error: unknown) => streamFailureOf(error, run.signal?.aborted === true);
  request.on("error", (error) => (failure ??= streamFailure(error)));
  request.on("trailers", (trailers) => (failure ??= trailerError(trailers)));
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
      session.off("goaway", goingAway);
      if (!request.closed) request.close(http2.constants.NGHTTP2_CANCEL);
      session.unref();
    },
  };
}

function openHttp2Run(
  first: http2.ClientHttp2Session,
  session: () => Promise<http2.ClientHttp2Session>,
  run: OpenRunOptions,
  options: Http2TransportOptions,
): AgentRunStream {
  const drainMs = options.drainTimeoutMs ?? 5_000;
  const renewal = createRenewOnce(run.credentials?.rejected?.bind(run.credentials));
  const goaway = goawayNotice();
  let attempt = startAttempt(first, run, run.headers, goaway.heard);
  /** Envelopes sent before the answer was read: a Run re-opened after a 401 sends them again. */
  const unanswered: Uint8Array[] = [];
  let answered = false;
  let queue: Promise<void> = Promise.resolve();
  // A stream Cursor refused for its token is re-opened and sent everything again.
  const awaitsRenewal = (target: StreamAttempt) => target.refusedToken() && renewal.mayRenew;
  const writeTo = async (target: StreamAttempt, bytes: Uint8Array) => {
    if (awaitsRenewal(target)) return;
    try {
      await write(target.request, bytes, drainMs, target.failure);
    } catch (error) {
      if (!awaitsRenewal(target)) throw error;
    }
  };
  /** Re-opens the Run with a renewed token, sending what was sent again. */
  const reopen = async (token: string): Promise<void> => {
    const refused = attempt;
    attempt = startAttempt(await session(), run, withBearer(run.headers, token), goaway.heard);
    refused.release();
    const target = attempt;
    const replay = [...unanswered];
    queue = queue.catch(() => {}).then(async () => {
      for (const bytes of replay) await write(target.request, bytes, drainMs, target.failure);
    });
  };
  async function* frames(): AsyncGenerator<Frame, void, undefined> {
    const timeoutMs = options.connectTimeoutMs ?? 15_000;
    const headers = await renewal.settle(await attempt.answer.wait(timeoutMs), {
      sent: run.headers,
      refused: (answer) => refusesToken(Number(answer[":status"] ?? 0)),
      resend: async (token) => {
        await reopen(token);
        return await attempt.answer.wait(timeoutMs);
      },
      signal: run.signal,
    });
    answered = true;
    unanswered.length = 0;
    yield* readResponse(attempt.request, headers, attempt, options);
  }
  return {
    send(message) {
      const bytes = encodeRunMessage(message);
      if (!answered) unanswered.push(bytes);
      const target = attempt;
      queue = queue.then(() => writeTo(target, bytes));
      return queue;
    },
    frames: frames(),
    goingAway: goaway.announced,
    close: () => {
      goaway.clear();
      attempt.release();
    },
  };
}

/**
 * When a Run's connection goes away. Frames and a stream error the server sent before its
 * GOAWAY may still be in flight: they are read first, and only a stream still open after
 * that is reported as going away.
 */
function goawayNotice(): {
  readonly announced: Promise<void>;
  readonly heard: () => void;
  clear(): void;
} {
  let announce: () => void = () => {};
  const announced = new Promise<void>((resolve) => (announce = resolve));
  let settle: ReturnType<typeof setTimeout> | undefined;
  return {
    announced,
    heard: () => (settle ??= setTimeout(announce, GOAWAY_SETTLE_MS)),
    clear: () => clearTimeout(settle),
  };
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
