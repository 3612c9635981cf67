/**
 * Protocol descriptors built on first use. A generated module (`src/gen/…_pb.ts`) builds
 * its whole file descriptor when it is imported: base64 decoding, parsing the embedded
 * `FileDescriptorProto` and one registry entry per message, field and enum. Over the
 * agent schema that is most of the package's import time, paid by every OpenCode start
 * even when no Cursor model is used.
 *
 * These functions have the signatures of `@bufbuild/protobuf/codegenv2`'s and return a
 * stand-in that builds the real descriptor on its first property access (and, for a
 * file, its imports first). The npm build points the compiled generated modules here
 * (scripts/build.ts), so the generated types and call sites stay as `buf generate`
 * writes them.
 *
 * @module
 */
import {
  enumDesc as buildEnumDesc,
  fileDesc as buildFileDesc,
  type GenEnum,
  type GenMessage,
  type GenService,
  type GenServiceMethods,
  messageDesc as buildMessageDesc,
  serviceDesc as buildServiceDesc,
} from "@bufbuild/protobuf/codegenv2";
import {
  create,
  createFileRegistry,
  type DescFile,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/** The key a stand-in answers with its built descriptor. */
const BUILT = Symbol("built descriptor");

/**
 * A stand-in for the object `build` returns, built on the first access of any kind:
 * property reads and writes, `in`, key listing, prototype.
 */
function deferred<T extends object>(build: () => T): T {
  let value: T | undefined;
  const target = (): T => (value ??= build());
  return new Proxy({} as T, {
    get: (_, key) => (key === BUILT ? target() : Reflect.get(target(), key)),
    set: (_, key, next) => Reflect.set(target(), key, next),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // The stand-in's own target is empty: a proxy may not report a property it lacks
      // as non-configurable.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(target(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(target(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

/**
 * The descriptor behind a stand-in, or the value itself when it is not one.
 *
 * @param value A descriptor or a stand-in for one.
 * @returns The built descriptor.
 *
 * @example
 * ```ts
 * import { builtDescriptor, fileDesc } from "./lazy-descriptors.ts";
 * import { file_google_protobuf_struct } from "@bufbuild/protobuf/wkt";
 *
 * console.assert(builtDescriptor(file_google_protobuf_struct) === file_google_protobuf_struct);
 * ```
 */
export function builtDescriptor<T extends object>(value: T): T {
  const built: unknown = Reflect.get(value, BUILT);
  return built === undefined ? value : built as T;
}

/**
 * A file descriptor built on first use, like codegenv2's `fileDesc`.
 *
 * @param base64 The serialized `FileDescriptorProto`, base64-encoded.
 * @param imports The files it imports (stand-ins or built descriptors).
 * @returns A stand-in for the file descriptor.
 *
 * @example
 * ```ts
 * import { fileDesc } from "./lazy-descriptors.ts";
 *
 * // Parsed only now, at the first property read.
 * const file = fileDesc("CgdhLnByb3RvIhcKAUESEgoEdGV4dBgBIAEoCVIEdGV4dGIGcHJvdG8z");
 * console.assert(file.name === "a" && file.messages[0]?.fields.length === 1);
 * ```
 */
export function fileDesc(base64: string, imports?: DescFile[]): DescFile {
  return deferred(() => buildFileDesc(base64, imports?.map(builtDescriptor)));
}

/**
 * A file descriptor built on first use from its `FileDescriptorProto` as JSON, what the npm
 * build ships instead of codegenv2's base64 (scripts/lib/pre-decoded-descriptors.ts,
 * ADR 201): parsing JSON costs a fraction of decoding the binary form with reflection.
 *
 * @param json The `FileDescriptorProto` as JSON, json names restored and imports named.
 * @param imports The files it imports (stand-ins or built descriptors).
 * @returns A stand-in for the file descriptor.
 *
 * @example
 * ```ts
 * import { fileDescFromProto } from "./lazy-descriptors.ts";
 *
 * const json = '{"name":"a","messageType":[{"name":"A"}],"syntax":"proto3"}';
 * console.assert(fileDescFromProto(json).messages[0]?.typeName === "A");
 * ```
 */
export function fileDescFromProto(json: string, imports?: DescFile[]): DescFile {
  return deferred(() => {
    const root = create(FileDescriptorProtoSchema, JSON.parse(json));
    const files = imports?.map(builtDescriptor) ?? [];
    const registry = createFileRegistry(
      root,
      (name) => files.find((file) => file.proto.name === name),
    );
    const file = registry.getFile(root.name);
    if (file === undefined) throw new Error(`${root.name} is not in its own registry`);
    return file;
  });
}

/**
 * A message descriptor built on first use, like codegenv2's `messageDesc`.
 *
 * @param file The file that declares it.
 * @param path Its index in the file, then in each enclosing message.
 * @param paths Indexes of nested messages.
 * @returns A stand-in for the message descriptor.
 *
 * @example
 * ```ts
 * import { fileDesc, messageDesc } from "./lazy-descriptors.ts";
 *
 * const file = fileDesc("CgdhLnByb3RvIhcKAUESEgoEdGV4dBgBIAEoCVIEdGV4dGIGcHJvdG8z");
 * console.assert(messageDesc(file, 0).typeName === "A");
 * ```
 */
export function messageDesc<
  Shape extends Message,
  Opt extends { jsonType?: unknown; validType?: unknown } = {
    jsonType: undefined;
    validType: undefined;
  },
>(file: DescFile, path: number, ...paths: number[]): GenMessage<Shape, Opt> {
  return deferred(() => buildMessageDesc<Shape, Opt>(builtDescriptor(file), path, ...paths));
}

/**
 * An enum descriptor built on first use, like codegenv2's `enumDesc`.
 *
 * @param file The file that declares it.
 * @param path Its index in the file (or of the outermost enclosing message).
 * @param paths Indexes of nested messages, then of the enum.
 * @returns A stand-in for the enum descriptor.
 *
 * @example
 * ```ts
 * import { enumDesc, fileDesc } from "./lazy-descriptors.ts";
 *
 * const file = fileDesc("CgdlLnByb3RvKhoKAUUSCgoGRV9aRVJPEAASCQoFRV9PTkUQAWIGcHJvdG8z");
 * console.assert(enumDesc(file, 0).values.length === 2);
 * ```
 */
export function enumDesc<Shape extends number, JsonType extends JsonValue = JsonValue>(
  file: DescFile,
  path: number,
  ...paths: number[]
): GenEnum<Shape, JsonType> {
  return deferred(() => buildEnumDesc<Shape, JsonType>(builtDescriptor(file), path, ...paths));
}

/**
 * A service descriptor built on first use, like codegenv2's `serviceDesc`.
 *
 * @param file The file that declares it.
 * @param path Its index in the file.
 * @param paths Unused by services (kept for the same signature).
 * @returns A stand-in for the service descriptor.
 *
 * @example
 * ```ts
 * import { fileDesc, serviceDesc } from "./lazy-descriptors.ts";
 *
 * const file = fileDesc("CgdzLnByb3RvIgMKAUEyEAoBUxILCgFNEgIuQRoCLkFiBnByb3RvMw");
 * console.assert(serviceDesc(file, 0).methods[0]?.name === "M");
 * ```
 */
export function serviceDesc<T extends GenServiceMethods>(
  file: DescFile,
  path: number,
  ...paths: number[]
): GenService<T> {
  return deferred(() => buildServiceDesc<T>(builtDescriptor(file), path, ...paths));
}
