/**
 * Reads a Connect streaming response body as frames: message payloads (gunzipped when
 * flagged) and the final end-of-stream. Bounded: a frame over the size limit, a gzip
 * payload that inflates past it, or bytes after the end-of-stream fail with a typed
 * error; a body that delivers no whole frame within the idle limit fails with `timeout`
 * (bytes of an unfinished frame do not count: a server dripping a frame byte by byte
 * cannot hold the Run open forever).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import {
  DEFAULT_MAX_ENVELOPE_BYTES,
  EnvelopeDecoder,
  FLAG_COMPRESSED,
  FLAG_END_STREAM,
} from "../protocol/envelope.ts";
import { type EndStream, type ErrorDetailDecoder, parseEndStream } from "../protocol/end-stream.ts";

/** One frame read from a streaming body. */
export type Frame =
  | { readonly kind: "message"; readonly bytes: Uint8Array }
  | { readonly kind: "end"; readonly end: EndStream };

/** Options for {@link readFrames}. */
export interface ReadFramesOptions {
  /** Largest payload (compressed or inflated); default 16 MiB. */
  readonly maxBytes?: number | undefined;
  /**
   * Fail with `timeout` when no whole frame arrives for this long while the body is read
   * (time the caller spends between reads does not count); default 120 s.
   */
  readonly readIdleMs?: number | undefined;
  /** Decoder for binary ErrorDetails in an end-of-stream error. */
  readonly decodeDetail: ErrorDetailDecoder;
}

/**
 * Default read-idle limit: 120 s without a whole inbound frame (server heartbeats count).
 * A backstop: the Run driver's own 30 s no-frame rule fires first while it waits for
 * Cursor. A held Run is not read while the host runs tools, so it never fires then.
 */
export const DEFAULT_READ_IDLE_MS = 120_000;

/**
 * Iterates the frames of a Connect streaming body. The iteration ends after the
 * end-of-stream frame; a body that ends without one yields nothing more and returns
 * normally (the caller decides whether that is an interruption).
 *
 * @param body The response body.
 * @param options Limits and the detail decoder.
 * @returns An async iterator of frames.
 * @throws {CursorError} `protocol` for malformed framing, `timeout` on read-idle.
 */
export async function* readFrames(
  body: ReadableStream<Uint8Array>,
  options: ReadFramesOptions,
): AsyncGenerator<Frame, void, undefined> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ENVELOPE_BYTES;
  const decoder = new EnvelopeDecoder(maxBytes);
  const reader = body.getReader();
  let ended = false;
  const idleMs = options.readIdleMs ?? DEFAULT_READ_IDLE_MS;
  /** Time spent waiting for the next whole frame, excluding time the caller held a frame. */
  let waitedMs = 0;
  try {
    for (;;) {
      const started = Date.now();
      const chunk = await readWithIdleLimit(reader, idleMs - waitedMs, idleMs);
      waitedMs += Date.now() - started;
      if (chunk === undefined) break;
      for (const envelope of decoder.push(chunk)) {
        waitedMs = 0;
        if (ended) {
          throw new CursorError(
            "protocol",
            "Cannot decode frame: data after the end-of-stream envelope",
          );
        }
        if ((envelope.flags & FLAG_END_STREAM) !== 0) {
          ended = true;
          const payload = (envelope.flags & FLAG_COMPRESSED) !== 0
            ? await gunzip(envelope.data, maxBytes)
            : envelope.data;
          yield { kind: "end", end: parseEndStream(payload, options.decodeDetail) };
          continue;
        }
        const bytes = (envelope.flags & FLAG_COMPRESSED) !== 0
          ? await gunzip(envelope.data, maxBytes)
          : envelope.data;
        yield { kind: "message", bytes };
      }
      decoder.push(new Uint8Array(0)); // a malformed envelope after those frames throws now
    }
    decoder.finish();
  } finally {
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

async function readWithIdleLimit(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  remainingMs: number,
  idleMs: number,
): Promise<Uint8Array | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CursorError(
            "timeout",
            `No frame from Cursor for ${Math.round(idleMs / 1000)} s (read-idle limit)`,
            { retryable: true, replaySafe: true },
          ),
        ),
      Math.max(0, remainingMs),
    );
  });
  try {
    const result = await Promise.race([reader.read(), idle]);
    return result.done ? undefined : result.value;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Inflates a gzip payload with `DecompressionStream`, refusing to grow past `maxBytes`.
 *
 * @param data The compressed bytes.
 * @param maxBytes The largest inflated size accepted.
 * @returns The inflated bytes.
 * @throws {CursorError} `protocol` for corrupt gzip or an oversized result.
 */
export async function gunzip(data: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new DecompressionStream("gzip"),
    );
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        await reader.cancel();
        throw new CursorError(
          "protocol",
          `Cannot decode frame: inflated size exceeds limit ${maxBytes}`,
        );
      }
      chunks.push(value);
    }
  } catch (cause) {
    if (cause instanceof CursorError) throw cause;
    throw new CursorError("protocol", "Cannot decode frame: corrupt gzip payload", { cause });
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
