/**
 * The bytes of a conversation snapshot: a versioned header (`CSNP`, format version,
 * then gzip of the `provider.v1.ConversationSnapshot` protobuf), and the walk that
 * finds the blobs a checkpoint can still reach, so a snapshot carries those and
 * nothing else. Web-standard only (`CompressionStream`), so every runtime shares it.
 *
 * @module
 */
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { bytesToHex } from "../core/bytes.ts";
import {
  type ConversationSnapshot,
  ConversationSnapshotSchema,
} from "../gen/provider/v1/conversation_snapshot_pb.ts";
import type { BlobStore } from "./blob-store.ts";

/** The format version this code writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

const MAGIC = [0x43, 0x53, 0x4e, 0x50]; // "CSNP"
const HEADER_BYTES = MAGIC.length + 1;
/** Deepest nesting the reference walk follows inside one blob. */
const MAX_NESTING = 8;

/** Why snapshot bytes could not be read. */
export type SnapshotDecodeFailure = "not-a-snapshot" | "foreign-version" | "corrupt";

/** The result of {@link decodeSnapshot}. */
export type SnapshotDecodeResult =
  | { readonly ok: true; readonly snapshot: ConversationSnapshot }
  | { readonly ok: false; readonly reason: SnapshotDecodeFailure };

/**
 * Encodes a snapshot: header, then the gzip-compressed protobuf.
 *
 * @param snapshot The snapshot message.
 * @returns The file bytes.
 */
export async function encodeSnapshot(snapshot: ConversationSnapshot): Promise<Uint8Array> {
  const body = await transform(
    toBinary(ConversationSnapshotSchema, snapshot),
    new CompressionStream("gzip"),
  );
  const out = new Uint8Array(HEADER_BYTES + body.length);
  out.set(MAGIC, 0);
  out[MAGIC.length] = SNAPSHOT_FORMAT_VERSION;
  out.set(body, HEADER_BYTES);
  return out;
}

/**
 * Decodes snapshot bytes; never throws.
 *
 * @param bytes The file bytes.
 * @returns The snapshot, or why it could not be read (a truncated gzip is `corrupt`).
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ConversationSnapshotSchema } from "../gen/provider/v1/conversation_snapshot_pb.ts";
 * import { decodeSnapshot, encodeSnapshot } from "./snapshot-codec.ts";
 *
 * const bytes = await encodeSnapshot(create(ConversationSnapshotSchema, { sessionKey: "ses_1" }));
 * const decoded = await decodeSnapshot(bytes);
 * console.assert(decoded.ok && decoded.snapshot.sessionKey === "ses_1");
 * const truncated = await decodeSnapshot(bytes.subarray(0, bytes.length - 4));
 * console.assert(!truncated.ok && truncated.reason === "corrupt");
 * ```
 */
export async function decodeSnapshot(bytes: Uint8Array): Promise<SnapshotDecodeResult> {
  if (bytes.length < HEADER_BYTES || MAGIC.some((b, i) => bytes[i] !== b)) {
    return { ok: false, reason: "not-a-snapshot" };
  }
  if (bytes[MAGIC.length] !== SNAPSHOT_FORMAT_VERSION) {
    return { ok: false, reason: "foreign-version" };
  }
  try {
    const body = await transform(bytes.subarray(HEADER_BYTES), new DecompressionStream("gzip"));
    return { ok: true, snapshot: fromBinary(ConversationSnapshotSchema, body) };
  } catch {
    return { ok: false, reason: "corrupt" };
  }
}

/**
 * A snapshot message from its fields (re-exported construction, so callers need not
 * import the generated schema).
 *
 * @param fields The snapshot's fields.
 * @returns The message.
 */
export function snapshotMessage(
  fields: MessageInitShape<typeof ConversationSnapshotSchema>,
): ConversationSnapshot {
  return create(ConversationSnapshotSchema, fields);
}

/**
 * The blobs a checkpoint can still reach: every 32-byte length-delimited field of the
 * checkpoint (and, transitively, of the blobs it reaches, nested messages included)
 * that names a blob the store holds. Unreferenced blobs are left out.
 *
 * @param checkpoint The checkpoint bytes.
 * @param blobs The store the ids are looked up in.
 * @returns The reachable blobs by hex id, in discovery order.
 */
export function reachableBlobs(
  checkpoint: Uint8Array,
  blobs: BlobStore,
): Map<string, Uint8Array> {
  const found = new Map<string, Uint8Array>();
  const pending: Uint8Array[] = [checkpoint];
  while (pending.length > 0) {
    const data = pending.pop();
    if (data === undefined) break;
    for (const id of candidateIds(data, 0)) {
      const hex = bytesToHex(id);
      if (found.has(hex)) continue;
      const blob = blobs.get(hex);
      if (blob === undefined) continue;
      found.set(hex, blob);
      pending.push(blob);
    }
  }
  return found;
}

/** 32-byte length-delimited fields of a protobuf message, nested messages included. */
function candidateIds(data: Uint8Array, depth: number): Uint8Array[] {
  const fields = lengthDelimitedFields(data);
  if (fields === undefined) return [];
  const out: Uint8Array[] = [];
  for (const field of fields) {
    if (field.length === 32) out.push(field);
    else if (depth < MAX_NESTING && field.length > 0) out.push(...candidateIds(field, depth + 1));
  }
  return out;
}

/** The length-delimited fields of `data` read as a protobuf message, or `undefined` if it is not one. */
function lengthDelimitedFields(data: Uint8Array): Uint8Array[] | undefined {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < data.length) {
    const tag = readVarint(data, at);
    if (tag === undefined || tag.value === 0) return undefined;
    at = tag.next;
    const wireType = tag.value % 8;
    if (wireType === 0) {
      const value = readVarint(data, at);
      if (value === undefined) return undefined;
      at = value.next;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = readVarint(data, at);
      if (length === undefined || length.next + length.value > data.length) return undefined;
      out.push(data.subarray(length.next, length.next + length.value));
      at = length.next + length.value;
    } else return undefined;
  }
  return at === data.length ? out : undefined;
}

function readVarint(data: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = at; i < data.length && i < at + 10; i++) {
    const byte = data[i] ?? 0;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
  }
  return undefined;
}

async function transform(
  input: Uint8Array,
  stream: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  const written = writer.write(input as Uint8Array<ArrayBuffer>).then(() => writer.close());
  written.catch(() => {});
  const chunks: Uint8Array[] = [];
  const reader = stream.readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  await written;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
