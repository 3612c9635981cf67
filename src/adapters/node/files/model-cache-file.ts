/**
 * The model catalogue cache as a file: `cursor-models.json` in OpenCode's cache folder.
 * Writes go to an owner-only temporary file in the same folder and are renamed into
 * place, so a reader (or a second writer) never sees half a document.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ModelCacheStore } from "../../../catalog/model-cache.ts";
import { openCodeCacheRoot, type OpenCodeHostEnvironment } from "../opencode-host.ts";
import { writePrivateFileAtomic } from "./private-file.ts";

/** The cache file's name. */
export const MODEL_CACHE_FILE_NAME = "cursor-models.json";

/** Options for {@link createModelCacheFile}. */
export interface ModelCacheFileOptions {
  /** An explicit file path; default `<OpenCode cache root>/cursor-models.json`. */
  readonly path?: string | undefined;
  /** Environment values for the default path; default `process.env`. */
  readonly env?: OpenCodeHostEnvironment | undefined;
}

/** A {@link ModelCacheStore} backed by a file, with the path it uses. */
export interface ModelCacheFile extends ModelCacheStore {
  readonly path: string;
}

/**
 * Creates the file-backed catalogue store.
 *
 * @param options The path, or the environment that decides it.
 * @returns The store; `read()` resolves `undefined` when the file does not exist.
 *
 * @example
 * ```ts
 * import { createModelCacheFile } from "./model-cache-file.ts";
 *
 * const store = createModelCacheFile({ env: { XDG_CACHE_HOME: "/tmp/example-cache" } });
 * console.assert(store.path === "/tmp/example-cache/opencode/cursor-models.json");
 * ```
 */
export function createModelCacheFile(options: ModelCacheFileOptions = {}): ModelCacheFile {
  const path = options.path ?? join(openCodeCacheRoot(options.env), MODEL_CACHE_FILE_NAME);
  return {
    path,
    async read() {
      try {
        return await readFile(path, "utf8");
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    write: (text) => writePrivateFileAtomic(path, text),
  };
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null &&
    (error as { code?: unknown }).code === "ENOENT";
}
