/**
 * The names messages give the package, one set per registry it is published to. The
 * sources are the JSR package (deno.json `name`); the npm build rewrites the one line
 * that picks the set (`scripts/lib/registry-names.ts`), so an npm user reads
 * `ai-sdk-provider-cursor/node` and a JSR user `jsr:@ai-sdk-cursor/provider/node`.
 *
 * @module
 */

/** How one registry's users name the package. */
export interface PublishedNames {
  /** The registry: `jsr` or `npm`. */
  readonly registry: "jsr" | "npm";
  /** The package name on that registry. */
  readonly name: string;
  /** The import specifier of the Node entry (HTTP/2, processes, files). */
  readonly nodeEntry: string;
}

/** The package on JSR (deno.json `name`). */
export const JSR_NAMES: PublishedNames = Object.freeze({
  registry: "jsr",
  name: "@ai-sdk-cursor/provider",
  nodeEntry: "jsr:@ai-sdk-cursor/provider/node",
});

/** The package on npm (package.json `name`), which OpenCode configs also name. */
export const NPM_NAMES: PublishedNames = Object.freeze({
  registry: "npm",
  name: "ai-sdk-provider-cursor",
  nodeEntry: "ai-sdk-provider-cursor/node",
});

/**
 * The names of the build this module is part of. Keep this one line as it is: the npm
 * build replaces `JSR_NAMES` in it with `NPM_NAMES` and fails when it cannot find it.
 *
 * @example
 * ```ts
 * import { PUBLISHED_AS } from "./package-name.ts";
 *
 * console.assert(PUBLISHED_AS.nodeEntry.endsWith("/node"));
 * ```
 */
export const PUBLISHED_AS: PublishedNames = JSR_NAMES;
