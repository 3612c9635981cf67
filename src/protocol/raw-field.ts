/**
 * Reads the raw bytes of a length-delimited field straight from an encoded message,
 * so a value the client must send back verbatim (a checkpoint) is kept exactly as the
 * server sent it, unknown fields and field order included.
 *
 * @module
 */
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/**
 * Returns the bytes of the last occurrence of a length-delimited field.
 *
 * @param message The encoded message.
 * @param fieldNumber The field to read.
 * @returns The field's payload bytes, or `undefined` when absent or the message is malformed.
 *
 * @example
 * ```ts
 * import { BinaryWriter } from "@bufbuild/protobuf/wire";
 * import { rawFieldBytes } from "./raw-field.ts";
 *
 * const bytes = new BinaryWriter().tag(3, 2).bytes(new Uint8Array([7, 8])).finish();
 * console.assert(rawFieldBytes(bytes, 3)?.length === 2);
 * ```
 */
export function rawFieldBytes(message: Uint8Array, fieldNumber: number): Uint8Array | undefined {
  const reader = new BinaryReader(message);
  let found: Uint8Array | undefined;
  try {
    while (reader.pos < reader.len) {
      const [number, wireType] = reader.tag();
      if (number === fieldNumber && wireType === WireType.LengthDelimited) {
        found = reader.bytes();
      } else {
        reader.skip(wireType, number);
      }
    }
  } catch {
    return undefined;
  }
  return found;
}
