/**
 * The transport every runtime has: `RunSSE` (a server stream over fetch) for server messages and
 * one `BidiAppend` unary call per client message. Appends are pipelined: each starts as
 * soon as it is sent (up to {@link MAX_APPENDS_IN_FLIGHT} at once), numbered in send
 * order by `append_seqno`, which the server orders by; so answers to a burst of server
 * requests (KV blobs on a warm Run) cost one round trip, not one each. Works wherever
 * `fetch` does (Deno, Node, Bun, edge runtimes).
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { CursorError } from "../core/cursor-error.ts";
import { failedReaching } from "../core/network-cause.ts";
import { startDeadline } from "../core/deadline.ts";
import { BidiRequestIdSchema } from "../gen/aiserver/v1/bidi_pb.ts";
import { BIDI_APPEND_STEP_BYTES, encodeBidiAppendInSteps } from "../protocol/bidi-append.ts";
import type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
  RunCredentials,
} from "./agent-transport.ts";
import type { Frame } from "./frame-stream.ts";
import { errorFromResponse } from "./http-error.ts";
import { withBearer } from "./renew-once.ts";
import {
  encodeRunMessage,
  readRunFrames,
  RUN_SSE_PATH,
  runRequestHeaders,
} from "./run-protocol.ts";

/** Options for {@link createSseTransport}. */
export interface SseTransportOptions {
  /** The fetch to use; defaults to the global one. */
  readonly fetch?: typeof fetch;
  /** Largest frame accepted; default 16 MiB. */
  readonly maxFrameBytes?: number;
  /** Limit on silence (no whole frame, heartbeats included) while reading; default 120 s. */
  readonly readIdleMs?: number;
  /** Base of the limit on a started frame's completion (ADR 170); default 10 s. */
  readonly partialFrameMs?: number;
  /** Deadline for one BidiAppend; default 30 s. */
  readonly appendTimeoutMs?: number;
}

/** Appends in flight at once per Run, as the official client (a 17th waits for one to settle). */
export const MAX_APPENDS_IN_FLIGHT = 16;

/** Deadline for one BidiAppend: 30 s. */
const DEFAULT_APPEND_TIMEOUT_MS = 30_000;

const BIDI_APPEND_PATH = "/aiserver.v1.BidiService/BidiAppend";

/**
 * Creates the RunSSE + BidiAppend transport.
 *
 * @param options Fetch, limits and deadlines.
 * @returns An {@link AgentTransport} of kind `"sse"`.
 *
 * @example
 * ```ts
 * import { createSseTransport } from "./sse-transport.ts";
 *
 * const transport = createSseTransport({ fetch });
 * console.assert(transport.kind === "sse");
 * ```
 */
export function createSseTransport(options: SseTransportOptions = {}): AgentTransport {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  return {
    kind: "sse",
    openRun: (run) => Promise.resolve(openSseRun(fetchImpl, options, run)),
  };
}

function openSseRun(
  fetchImpl: typeof fetch,
  options: SseTransportOptions,
  run: OpenRunOptions,
): AgentRunStream {
  const controller = new AbortController();
  const signal = run.signal ? AbortSignal.any([run.signal, controller.signal]) : controller.signal;
  const state = {
    failure: undefined as CursorError | undefined,
    closed: false,
    seqno: 0,
    /** After the end-of-stream frame: settles when the body's own end has been read. */
    tail: undefined as Promise<unknown> | undefined,
  };
  const fail = (error: CursorError) => {
    state.failure ??= error;
    controller.abort(error);
  };
  const headers = runRequestHeaders(run.headers, run.requestId);
  const response = fetchImpl(`${run.agentBaseURL}${RUN_SSE_PATH}`, {
    method: "POST",
    headers,
    body: encodeRunMessage(
      toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId: run.requestId })),
    ) as Uint8Array<ArrayBuffer>,
    signal,
  });
  response.catch(() => {});
  const appendHeaders = appendLegHeaders(headers);
  const window = new AppendWindow(MAX_APPENDS_IN_FLIGHT);
  return {
    send(message) {
      if (state.failure) return Promise.reject(state.failure);
      if (state.closed) {
        return Promise.reject(new CursorError("interrupted", "Cannot send: the Run is closed"));
      }
      const seqno = state.seqno++;
      return window.run(async () => {
        if (state.failure) throw state.failure;
        const body = await encodeAppendBody(run.requestId, seqno, message);
        await append(fetchImpl, `${run.agentBaseURL}${BIDI_APPEND_PATH}`, appendHeaders, body, {
          timeoutMs: options.appendTimeoutMs ?? DEFAULT_APPEND_TIMEOUT_MS,
          signal,
          credentials: run.credentials,
        }).catch((error: unknown) => {
          const failure = state.failure ?? CursorError.from(error);
          fail(failure);
          throw failure;
        });
      });
    },
    frames: readSseFrames(
      response,
      { ...options, url: run.agentBaseURL },
      () => state.failure,
      (tail) => (state.tail = tail),
    ),
    close() {
      if (state.closed) return;
      state.closed = true;
      const abort = () => controller.abort(new CursorError("canceled", "Run closed by the client"));
      // A Run that sent its end-of-stream lets its body and its appends in flight finish
      // (briefly), so their connections are kept for the next requests instead of being
      // torn down, each with a TCP and TLS handshake to pay again.
      if (state.tail === undefined) abort();
      else void settledWithin(Promise.all([state.tail, window.idle()]), TAIL_DRAIN_MS).then(abort);
    },
  };
}

