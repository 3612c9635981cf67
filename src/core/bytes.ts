/**
 * Byte helpers that every runtime lacks in one form or another (Node 20 has no
 * `Uint8Array.prototype.toHex`).
 *
 * @module
 */

const HEX_DIGITS = "0123456789abcdef";
/** Byte → its two lowercase hex digits as ASCII codes, at `2 * byte` and `2 * byte + 1`. */
const HEX_PAIRS = /* @__PURE__ */ (() => {
  const table = new Uint8Array(512);
  for (let byte = 0; byte < 256; byte++) {
    table[byte * 2] = HEX_DIGITS.charCodeAt(byte >> 4);
    table[byte * 2 + 1] = HEX_DIGITS.charCodeAt(byte & 15);
  }
  return table;
})();
/** ASCII code → nibble value, 255 for anything but `0-9a-f`. */
const NIBBLES = /* @__PURE__ */ (() => {
  const table = new Uint8Array(256).fill(255);
  for (let digit = 0; digit < 16; digit++) table[HEX_DIGITS.charCodeAt(digit)] = digit;
  return table;
})();

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
  if (bytes.length <= 64) {
    let out = "";
    for (const byte of bytes) out += HEX_DIGITS.charAt(byte >> 4) + HEX_DIGITS.charAt(byte & 15);
    return out;
  }
  const ascii = new Uint8Array(bytes.length * 2);
  writeHex(bytes, ascii, 0);
  return new TextDecoder().decode(ascii);
}

/**
 * Writes the lowercase hex ASCII of `bytes` into `out` at `offset` (two bytes per input
 * byte), with no intermediate string.
 *
 * @param bytes The bytes to encode.
 * @param out Where the ASCII digits go; needs `2 * bytes.length` bytes from `offset`.
 * @param offset The first index written.
 * @returns The index after the last digit written.
 *
 * @example
 * ```ts
 * import { writeHex } from "./bytes.ts";
 *
 * const out = new Uint8Array(4);
 * console.assert(writeHex(new Uint8Array([0, 171]), out, 0) === 4);
 * console.assert(new TextDecoder().decode(out) === "00ab");
 * ```
 */
export function writeHex(bytes: Uint8Array, out: Uint8Array, offset: number): number {
  let at = offset;
  for (let i = 0; i < bytes.length; i++) {
    const pair = (bytes[i] ?? 0) * 2;
    out[at++] = HEX_PAIRS[pair] ?? 0;
    out[at++] = HEX_PAIRS[pair + 1] ?? 0;
  }
  return at;
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
  if (hex.length % 2 !== 0) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    const high = NIBBLES[hex.charCodeAt(i * 2)] ?? 255;
    const low = NIBBLES[hex.charCodeAt(i * 2 + 1)] ?? 255;
    if (high === 255 || low === 255) return undefined;
    bytes[i] = high << 4 | low;
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
