/**
 * Connect envelopes: `[flags u8][length u32 big-endian][payload]`. A sans-IO push
 * decoder (feed chunks of any size, take whole envelopes) with a size limit, and
 * the encoder.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

/** Flag bit: the payload is compressed with the negotiated encoding (gzip here). */
export const FLAG_COMPRESSED = 0x01;
/** Flag bit: the end-of-stream envelope; its payload is JSON. */
export const FLAG_END_STREAM = 0x02;
/** Default largest payload accepted: 16 MiB. */
export const DEFAULT_MAX_ENVELOPE_BYTES = 16 * 1024 * 1024;

const HEADER_BYTES = 5;
const KNOWN_FLAGS = FLAG_COMPRESSED | FLAG_END_STREAM;

/** One whole envelope as it arrived: flags and the (possibly compressed) payload. */
export interface Envelope {
  readonly flags: number;
  readonly data: Uint8Array;
}

/**
 * Encodes one envelope.
 *
 * @param data The payload.
 * @param flags Flag bits; 0 for a plain message.
 * @returns The header followed by the payload.
 *
 * @example
 * ```ts
 * import { encodeEnvelope } from "./envelope.ts";
 *
 * const bytes = encodeEnvelope(new Uint8Array([8, 1]));
 * console.assert(bytes.length === 7 && bytes[4] === 2);
 * ```
 */
export function encodeEnvelope(data: Uint8Array, flags = 0): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + data.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, data.length, false);
  out.set(data, HEADER_BYTES);
  return out;
}

/**
 * A push decoder for Connect envelopes. Feed chunks as they arrive; take whole
 * envelopes out. Buffering is bounded by the size limit: a header announcing a
 * larger payload fails at once, before its bytes arrive.
 *
 * @example Envelopes split across chunks
 * ```ts
 * import { EnvelopeDecoder, encodeEnvelope } from "./envelope.ts";
 *
 * const bytes = encodeEnvelope(new Uint8Array([1, 2, 3]));
 * const decoder = new EnvelopeDecoder();
 * console.assert(decoder.push(bytes.subarray(0, 4)).length === 0);
 * const [envelope] = decoder.push(bytes.subarray(4));
 * console.assert(envelope?.data.length === 3);
 * decoder.finish();
 * ```
 */
export class EnvelopeDecoder {
  readonly #maxBytes: number;
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #failed: CursorError | undefined;

  /**
   * @param maxBytes The largest payload accepted (default 16 MiB).
   */
  constructor(maxBytes: number = DEFAULT_MAX_ENVELOPE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes held that do not yet form a whole envelope. */
  get bufferedBytes(): number {
    return this.#buffered;
  }

  /**
   * The whole size (header included) of the envelope being received, once its header is
   * in; `undefined` while fewer than its 5 header bytes are buffered.
   */
  get pendingEnvelopeBytes(): number | undefined {
    if (this.#buffered < HEADER_BYTES) return undefined;
    const header = this.#peek(HEADER_BYTES);
    return HEADER_BYTES +
      new DataView(header.buffer, header.byteOffset, HEADER_BYTES).getUint32(1, false);
  }

  /**
   * Adds a chunk and returns every envelope it completes.
   *
   * @param chunk Bytes as they arrived.
   * @returns The envelopes completed by this chunk, in order. When a malformed header
   *   follows whole envelopes in the same chunk, those are returned and the next call
   *   throws.
   * @throws {CursorError} `protocol` for reserved flag bits or a length over the limit;
   *   every later call throws the same error.
   */
  push(chunk: Uint8Array): Envelope[] {
    if (this.#failed) throw this.#failed;
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const out: Envelope[] = [];
    for (;;) {
      let envelope: Envelope | undefined;
      try {
        envelope = this.#next();
      } catch (error) {
        if (out.length === 0) throw error;
        return out; // keep the whole envelopes before the bad one; the next call throws
      }
      if (envelope === undefined) return out;
      out.push(envelope);
    }
  }

  /**
   * Declares the end of input.
   *
   * @throws {CursorError} `protocol` when a partial envelope is left over.
   */
  finish(): void {
    if (this.#failed) throw this.#failed;
    if (this.#buffered > 0) {
      throw this.#fail(
        `Cannot decode frame: stream ended inside an envelope with ${this.#buffered} byte(s) buffered`,
      );
    }
  }

  #next(): Envelope | undefined {
    if (this.#buffered < HEADER_BYTES) return undefined;
    const header = this.#peek(HEADER_BYTES);
    const flags = header[0] ?? 0;
    const length = new DataView(header.buffer, header.byteOffset, HEADER_BYTES).getUint32(1, false);
    if ((flags & ~KNOWN_FLAGS) !== 0) {
      throw this.#fail(`Cannot decode frame: reserved flag bits set in 0x${flags.toString(16)}`);
    }
    if (length > this.#maxBytes) {
      throw this.#fail(`Cannot decode frame: length ${length} exceeds limit ${this.#maxBytes}`);
    }
    if (this.#buffered < HEADER_BYTES + length) return undefined;
    const whole = this.#take(HEADER_BYTES + length);
    return { flags, data: whole.subarray(HEADER_BYTES) };
  }

  #peek(count: number): Uint8Array {
    const first = this.#chunks[0];
    if (first !== undefined && first.length >= count) return first.subarray(0, count);
    this.#coalesce(count);
    return (this.#chunks[0] ?? new Uint8Array(0)).subarray(0, count);
  }

  #take(count: number): Uint8Array {
    let first = this.#chunks[0];
    if (first === undefined || first.length < count) {
      this.#coalesce(count);
      first = this.#chunks[0] ?? new Uint8Array(0);
    }
    const taken = first.subarray(0, count);
    if (first.length === count) this.#chunks.shift();
    else this.#chunks[0] = first.subarray(count);
    this.#buffered -= count;
    return taken;
  }

  /** Merges just enough leading chunks that the first holds at least `count` bytes. */
  #coalesce(count: number): void {
    let merged = 0;
    let size = 0;
    while (size < count && merged < this.#chunks.length) {
      size += this.#chunks[merged]?.length ?? 0;
      merged++;
    }
    const whole = new Uint8Array(size);
    let offset = 0;
    for (const chunk of this.#chunks.slice(0, merged)) {
      whole.set(chunk, offset);
      offset += chunk.length;
    }
    this.#chunks.splice(0, merged, whole);
  }

  #fail(message: string): CursorError {
    this.#chunks = [];
    this.#buffered = 0;
    this.#failed = new CursorError("protocol", message);
    return this.#failed;
  }
}
