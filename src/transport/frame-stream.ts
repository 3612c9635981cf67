/**
 * Reads a Connect streaming response body as frames: message payloads (gunzipped when
 * flagged) and the final end-of-stream. Bounded: a frame over the size limit, a gzip
 * payload that inflates past it, or bytes after the end-of-stream fail with a typed
 * error; a body that delivers no whole frame within the idle limit fails with `timeout`
 * (bytes of an unfinished frame do not count: a server dripping a frame byte by byte
 * cannot hold the Run open forever), and a frame whose first byte arrived must be whole
 * within its partial-frame limit (ADR 170), so a path that drips one frame ends the Run in
 * seconds rather than at the idle limit.
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
  /**
   * How long a frame may take to complete once its first byte arrived, before its size
   * adds time (see {@link partialFrameLimitMs}); default 10 s.
   */
  readonly partialFrameMs?: number | undefined;
  /** Decoder for binary ErrorDetails in an end-of-stream error. */
  readonly decodeDetail: ErrorDetailDecoder;
}

/** Default base of the partial-frame limit: 10 s for a frame to complete once started. */
export const DEFAULT_PARTIAL_FRAME_MS = 10_000;

/**
 * The slowest delivery a started frame is allowed beyond the base: 16 KiB/s, a poor mobile
 * link. A 1 MiB checkpoint frame gets 64 s more; the 120 s idle backstop caps the largest.
 */
export const MIN_FRAME_BYTES_PER_SECOND = 16 * 1024;

/**
 * How long a started frame may take to become whole: the base, plus its announced size at
 * {@link MIN_FRAME_BYTES_PER_SECOND} (ADR 170).
 *
 * @param frameBytes The frame's whole size once its header is in, else `undefined`.
 * @param baseMs The base limit.
 * @returns The limit in milliseconds.
 *
 * @example
 * ```ts
 * import { partialFrameLimitMs } from "./frame-stream.ts";
 *
 * console.assert(partialFrameLimitMs(100, 10_000) === 10_006);
 * console.assert(partialFrameLimitMs(1024 * 1024, 10_000) === 74_000);
 * ```
 */
export function partialFrameLimitMs(frameBytes: number | undefined, baseMs: number): number {
  return baseMs + Math.round(((frameBytes ?? 0) * 1000) / MIN_FRAME_BYTES_PER_SECOND);
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
  const partial = new PartialFrameClock(options.partialFrameMs ?? DEFAULT_PARTIAL_FRAME_MS);
  /** Time spent waiting for the next whole frame, excluding time the caller held a frame. */
  let waitedMs = 0;
  try {
    for (;;) {
      const started = Date.now();
      const chunk = await readWithIdleLimit(reader, idleMs - waitedMs, idleMs, partial, decoder);
      waitedMs += Date.now() - started;
      if (chunk === undefined) break;
      const envelopes = decoder.push(chunk);
      partial.observe(decoder.bufferedBytes, envelopes.length > 0, Date.now() - started);
      for (const envelope of envelopes) {
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

/**
 * Time spent on the frame being received: starts with its first byte, stops while the
 * caller holds frames (only read time counts), ends when the frame is whole.
 */
class PartialFrameClock {
  readonly #baseMs: number;
  /** Read time spent on the unfinished frame, or `undefined` when no frame is started. */
  #spentMs: number | undefined;

  constructor(baseMs: number) {
    this.#baseMs = baseMs;
  }

  /** Records a read: how many bytes are left unfinished, whether frames completed, how long it took. */
  observe(buffered: number, completed: boolean, tookMs: number): void {
    if (buffered === 0) this.#spentMs = undefined;
    // Frames completed and another began in the same read: its clock starts now.
    else if (completed || this.#spentMs === undefined) this.#spentMs = 0;
    else this.#spentMs += tookMs;
  }

  /** The time left before the unfinished frame's limit, or `undefined` when none is started. */
  remainingMs(frameBytes: number | undefined): number | undefined {
    if (this.#spentMs === undefined) return undefined;
    return partialFrameLimitMs(frameBytes, this.#baseMs) - this.#spentMs;
  }

  /** The failure once the limit passed. */
  stalled(received: number, frameBytes: number | undefined): CursorError {
    const limit = partialFrameLimitMs(frameBytes, this.#baseMs);
    const size = frameBytes === undefined ? "" : ` of ${frameBytes}`;
    return new CursorError(
      "timeout",
      `A frame from Cursor stalled: ${received}${size} bytes arrived and it was not complete within ${
        Math.round(limit / 1000)
      } s (partial-frame limit); a proxy or the network is holding the connection back`,
      // The same path would serve a replay: waiting again helps nobody (ADR 170).
      { retryable: false, replaySafe: true },
    );
  }
}

async function readWithIdleLimit(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  remainingMs: number,
  idleMs: number,
  partial: PartialFrameClock,
  decoder: EnvelopeDecoder,
): Promise<Uint8Array | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frameBytes = decoder.pendingEnvelopeBytes;
  const partialMs = partial.remainingMs(frameBytes);
  const idle = new Promise<never>((_, reject) => {
    const stalled = partialMs !== undefined && partialMs < remainingMs;
    timer = setTimeout(
      () =>
        reject(
          stalled ? partial.stalled(decoder.bufferedBytes, frameBytes) : new CursorError(
            "timeout",
            `No frame from Cursor for ${Math.round(idleMs / 1000)} s (read-idle limit)`,
            { retryable: true, replaySafe: true },
          ),
        ),
      Math.max(0, stalled ? partialMs : remainingMs),
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