/**
 * The append body, hex-encoded straight into one buffer; a message over 256 KiB is
 * encoded a slice at a time with the event loop free in between, so a large message
 * never blocks other work for long.
 */
async function encodeAppendBody(
  requestId: string,
  seqno: number,
  message: Uint8Array,
): Promise<Uint8Array> {
  const steps = encodeBidiAppendInSteps(requestId, seqno, message, BIDI_APPEND_STEP_BYTES);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}

/** How long a closed Run waits for its body's end after the end-of-stream frame. */
const TAIL_DRAIN_MS = 2_000;

function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise.then(() => {}, () => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      // The wait never keeps a process alive that has nothing else to do.
      (timer as { unref?: () => void }).unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The RunSSE answer's frames. After the end-of-stream frame the body is read on to its end
 * at once (bytes after the end-of-stream still fail), and `onTail` gets that read, so a
 * closed Run can let it finish and keep its connection.
 */
async function* readSseFrames(
  responsePromise: Promise<Response>,
  options: SseTransportOptions & { readonly url: string },
  failure: () => CursorError | undefined,
  onTail: (tail: Promise<unknown>) => void,
): AsyncGenerator<Frame, void, undefined> {
  let response: Response;
  try {
    response = await responsePromise;
  } catch (cause) {
    throw failure() ?? networkFailure(cause, "RunSSE", options.url);
  }
  if (response.status !== 200) throw await errorFromResponse(response, "AgentService/RunSSE");
  if (!response.body) throw new CursorError("protocol", "RunSSE answered without a body");
  const inner = readRunFrames(response.body, {
    maxFrameBytes: options.maxFrameBytes,
    readIdleMs: options.readIdleMs,
    partialFrameMs: options.partialFrameMs,
    failure,
    failureOf: (cause) => networkFailure(cause, "RunSSE", options.url),
  });
  for (;;) {
    const next = await inner.next();
    if (next.done === true) return;
    if (next.value.kind === "end") {
      const tail = inner.next();
      tail.catch(() => {});
      onTail(tail);
      yield next.value;
      await tail;
      return;
    }
    yield next.value;
  }
}

/**
 * At most `limit` tasks running at once; the rest start in the order they came as
 * running ones settle.
 */
class AppendWindow {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #idle: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Settles once no task runs or waits. */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async run(task: () => Promise<void>): Promise<void> {
    if (this.#running >= this.#limit || this.#waiting.length > 0) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
      if (this.#running === 0) { for (const resolve of this.#idle.splice(0)) resolve(); }
    }
  }
}

async function append(
  fetchImpl: typeof fetch,
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
  options: { timeoutMs: number; signal: AbortSignal; credentials: RunCredentials | undefined },
): Promise<void> {
  const deadline = startDeadline(
    options.timeoutMs,
    () =>
      new CursorError("timeout", `BidiAppend did not answer within ${options.timeoutMs} ms`, {
        retryable: true,
        replaySafe: false,
      }),
    options.signal,
  );
  try {
    const sent = await deadline.race(
      withCurrentToken(headers, options.credentials, deadline.signal),
    );
    let response: Response;
    try {
      response = await deadline.race(fetchImpl(url, {
        method: "POST",
        // As Cursor's client: Connect's protocol version, the append's own deadline, and
        // the HTTP/1.1 agent transport's streaming mark.
        headers: {
          ...sent,
          "content-type": "application/proto",
          "connect-protocol-version": "1",
          "connect-timeout-ms": String(options.timeoutMs),
          "x-cursor-streaming": "true",
        },
        body: body as Uint8Array<ArrayBuffer>,
        signal: deadline.signal,
      }));
    } catch (cause) {
      throw networkFailure(cause, "BidiAppend", url);
    }
    if (response.status !== 200) throw await errorFromResponse(response, "BidiService/BidiAppend");
    // Read to the end (a few bytes): a body cancelled before it ended costs the connection,
    // and the next append a new TCP and TLS handshake.
    await deadline.race(response.arrayBuffer()).catch(() => {});
  } finally {
    deadline.clear();
  }
}

/** The headers with the credentials' current token, so a Run outlives the token it opened with. */
async function withCurrentToken(
  headers: Record<string, string>,
  credentials: RunCredentials | undefined,
  signal: AbortSignal,
): Promise<Record<string, string>> {
  if (credentials === undefined) return headers;
  return withBearer(headers, await credentials.current(signal));
}

function appendLegHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (
      lower.startsWith("connect-") || lower === "x-cursor-streaming" || lower === "content-type"
    ) continue;
    out[name] = value;
  }
  return out;
}

function networkFailure(cause: unknown, leg: string, url: string): CursorError {
  const error = CursorError.from(cause);
  if (error.code === "canceled" || error.code === "timeout") return error;
  // A write may have reached the server before it failed: never replay-safe.
  return new CursorError("network", `${leg} ${failedReaching(url, cause)}: ${error.message}`, {
    retryable: true,
    replaySafe: false,
    cause,
  });
}
