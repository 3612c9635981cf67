/**
 * Byte helpers that every runtime lacks in one form or another (Node 20 has no
 * `Uint8Array.prototype.toHex`).
 *
 * @module
 */

const HEX_DIGITS = "0123456789abcdef";

/**
 * Encodes bytes as lowercase hex.
 *
 * @param bytes The bytes to encode.
 * @returns Two lowercase hex digits per byte.
 *
 * @example
 * ```ts
 * import { bytesToHex } from "./bytes.ts";
 *
 * console.assert(bytesToHex(new Uint8Array([0, 171])) === "00ab");
 * ```
 */
export function bytesToHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += HEX_DIGITS.charAt(byte >> 4) + HEX_DIGITS.charAt(byte & 15);
  return out;
}

/**
 * Decodes lowercase hex; returns `undefined` for odd length, uppercase or non-hex
 * characters so the caller can report the input it rejected.
 *
 * @param hex Lowercase hex digits.
 * @returns The bytes, or `undefined` when the text is not strict lowercase hex.
 *
 * @example
 * ```ts
 * import { hexToBytes } from "./bytes.ts";
 *
 * console.assert(hexToBytes("00ab")?.[1] === 171);
 * console.assert(hexToBytes("00AB") === undefined);
 * ```
 */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
  return bytes;
}

/**
 * SHA-256 of bytes or UTF-8 text as lowercase hex, through WebCrypto.
 *
 * @param input Bytes, or text hashed as UTF-8.
 * @returns 64 lowercase hex digits.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./bytes.ts";
 *
 * const hash = await sha256Hex("");
 * console.assert(hash.startsWith("e3b0c442"));
 * ```
 */
export async function sha256Hex(input: Uint8Array | string): Promise<string> {
  return bytesToHex(await sha256(input));
}

/**
 * SHA-256 of bytes or UTF-8 text, through WebCrypto.
 *
 * @param input Bytes, or text hashed as UTF-8.
 * @returns The 32-byte digest.
 */
export async function sha256(input: Uint8Array | string): Promise<Uint8Array> {
  const data = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const digest = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return new Uint8Array(digest);
}
