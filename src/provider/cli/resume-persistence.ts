/**
 * Keeps the CLI backend's resume cache across restarts: loaded once before the first
 * turn (with every rule of the in-memory cache applied to what the file holds), and
 * written after each turn that changed it. Failures are logged, never thrown: without
 * the file the cache simply starts empty, as it always did.
 *
 * @module
 */
import type { DebugLogger } from "../../core/logger.ts";
import {
  decodeResumeEntries,
  encodeResumeEntries,
  type ResumeCache,
} from "../../cli/resume-cache.ts";

/** Where the resume cache is kept between processes (the Node entry: an owner-only file). */
export interface ResumeCacheFile {
  /** Reads the stored text. */
  read(): Promise<
    | { readonly status: "found"; readonly text: string }
    | { readonly status: "missing" }
    | { readonly status: "refused"; readonly reason: string }
  >;
  /** Replaces the stored text atomically. */
  write(text: string): Promise<void>;
}

/** Loading and saving one cache through one file. */
export interface ResumePersistence {
  /** Loads the file into the cache (once; later calls wait for the first). */
  load(): Promise<void>;
  /** Writes the cache when it changed since it was last loaded or written. */
  save(): Promise<void>;
}

/**
 * Binds a cache to its file.
 *
 * @param cache The provider's resume cache.
 * @param file The file.
 * @param logger Diagnostic lines (`cursor-agent: resume cache …`).
 * @param clock Milliseconds since the epoch.
 * @returns The loader and saver.
 */
export function createResumePersistence(
  cache: ResumeCache,
  file: ResumeCacheFile,
  logger: DebugLogger,
  clock: () => number,
): ResumePersistence {
  let loaded: Promise<void> | undefined;
  let written = "";
  const log = (text: string) => {
    if (logger.enabled) logger.line(`cursor-agent: resume cache ${text}`);
  };
  const load = async () => {
    let read;
    try {
      read = await file.read();
    } catch (error) {
      log(`restore failure reason=${reasonOf(error)}`);
      return;
    }
    // Nothing usable in the file: the next change replaces it, an empty cache writes nothing.
    written = encodeResumeEntries(cache, clock());
    if (read.status === "missing") return log("missing");
    if (read.status === "refused") return log(`invalid reason=${read.reason}`);
    const content = decodeResumeEntries(read.text, clock());
    if (!content.ok) return log(`invalid reason=${content.reason}`);
    for (const [key, entry] of content.entries) if (!cache.has(key)) cache.store(key, entry);
    written = read.text;
    log(`restored entries=${content.entries.length} rejected=${content.rejected}`);
  };
  return {
    load() {
      loaded ??= load();
      return loaded;
    },
    async save() {
      await this.load();
      const text = encodeResumeEntries(cache, clock());
      if (text === written) return;
      try {
        await file.write(text);
        written = text;
      } catch (error) {
        log(`save failure reason=${reasonOf(error)}`);
      }
    },
  };
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").slice(0, 200);
}
