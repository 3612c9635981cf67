/**
 * The build step that ships the generated protocol files' descriptors pre-decoded: each
 * `fileDesc("<base64>", …)` of a compiled generated module becomes
 * `fileDescFromProto("<json>", …)` (src/protocol/lazy-descriptors.ts), the same
 * `FileDescriptorProto` as JSON. At the first use the runtime then parses JSON instead of
 * decoding protobuf binary with reflection, the larger part of building a descriptor
 * (ADR 201). Runs after `deferDescriptorImports`, on the modules it pointed at the lazy
 * functions.
 *
 * @module
 */
import { create, type DescFile, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

const FILE_DESC = /export const (file_\w+) = \/\*@__PURE__\*\/ fileDesc\("[A-Za-z0-9+/=_-]*"/g;
const LAZY_IMPORT = /import \{([^}]*)\} from ("[^"]*lazy-descriptors\.js");/;

/**
 * The `FileDescriptorProto` of a built file as JSON, checked to hydrate back exactly.
 *
 * @param file The file as the generated code builds it (json names restored, imports named).
 * @returns JSON that `create(FileDescriptorProtoSchema, JSON.parse(json))` turns back into
 *   a message with the same binary form as `file.proto`.
 * @throws {Error} when the descriptor holds what JSON cannot carry (64-bit integers,
 *   bytes, unknown fields) or does not round-trip byte for byte.
 */
export function descriptorJson(file: DescFile): string {
  const json = JSON.stringify(file.proto, (key, value: unknown) => {
    if (key === "$typeName") return undefined;
    if (key === "$unknown" || typeof value === "bigint" || value instanceof Uint8Array) {
      throw new Error(`${file.name}: ${key} cannot be pre-decoded as JSON`);
    }
    return value;
  });
  const hydrated = create(FileDescriptorProtoSchema, JSON.parse(json));
  const expected = toBinary(FileDescriptorProtoSchema, file.proto);
  const actual = toBinary(FileDescriptorProtoSchema, hydrated);
  if (expected.length !== actual.length || expected.some((byte, i) => actual[i] !== byte)) {
    throw new Error(`${file.name}: the pre-decoded descriptor does not round-trip`);
  }
  return json;
}

/**
 * Replaces the base64 file descriptors of one compiled generated module with JSON.
 *
 * @param source The module, its descriptor functions imported from `lazy-descriptors.js`.
 * @param protoJson The JSON of the file a `file_…` export describes ({@link descriptorJson}).
 * @returns The rewritten source, or the source unchanged when it builds no file descriptor.
 * @throws {Error} when a file descriptor is built but the lazy import is missing.
 */
export function preDecodeFileDescs(
  source: string,
  protoJson: (exportName: string) => string,
): string {
  let replaced = 0;
  const next = source.replace(FILE_DESC, (_, name: string) => {
    replaced++;
    return `export const ${name} = /*@__PURE__*/ fileDescFromProto(${
      JSON.stringify(protoJson(name))
    }`;
  });
  if (replaced === 0) return source;
  const match = next.match(LAZY_IMPORT);
  if (match === null) throw new Error("A file descriptor without the lazy descriptor import");
  const names = (match[1] ?? "").split(",").map((name) => name.trim()).filter((name) =>
    name !== "" && !(name === "fileDesc" && !/\bfileDesc\(/.test(next))
  );
  return next.replace(
    LAZY_IMPORT,
    `import { ${[...names, "fileDescFromProto"].join(", ")} } from ${match[2]};`,
  );
}
