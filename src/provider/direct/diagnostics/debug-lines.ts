/**
 * Hash fields of the debug log's lines (the lines themselves are typed events, see
 * `diagnostics/events.ts`).
 *
 * @module
 */
import { sha256Hex } from "../../../core/bytes.ts";

/**
 * First 16 hex digits of a SHA-256, for hash fields on log lines.
 *
 * @param bytes What to hash.
 * @returns 16 hex digits.
 */
export async function shortHash(bytes: Uint8Array | string): Promise<string> {
  return (await sha256Hex(bytes)).slice(0, 16);
}
