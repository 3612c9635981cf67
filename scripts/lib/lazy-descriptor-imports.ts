/**
 * The build step that makes the npm package build protocol descriptors on first use:
 * each compiled generated module (`src/gen/…_pb.js`) imports its descriptor functions
 * from `src/protocol/lazy-descriptors.js` instead of `@bufbuild/protobuf/codegenv2`.
 * Only the import changes; the generated code and its `.d.ts` stay as tsc wrote them.
 *
 * @module
 */

/** The descriptor functions `src/protocol/lazy-descriptors.ts` provides. */
const DEFERRED = new Set(["fileDesc", "messageDesc", "enumDesc", "serviceDesc"]);
const CODEGEN_IMPORT = /import \{([^}]*)\} from "@bufbuild\/protobuf\/codegenv2";/g;

/**
 * Points one compiled generated module at the lazy descriptor functions.
 *
 * @param source The module's JavaScript as tsc wrote it.
 * @param lazyModule The relative specifier of `lazy-descriptors.js` from that module.
 * @returns The rewritten source, or the source unchanged when it builds no descriptor.
 * @throws {Error} when the module imports a codegenv2 function the lazy module lacks, so a
 *   new protoc-gen-es output fails the build instead of shipping half-deferred code.
 */
export function deferDescriptorImports(source: string, lazyModule: string): string {
  return source.replace(CODEGEN_IMPORT, (_, names: string) => {
    const imported = names.split(",").map((name) => name.trim()).filter((name) => name !== "");
    const missing = imported.filter((name) => !DEFERRED.has(name));
    if (missing.length > 0) {
      throw new Error(
        `Generated code imports ${missing.join(", ")} from @bufbuild/protobuf/codegenv2, ` +
          "which src/protocol/lazy-descriptors.ts does not provide",
      );
    }
    return `import { ${imported.join(", ")} } from ${JSON.stringify(lazyModule)};`;
  });
}
