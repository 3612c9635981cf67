/**
 * What the emulated model makes of image bytes in a tool result: the type their first
 * bytes show (not what the client claimed) and their size, so a test can read from the
 * model's answer which image reached it.
 *
 * @module
 */

const SIGNATURES: readonly (readonly [string, readonly number[], number])[] = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0],
  ["image/jpeg", [0xff, 0xd8, 0xff], 0],
  ["image/gif", [0x47, 0x49, 0x46, 0x38], 0],
  ["image/webp", [0x57, 0x45, 0x42, 0x50], 8],
];

/**
 * The image type the bytes start with, or `undefined` for anything else.
 *
 * @param bytes The bytes.
 * @returns `image/png`, `image/jpeg`, `image/gif`, `image/webp` or `undefined`.
 */
export function imageTypeOf(bytes: Uint8Array): string | undefined {
  for (const [type, signature, offset] of SIGNATURES) {
    if (signature.every((byte, index) => bytes[offset + index] === byte)) {
      if (type !== "image/webp" || String.fromCharCode(...bytes.slice(0, 4)) === "RIFF") {
        return type;
      }
    }
  }
  return undefined;
}

/**
 * How the model describes bytes it received: `[image image/png, 68 bytes]`, or
 * `[68 bytes]` when they are no image. A claimed type that differs from the bytes' is
 * named too (`claimed image/jpeg`).
 *
 * @param bytes The bytes.
 * @param claimed The MIME type the client sent with them, if any.
 * @returns The label.
 */
export function imageLabel(bytes: Uint8Array, claimed?: string): string {
  const type = imageTypeOf(bytes);
  if (type === undefined) return `[${bytes.length} bytes]`;
  const mismatch = claimed !== undefined && claimed !== type ? `, claimed ${claimed}` : "";
  return `[image ${type}, ${bytes.length} bytes${mismatch}]`;
}
