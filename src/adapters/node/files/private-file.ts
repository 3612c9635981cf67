/**
 * The two ways the project writes files, both owner-only (mode 0600, folders 0700) on
 * every create, including a re-create after the file was deleted or rotated away:
 *
 * - whole documents are replaced atomically: a temporary file in the same folder, then
 *   a rename over the target, so a reader (or a second writer) never sees half a file;
 * - log lines are appended with one `O_APPEND` write each, and the size cap is checked
 *   on the file itself, so several processes sharing one log keep it bounded and never
 *   tear a line.
 *
 * @module
 */
import {
  closeSync,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  writeSync,
} from "node:fs";
import { chmod, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import process from "node:process";

/** Owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Owner only. */
export const PRIVATE_FOLDER_MODE = 0o700;

/**
 * Replaces `path` with `data` atomically and owner-only: writes a temporary file next
 * to it (mode 0600), flushes it to disk, then renames it over `path`.
 *
 * @param path The file to replace (its folder is created, 0700, when missing).
 * @param data The whole new content.
 * @returns Resolves once the new content is in place.
 * @throws {Error} the file-system error when the write or the rename fails; the
 *   temporary file is removed then.
 *
 * @example
 * ```ts
 * import { readFileSync, statSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { writePrivateFileAtomic } from "./private-file.ts";
 *
 * const path = join(tmpdir(), `example-${crypto.randomUUID()}`, "settings.json");
 * await writePrivateFileAtomic(path, '{"ok":true}');
 * console.assert(readFileSync(path, "utf8") === '{"ok":true}');
 * console.assert(process.platform === "win32" || (statSync(path).mode & 0o777) === 0o600);
 * ```
 */
export async function writePrivateFileAtomic(
  path: string,
  data: string | Uint8Array,
): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const temporary = join(folder, `.${basename(path)}.${process.pid}.${randomSuffix()}.tmp`);
  try {
    const handle = await open(temporary, "wx", PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temporary, PRIVATE_FILE_MODE);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

/** Options for {@link appendPrivateLine}. */
export interface AppendLineOptions {
  /** The most bytes the file may hold; a line that would pass it empties the file first. */
  readonly capBytes: number;
  /** The first line after emptying the file, told the size it had. */
  readonly truncateNotice: (previousBytes: number) => string;
}

/**
 * Appends one line (ending in `\n`) to an owner-only file with a single `O_APPEND`
 * write. When the file (as it is on disk, whoever wrote it) plus the line would pass
 * the cap, the file is emptied first and the notice written: whole lines only, never a
 * cut one. The folder is created (0700) when missing.
 *
 * @param path The log file.
 * @param line The line, including its trailing newline.
 * @param options The size cap and the truncation notice.
 * @returns The file's size before this append (0 when it was new or emptied).
 * @throws {Error} the file-system error when the file cannot be opened or written.
 *
 * @example
 * ```ts
 * import { readFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { appendPrivateLine } from "./private-file.ts";
 *
 * const path = join(tmpdir(), `example-${crypto.randomUUID()}`, "app.log");
 * const options = { capBytes: 16, truncateNotice: () => "truncated\n" };
 * appendPrivateLine(path, "first line\n", options);
 * appendPrivateLine(path, "second line\n", options);
 * console.assert(readFileSync(path, "utf8") === "truncated\nsecond line\n");
 * ```
 */
export function appendPrivateLine(path: string, line: string, options: AppendLineOptions): number {
  const bytes = new TextEncoder().encode(line);
  let fd: number;
  try {
    fd = openSync(path, "a", PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") throw error;
    mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_FOLDER_MODE });
    fd = openSync(path, "a", PRIVATE_FILE_MODE);
  }
  try {
    const stat = fstatSync(fd);
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) restrict(fd);
    let size = stat.size;
    if (size > 0 && size + bytes.length > options.capBytes) {
      ftruncateSync(fd, 0);
      writeWhole(fd, new TextEncoder().encode(options.truncateNotice(size)));
      size = 0;
    }
    writeWhole(fd, bytes);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** Narrows a file someone opened up back to owner-only (not ours to change: left alone). */
function restrict(fd: number): void {
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch {
    // Owned by another user: writing still works, the mode is theirs.
  }
}

function writeWhole(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function randomSuffix(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(6)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}
