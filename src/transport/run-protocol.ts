/**
 * The Connect run protocol as both transports speak it, whatever carries the bytes: the
 * request headers of a Run, client messages as envelopes, the server's body read as frames
 * up to its end-of-stream, and the errors a Run ends with (an end-of-stream or trailers
 * error, a Run answered without a single frame). The RunSSE transport (over fetch) and the
 * HTTP/2 transport (over `node:http2`) bring only the pipe.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { classifyFailure } from "../protocol/classify.ts";
import { encodeEnvelope } from "../protocol/envelope.ts";
import { decodeErrorDetail } from "../protocol/error-detail.ts";
import { STREAMING_CALL_HEADERS } from "../protocol/headers.ts";
import { type Frame, readFrames } from "./frame-stream.ts";

/** The bidi Run (HTTP/2). */
export const RUN_PATH = "/agent.v1.AgentService/Run";

/** The server-streaming Run (any fetch), whose client messages go by `BidiAppend`. */
export const RUN_SSE_PATH = "/agent.v1.AgentService/RunSSE";

/**
 * The headers a Run is opened with: the caller's (auth, checksum, client version …), its
 * request id, and the streaming call's Connect headers (content type, protocol version,
 * gzip, the streaming mark).
 *
 * @param headers The Run's own headers.
 * @param requestId The Run's request id.
 * @returns The headers to send.
 *
 * @example
 * ```ts
 * import { runRequestHeaders } from "./run-protocol.ts";
 *
 * const headers = runRequestHeaders({ authorization: "Bearer t" }, "id-1");
 * console.assert(headers["content-type"] === "application/connect+proto");
 * console.assert(headers["x-request-id"] === "id-1");
 * ```
 */
export function runRequestHeaders(
  headers: Readonly<Record<string, string>>,
  requestId: string,
): Record<string, string> {
  return { ...headers, "x-request-id": requestId, ...STREAMING_CALL_HEADERS };
}

/**
 * One client message as the Connect envelope that carries it.
 *
 * @param message The encoded message.
 * @returns The envelope's bytes.
 */
export function encodeRunMessage(message: Uint8Array): Uint8Array {
  return encodeEnvelope(message);
}

/** Options for {@link readRunFrames}. */
export interface RunBodyOptions {
  /** Largest frame accepted; default 16 MiB. */
  readonly maxFrameBytes?: number | undefined;
  /** Limit on silence while reading; default 120 s. */
  readonly readIdleMs?: number | undefined;
  /** Base of the limit on a started frame's completion (ADR 170); default 10 s. */
  readonly partialFrameMs?: number | undefined;
  /** The Run's own failure, if one was recorded (it wins over what the body reports). */
  readonly failure: () => CursorError | undefined;
  /** A failure under the body (not a `CursorError`) as the Run's error. */
  readonly failureOf: (cause: unknown) => CursorError;
  /** A failure only known once the body ended (HTTP/2 trailers), checked then. */
  readonly failureAtEnd?: (() => CursorError | undefined) | undefined;
}

/**
 * The server frames of a Run's body (status 200), up to and including its end-of-stream.
 * A failure while reading is the Run's recorded failure if any, else the body's error; a
 * body that ends without a single frame is a `wrong_region` error.
 *
 * @param body The response body.
 * @param options Limits and how failures are told.
 * @returns The frames in order.
 * @throws {CursorError} as described.
 */
export async function* readRunFrames(
  body: ReadableStream<Uint8Array>,
  options: RunBodyOptions,
): AsyncGenerator<Frame, void, undefined> {
  let frames = 0;
  try {
    for await (
      const frame of readFrames(body, {
        decodeDetail: decodeErrorDetail,
        maxBytes: options.maxFrameBytes,
        readIdleMs: options.readIdleMs,
        partialFrameMs: options.partialFrameMs,
      })
    ) {
      frames++;
      yield frame;
    }
  } catch (cause) {
    throw options.failure() ??
      (cause instanceof CursorError ? cause : options.failureOf(cause));
  }
  const failed = options.failureAtEnd?.();
  if (failed) throw failed;
  if (frames === 0) throw answeredWithoutFrames();
}

/** A Run Cursor accepted and closed without a frame: the agent host may not serve the region. */
function answeredWithoutFrames(): CursorError {
  return new CursorError(
    "wrong_region",
    "Cursor accepted the Run and closed it without a single frame; the agent host may not serve your account's region (check the agent URL)",
    { retryable: false, replaySafe: true },
  );
}

/**
 * A gRPC-style failure in a Run's trailers (`grpc-status` other than 0), if any.
 *
 * @param trailers The trailers as received.
 * @returns The classified error, or `undefined` for a clean status.
 *
 * @example
 * ```ts
 * import { trailerError } from "./run-protocol.ts";
 *
 * console.assert(trailerError({ "grpc-status": "0" }) === undefined);
 * console.assert(trailerError({ "grpc-status": "14", "grpc-message": "down" })?.retryable);
 * ```
 */
export function trailerError(
  trailers: Readonly<Record<string, string | string[] | undefined>>,
): CursorError | undefined {
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
