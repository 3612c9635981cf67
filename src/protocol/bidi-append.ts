/**
 * `BidiAppend` bodies: each client message of a RunSSE Run travels as one unary call
 * carrying the lowercase hex of the encoded `AgentClientMessage`, the Run's request id
 * and a sequence number starting at 0.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../gen/aiserver/v1/bidi_pb.ts";
import { bytesToHex, hexToBytes } from "../core/bytes.ts";
import { CursorError } from "../core/cursor-error.ts";

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
  return toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, {
      data: bytesToHex(message),
      requestId: create(BidiRequestIdSchema, { requestId }),
      appendSeqno: BigInt(seqno),
    }),
  );
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
