/**
 * The build step that makes the npm package's messages name the npm package: the
 * compiled `src/core/package-name.js` picks `NPM_NAMES` instead of the sources'
 * `JSR_NAMES`. Only that one line changes; its `.d.ts` stays as tsc wrote it.
 *
 * @module
 */

/** The compiled module the step rewrites, relative to the output folder. */
export const PACKAGE_NAME_MODULE = "src/core/package-name.js";
const PICK = /^export const PUBLISHED_AS = JSR_NAMES;$/m;

/**
 * Points the compiled package-name module at the npm names.
 *
 * @param source The module's JavaScript as tsc wrote it.
 * @returns The rewritten source.
 * @throws {Error} when the line that picks the names is not there exactly once, so a
 *   change to `src/core/package-name.ts` fails the build instead of shipping JSR names.
 *
 * @example
 * ```ts
 * import { useNpmNames } from "./registry-names.ts";
 *
 * const next = useNpmNames("export const PUBLISHED_AS = JSR_NAMES;\n");
 * console.assert(next === "export const PUBLISHED_AS = NPM_NAMES;\n");
 * ```
 */
export function useNpmNames(source: string): string {
  const found = source.match(new RegExp(PICK.source, "gm"))?.length ?? 0;
  if (found !== 1) {
    throw new Error(
      `${PACKAGE_NAME_MODULE}: expected one "export const PUBLISHED_AS = JSR_NAMES;" line, ` +
        `found ${found}`,
    );
  }
  return source.replace(PICK, "export const PUBLISHED_AS = NPM_NAMES;");
}
