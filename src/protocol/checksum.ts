/**
 * The `x-cursor-checksum` header: an obfuscated time bucket followed by the machine id.
 *
 * @module
 */
import { base64Encode } from "@bufbuild/protobuf/wire";

/**
 * Computes the 8-character time prefix of `x-cursor-checksum`.
 *
 * The byte extraction deliberately keeps JavaScript's 32-bit shift semantics (shift
 * counts are masked to 5 bits, so `n >> 40` is `n >> 8` and `n >> 32` is `n`): the
 * service computes it that way, and "fixing" it would change the header.
 *
 * @param nowMs The current time in milliseconds since the epoch.
 * @returns Eight base64 characters.
 *
 * @example The published test vector
 * ```ts
 * import { checksumPrefix } from "./checksum.ts";
 *
 * console.assert(checksumPrefix(Date.UTC(2026, 0, 1)) === "Umxud4TC");
 * ```
 */
export function checksumPrefix(nowMs: number): string {
  const bucket = Math.floor(nowMs / 1_000_000);
  const shifts = [40, 32, 24, 16, 8, 0];
  const bytes = new Uint8Array(shifts.map((shift) => (bucket >> shift) & 255));
  let key = 165;
  for (let i = 0; i < bytes.length; i++) {
    const mixed = (((bytes[i] ?? 0) ^ key) + i) % 256;
    bytes[i] = mixed;
    key = mixed;
  }
  return base64Encode(bytes, "std").replace(/=+$/, "");
}

/**
 * Builds the whole `x-cursor-checksum` value.
 *
 * @param nowMs The current time in milliseconds since the epoch.
 * @param machineId The 64-hex machine id (SHA-256 of the platform id).
 * @param macMachineId The optional 64-hex id derived from a MAC address.
 * @returns `prefix + machineId`, or `prefix + machineId + "/" + macMachineId`.
 *
 * @example
 * ```ts
 * import { cursorChecksum } from "./checksum.ts";
 *
 * const value = cursorChecksum(Date.UTC(2026, 0, 1), "a".repeat(64));
 * console.assert(value === "Umxud4TC" + "a".repeat(64));
 * ```
 */
export function cursorChecksum(nowMs: number, machineId: string, macMachineId?: string): string {
  const prefix = checksumPrefix(nowMs);
  return macMachineId ? `${prefix}${machineId}/${macMachineId}` : `${prefix}${machineId}`;
}
