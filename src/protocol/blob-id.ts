/**
 * Content-addressed blob ids: the SHA-256 of the blob's bytes.
 *
 * @module
 */
import { bytesToHex, sha256 } from "../core/bytes.ts";

/**
 * Computes a blob id.
 *
 * @param blob The blob's bytes.
 * @returns The 32-byte SHA-256 digest used as its id on the wire.
 *
 * @example
 * ```ts
 * import { blobId, blobIdHex } from "./blob-id.ts";
 *
 * const id = await blobId(new Uint8Array([1, 2, 3]));
 * console.assert(id.length === 32);
 * console.assert(blobIdHex(id).length === 64);
 * ```
 */
export async function blobId(blob: Uint8Array): Promise<Uint8Array> {
  return await sha256(blob);
}

/**
 * Renders a blob id as lowercase hex (the form used as a map key and in logs).
 *
 * @param id The raw id bytes.
 * @returns 64 lowercase hex digits for a SHA-256 id.
 */
export function blobIdHex(id: Uint8Array): string {
  return bytesToHex(id);
}
