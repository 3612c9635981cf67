/**
 * The emulator's own Connect framing, written apart from the client's on purpose: a
 * framing bug shared by both sides would pass every round-trip test, so the golden wire
 * fixtures check each side against the same bytes. A frame is
 * `[flags u8][length u32 big-endian][payload]`; flag `0x01` marks a gzip payload and
 * `0x02` the end-of-stream frame, whose payload is JSON.
 *
 * @module
 */

/** Flag bit of a gzip-compressed payload. */
export const COMPRESSED_FLAG = 0x01;
/** Flag bit of the end-of-stream frame (JSON payload). */
export const END_STREAM_FLAG = 0x02;

const HEADER_BYTES = 5;

/** One decoded frame. */
export interface Frame {
  readonly flags: number;
  readonly payload: Uint8Array;
}

/** A frame the emulator cannot read; `tooLarge` when the announced length is over the limit. */
export class FramingError extends Error {
  /**
   * @param message What failed.
   * @param tooLarge Whether the length exceeded the limit.
   */
  constructor(message: string, readonly tooLarge = false) {
    super(message);
    this.name = "FramingError";
  }
}

/**
 * Frames one payload.
 *
 * @param payload The message bytes (or end-of-stream JSON).
 * @param flags The flag byte.
 * @returns Header and payload.
 */
export function frame(payload: Uint8Array, flags = 0): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + payload.length);
  out[0] = flags;
  out[1] = (payload.length >>> 24) & 0xff;
  out[2] = (payload.length >>> 16) & 0xff;
  out[3] = (payload.length >>> 8) & 0xff;
  out[4] = payload.length & 0xff;
  out.set(payload, HEADER_BYTES);
  return out;
}

/**
 * Frames the end of a stream: `{}` for success, `{"error":…}` for a failure.
 *
 * @param json The end-of-stream object.
 * @returns The end-of-stream frame.
 */
export function endStreamFrame(json: Record<string, unknown>): Uint8Array {
  return frame(new TextEncoder().encode(JSON.stringify(json)), END_STREAM_FLAG);
}

/** Reads frames from chunks of any size; the first framing error sticks. */
export class FrameReader {
  readonly #limit: number;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #error: FramingError | undefined;

  /** @param limit The largest payload accepted. */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Adds bytes and returns the frames they complete.
   *
   * @throws {FramingError} for unknown flag bits or a length over the limit.
   */
  push(chunk: Uint8Array): Frame[] {
    if (this.#error !== undefined) throw this.#error;
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const frames: Frame[] = [];
    while (this.#buffered >= HEADER_BYTES) {
      const header = this.#peek(HEADER_BYTES);
      const flags = header[0] ?? 0;
      const length = (header[1] ?? 0) * 2 ** 24 + ((header[2] ?? 0) << 16) +
        ((header[3] ?? 0) << 8) + (header[4] ?? 0);
      if ((flags & ~(COMPRESSED_FLAG | END_STREAM_FLAG)) !== 0) {
        throw this.#fail(
          new FramingError(
            `Cannot decode frame: reserved flag bits set in 0x${flags.toString(16)}`,
          ),
        );
      }
      if (length > this.#limit) {
        throw this.#fail(
          new FramingError(
            `Cannot decode frame: length ${length} exceeds limit ${this.#limit}`,
            true,
          ),
        );
      }
      if (this.#buffered < HEADER_BYTES + length) break;
      const whole = this.#take(HEADER_BYTES + length);
      frames.push({ flags, payload: whole.subarray(HEADER_BYTES) });
    }
    return frames;
  }

  /**
   * Declares the end of input.
   *
   * @throws {FramingError} when a partial frame is left over.
   */
  finish(): void {
    if (this.#error !== undefined) throw this.#error;
    if (this.#buffered > 0) {
      throw this.#fail(
        new FramingError(
          `Cannot decode frame: stream ended inside an envelope with ${this.#buffered} byte(s) buffered`,
        ),
      );
    }
  }

  /** The first `count` buffered bytes (joining chunks only when the first is too short). */
  #peek(count: number): Uint8Array {
    const first = this.#chunks[0];
    if (first !== undefined && first.length >= count) return first.subarray(0, count);
    const joined = this.#join();
    return joined.subarray(0, count);
  }

  /** Removes and returns the first `count` buffered bytes. */
  #take(count: number): Uint8Array {
    const first = this.#chunks[0] ?? new Uint8Array(0);
    const source = first.length >= count ? first : this.#join();
    const taken = source.slice(0, count);
    const rest = source.subarray(count);
    this.#chunks[0] = rest;
    if (rest.length === 0) this.#chunks.shift();
    this.#buffered -= count;
    return taken;
  }

  /** Joins every buffered chunk into one (the frame being read spans them). */
  #join(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0] ?? new Uint8Array(0);
    const joined = new Uint8Array(this.#buffered);
    let offset = 0;
    for (const chunk of this.#chunks) {
      joined.set(chunk, offset);
      offset += chunk.length;
    }
    this.#chunks = [joined];
    return joined;
  }

  #fail(error: FramingError): FramingError {
    this.#error = error;
    return error;
  }
}

/**
 * Inflates a gzip payload, refusing to grow past `limit`.
 *
 * @throws {FramingError} for corrupt gzip or an inflated size over the limit.
 */
export async function inflate(payload: Uint8Array, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    const reader = new Blob([payload as Uint8Array<ArrayBuffer>]).stream()
      .pipeThrough(new DecompressionStream("gzip")).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > limit) {
        await reader.cancel();
        throw new FramingError(`Cannot decode frame: inflated size exceeds limit ${limit}`, true);
      }
      chunks.push(value);
    }
  } catch (cause) {
    if (cause instanceof FramingError) throw cause;
    throw new FramingError("Cannot decode frame: corrupt gzip payload");
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * The raw bytes of the last length-delimited field `fieldNumber` of a message, exactly
 * as sent (the checkpoint the client echoes must be compared byte for byte).
 *
 * @returns The bytes, or `undefined` when absent or the message does not parse.
 */
export function rawField(message: Uint8Array, fieldNumber: number): Uint8Array | undefined {
  let offset = 0;
  let found: Uint8Array | undefined;
  const varint = (): number | undefined => {
    let value = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const byte = message[offset++];
      if (byte === undefined) return undefined;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return undefined;
  };
  while (offset < message.length) {
    const tag = varint();
    if (tag === undefined) return undefined;
    const wireType = tag % 8;
    if (wireType === 0) {
      if (varint() === undefined) return undefined;
    } else if (wireType === 1 || wireType === 5) {
      offset += wireType === 1 ? 8 : 4;
    } else if (wireType === 2) {
      const length = varint();
      if (length === undefined || offset + length > message.length) return undefined;
      if (Math.floor(tag / 8) === fieldNumber) found = message.subarray(offset, offset + length);
      offset += length;
    } else {
      return undefined;
    }
  }
  return offset === message.length ? found : undefined;
}
