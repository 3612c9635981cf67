/**
 * The bytes of a conversation snapshot: a versioned header (`CSNP`, format version,
 * then gzip of the `provider.v1.ConversationSnapshot` protobuf). The walk that picks
 * the blobs a snapshot carries lives in `src/agent-run/blobs/reachable-blobs.ts`. Web-standard only (`CompressionStream`), so every runtime shares it.
 *
 * @module
 */
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  type ConversationSnapshot,
  ConversationSnapshotSchema,
} from "../gen/provider/v1/conversation_snapshot_pb.ts";

/** The format version this code writes and reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

const MAGIC = [0x43, 0x53, 0x4e, 0x50]; // "CSNP"
const HEADER_BYTES = MAGIC.length + 1;

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
 * import { decodeSnapshot, encodeSnapshot } from "./codec.ts";
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
