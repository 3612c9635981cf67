/**
 * The CLI backend's resume cache as a file: `cursor-agent-resume.json` in OpenCode's
 * cache folder, written owner-only and atomically (temporary file, then rename). A file
 * another user could read is not trusted: it reads as refused and is replaced on the
 * next write.
 *
 * @module
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { ResumeCacheFile } from "../../../provider/cli/resume-persistence.ts";
import { openCodeCacheRoot, type OpenCodeHostEnvironment } from "../opencode-host.ts";
import { writePrivateFileAtomic } from "./private-file.ts";

/** Options for {@link createResumeCacheFile}. */
export interface ResumeCacheFileOptions {
  /** An explicit path; default `<OpenCode cache root>/cursor-agent-resume.json`. */
  readonly path?: string | undefined;
  /** Environment values for the default path; default `process.env`. */
  readonly env?: OpenCodeHostEnvironment | undefined;
}

/**
 * Creates the resume cache file.
 *
 * @param options The path, or the environment that decides it.
 * @returns The file.
 *
 * @example
 * ```ts
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createResumeCacheFile } from "./resume-store.ts";
 *
 * const file = createResumeCacheFile({ path: join(tmpdir(), crypto.randomUUID(), "resume.json") });
 * console.assert((await file.read()).status === "missing");
 * await file.write("{}");
 * console.assert((await file.read()).status === "found");
 * ```
 */
export function createResumeCacheFile(options: ResumeCacheFileOptions = {}): ResumeCacheFile {
  const path = options.path ??
    join(openCodeCacheRoot(options.env), "cursor-agent-resume.json");
  return {
    async read() {
      try {
        const info = await stat(path);
        if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
          return { status: "refused", reason: `wrong-mode-${(info.mode & 0o777).toString(8)}` };
        }
        return { status: "found", text: await readFile(path, "utf8") };
      } catch (error) {
        if ((error as { code?: unknown }).code === "ENOENT") return { status: "missing" };
        throw error;
      }
    },
    write: (text) => writePrivateFileAtomic(path, text),
  };
}
