/**
 * Generated images staged as owner-only files in OpenCode's cache folder
 * (`<cache>/opencode/cursor-images/`), so the provider (which receives the bytes) and the
 * plugin's `cursor_image_save` tool (which commits them) share nothing but an opaque id,
 * even when they are loaded as separate modules. Each file holds the target path as one
 * JSON line, then the bytes. A take renames the file first, so an id is used once; staged
 * images older than a day are swept when the next one is staged.
 *
 * @module
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import process from "node:process";
import type { ImageStaging, StagedImage } from "../../../provider/direct/tools/media/image-save.ts";
import { openCodeCacheRoot, type OpenCodeHostEnvironment } from "../opencode-host.ts";
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "./private-file.ts";

/** How long an untaken image is kept. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where and how images are staged. */
export interface ImageStagingFileOptions {
  /** The folder; default `<OpenCode cache>/cursor-images`. */
  readonly folder?: string | undefined;
  /** Environment values for the default folder. */
  readonly env?: OpenCodeHostEnvironment | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * Creates the file-backed staging area.
 *
 * @param options The folder, or the environment that decides it.
 * @returns The staging area.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createImageStagingFile } from "./image-staging-file.ts";
 *
 * const staging = createImageStagingFile({ folder: join(mkdtempSync(join(tmpdir(), "img-")), "s") });
 * const id = staging.stage({ path: "/ws/a.png", bytes: new Uint8Array([1, 2]) });
 * const image = await staging.take(id);
 * console.assert(image?.path === "/ws/a.png" && image.bytes.length === 2);
 * console.assert((await staging.take(id)) === undefined);
 * ```
 */
export function createImageStagingFile(options: ImageStagingFileOptions = {}): ImageStaging {
  const folder = options.folder ?? join(openCodeCacheRoot(options.env), "cursor-images");
  const now = options.now ?? Date.now;
  return {
    stage(image: StagedImage): string {
      mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
      sweep(folder, now());
      const id = crypto.randomUUID();
      const header = new TextEncoder().encode(`${JSON.stringify(image.path)}\n`);
      const data = new Uint8Array(header.length + image.bytes.length);
      data.set(header, 0);
      data.set(image.bytes, header.length);
      writeFileSync(join(folder, id), data, { mode: PRIVATE_FILE_MODE, flag: "wx" });
      return id;
    },
    async take(id: string): Promise<StagedImage | undefined> {
      if (!ID_PATTERN.test(id)) return undefined;
      const taking = join(folder, `${id}.taking-${process.pid}`);
      try {
        renameSync(join(folder, id), taking);
      } catch {
        return undefined;
      }
      try {
        const data = new Uint8Array(await readFile(taking));
        const end = data.indexOf(10);
        if (end === -1) return undefined;
        const path: unknown = JSON.parse(new TextDecoder().decode(data.subarray(0, end)));
        return typeof path === "string" ? { path, bytes: data.slice(end + 1) } : undefined;
      } finally {
        await rm(taking, { force: true });
      }
    },
  };
}

function sweep(folder: string, now: number): void {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    try {
      if (now - statSync(path).mtimeMs > STALE_AFTER_MS) rmSync(path, { force: true });
    } catch {
      // Taken meanwhile.
    }
  }
}

/**
 * Writes a file, creating its folders (the image save tool's write).
 *
 * @param path The file.
 * @param bytes Its content.
 */
export async function writeFileWithFolders(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
}
