/**
 * `BidiAppend` bodies: each client message of a RunSSE Run travels as one unary call
 * carrying the lowercase hex of the encoded `AgentClientMessage`, the Run's request id
 * and a sequence number starting at 0.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../gen/aiserver/v1/bidi_pb.ts";
import { hexToBytes, writeHex } from "../core/bytes.ts";
import { CursorError } from "../core/cursor-error.ts";

/** Message bytes hex-encoded per step of {@link encodeBidiAppendInSteps}: 256 KiB. */
export const BIDI_APPEND_STEP_BYTES = 256 * 1024;

/**
 * Encodes a `BidiAppendRequest` (hex mode).
 *
 * @param requestId The Run's request id (equal to its `x-request-id`).
 * @param seqno The append sequence number: 0, 1, 2, … per Run.
 * @param message The encoded `AgentClientMessage`.
 * @returns The unary request body (`application/proto`, not enveloped).
 *
 * @example
 * ```ts
 * import { decodeBidiAppend, encodeBidiAppend } from "./bidi-append.ts";
 *
 * const body = encodeBidiAppend("r-1", 0, new Uint8Array([0x3a, 0x00]));
 * const append = decodeBidiAppend(body);
 * console.assert(append.requestId === "r-1" && append.seqno === 0 && append.message.length === 2);
 * ```
 */
export function encodeBidiAppend(
  requestId: string,
  seqno: number,
  message: Uint8Array,
): Uint8Array {
  const steps = encodeBidiAppendInSteps(requestId, seqno, message, Number.POSITIVE_INFINITY);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

/**
 * Encodes a `BidiAppendRequest` (hex mode) a slice at a time, so a caller can yield to
 * its event loop between slices of a large message. The body is allocated once at its
 * final size and the hex digits are written straight into it: no hex string, no second
 * copy. The bytes equal `toBinary` of the same request.
 *
 * @param requestId The Run's request id.
 * @param seqno The append sequence number.
 * @param message The encoded `AgentClientMessage`.
 * @param bytesPerStep Message bytes encoded per step (default 256 KiB).
 * @returns A generator that yields after each slice and returns the body.
 *
 * @example
 * ```ts
 * import { encodeBidiAppend, encodeBidiAppendInSteps } from "./bidi-append.ts";
 *
 * const steps = encodeBidiAppendInSteps("r-1", 3, new Uint8Array(10), 4);
 * let step = steps.next();
 * let yields = 0;
 * for (; step.done !== true; step = steps.next()) yields++;
 * console.assert(yields === 3);
 * const same = encodeBidiAppend("r-1", 3, new Uint8Array(10));
 * console.assert(step.value.every((byte, i) => byte === same[i]));
 * ```
 */
export function* encodeBidiAppendInSteps(
  requestId: string,
  seqno: number,
  message: Uint8Array,
  bytesPerStep: number = BIDI_APPEND_STEP_BYTES,
): Generator<void, Uint8Array, void> {
  const head = message.length === 0 ? [] : [0x0a, ...varint(message.length * 2)];
  const tail = appendTail(requestId, seqno);
  const body = new Uint8Array(head.length + message.length * 2 + tail.length);
  body.set(head, 0);
  let at = head.length;
  for (let from = 0; from < message.length; from += bytesPerStep) {
    if (from > 0) yield;
    at = writeHex(message.subarray(from, Math.min(message.length, from + bytesPerStep)), body, at);
  }
  body.set(tail, at);
  return body;
}

/** Fields 2 (`request_id`) and 3 (`append_seqno`, omitted when 0) of the request. */
function appendTail(requestId: string, seqno: number): Uint8Array {
  const id = toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId }));
  const parts = [0x12, ...varint(id.length), ...id];
  if (seqno !== 0) parts.push(0x18, ...varint(seqno));
  return new Uint8Array(parts);
}

/** Base-128 varint of a non-negative safe integer. */
function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

/** A decoded append. */
export interface DecodedBidiAppend {
  readonly requestId: string;
  readonly seqno: number;
  readonly message: Uint8Array;
  /** Which field carried the message: hex `data` (1) or raw `data_binary` (4). */
  readonly encoding: "hex" | "binary";
}

/**
 * Decodes a `BidiAppendRequest`, accepting both the hex `data` and the binary
 * `data_binary` variants.
 *
 * @param body The unary request body.
 * @returns The request id, sequence number and message bytes.
 * @throws {CursorError} `invalid_argument` for an undecodable body, a missing request id,
 *   hex that is not lowercase or not valid, or a negative sequence number.
 */
export function decodeBidiAppend(body: Uint8Array): DecodedBidiAppend {
  let request;
  try {
    request = fromBinary(BidiAppendRequestSchema, body);
  } catch (cause) {
    throw new CursorError("invalid_argument", "Cannot decode BidiAppendRequest", { cause });
  }
  const requestId = request.requestId?.requestId ?? "";
  if (requestId === "") {
    throw new CursorError("invalid_argument", "BidiAppendRequest has no request_id");
  }
  if (request.appendSeqno < 0n) {
    throw new CursorError(
      "invalid_argument",
      `BidiAppendRequest append_seqno ${request.appendSeqno} is negative`,
    );
  }
  const seqno = Number(request.appendSeqno);
  if (request.data === "" && request.dataBinary.length > 0) {
    return { requestId, seqno, message: request.dataBinary, encoding: "binary" };
  }
  const message = hexToBytes(request.data);
  if (message === undefined) {
    const sample = request.data.slice(0, 16);
    throw new CursorError(
      "invalid_argument",
      `BidiAppendRequest data is not lowercase hex (starts ${JSON.stringify(sample)})`,
    );
  }
  return { requestId, seqno, message, encoding: "hex" };
}
