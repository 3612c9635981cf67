/**
 * Conversation snapshots as owner-only files, one per host session, in a folder under
 * OpenCode's cache root (`cursor-conversations/`). Writes are atomic (temporary file
 * and rename), so processes sharing the folder never see or leave half a snapshot; the
 * folder's total size is bounded, least recently used (by modification time, touched
 * on every read) removed first. A file another user could read is refused.
 *
 * A value's version is a hash of its bytes; a conditional write checks and replaces it
 * under a per-key lock file (`<name>.snap.lock`, created exclusively), so processes
 * finishing turns of one conversation at once never overwrite a newer snapshot.
 *
 * @module
 */
import { readdir, readFile, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import {
  SNAPSHOT_STORE_MAX_BYTES,
  type SnapshotRead,
  type SnapshotWrite,
  type VersionedSnapshotStore,
  versionMatches,
} from "../../../snapshot/store.ts";
import { withFileLock } from "./file-lock.ts";
import { bytesToHex } from "../../../core/bytes.ts";
import { openCodeCacheRoot, type OpenCodeHostEnvironment } from "../opencode-host.ts";
import { writePrivateFileAtomic } from "./private-file.ts";

/** The folder's name under the cache root. */
const FOLDER_NAME = "cursor-conversations";
const SUFFIX = ".snap";

/** Options for {@link createSnapshotFileStore}. */
export interface SnapshotFileStoreOptions {
  /** An explicit folder; default `<OpenCode cache root>/cursor-conversations`. */
  readonly directory?: string | undefined;
  /** Environment values for the default folder; default `process.env`. */
  readonly env?: OpenCodeHostEnvironment | undefined;
  /** Most bytes the folder's snapshots may take together; default 256 MiB. */
  readonly maxBytes?: number | undefined;
}

/**
 * Creates the file-backed snapshot store.
 *
 * @param options The folder (or the environment that decides it) and the size bound.
 * @returns The store, with the folder it uses.
 *
 * @example
 * ```ts
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createSnapshotFileStore } from "./snapshot-file-store.ts";
 *
 * const store = createSnapshotFileStore({ directory: join(tmpdir(), crypto.randomUUID()) });
 * await store.write("ses_1", new Uint8Array([1, 2, 3]));
 * const read = await store.read("ses_1");
 * console.assert(read.status === "found" && read.bytes.length === 3);
 * ```
 */
export function createSnapshotFileStore(
  options: SnapshotFileStoreOptions = {},
): VersionedSnapshotStore & { readonly directory: string } {
  const directory = options.directory ?? join(openCodeCacheRoot(options.env), FOLDER_NAME);
  const maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
  const pathOf = async (key: string) =>
    join(directory, (await sha256Hex(key)).slice(0, 40) + SUFFIX);
  return {
    directory,
    async read(key): Promise<SnapshotRead> {
      const path = await pathOf(key);
      let info;
      try {
        info = await stat(path);
      } catch (error) {
        if (isMissing(error)) return { status: "missing" };
        throw error;
      }
      if (!info.isFile()) return { status: "refused", reason: "not-a-file" };
      if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
        return { status: "refused", reason: `wrong-mode-${(info.mode & 0o777).toString(8)}` };
      }
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await readFile(path));
      } catch (error) {
        if (isMissing(error)) return { status: "missing" };
        throw error;
      }
      const now = new Date();
      await utimes(path, now, now).catch(() => {});
      return { status: "found", bytes, version: await versionOf(bytes) };
    },
    async write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      const path = await pathOf(key);
      const expected = writeOptions?.ifVersion;
      const replace = async (): Promise<SnapshotWrite> => {
        if (expected !== undefined && !versionMatches(await storedVersion(path), expected)) {
          return { status: "conflict" };
        }
        await writePrivateFileAtomic(path, bytes);
        return { status: "written", version: await versionOf(bytes) };
      };
      const result = expected === undefined
        ? await replace()
        : await withFileLock(`${path}.lock`, replace);
      if (result.status === "written") await enforceBound(directory, maxBytes, path);
      return result;
    },
    async version(key) {
      return await storedVersion(await pathOf(key));
    },
    async remove(key) {
      await rm(await pathOf(key), { force: true });
    },
  };
}

/**
 * The SHA-256 of the key in hex, through WebCrypto: the same names `node:crypto` gave,
 * without loading `node:crypto` when the package is imported (ADR 105).
 */
async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return bytesToHex(new Uint8Array(digest));
}

/** A value's version: the first 128 bits of its SHA-256 (each snapshot holds its save time). */
async function versionOf(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes.slice());
  return bytesToHex(new Uint8Array(digest)).slice(0, 32);
}

/** The version of the file's content, `undefined` when there is none. */
async function storedVersion(path: string): Promise<string | undefined> {
  try {
    return await versionOf(new Uint8Array(await readFile(path)));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Removes the least recently used snapshots until the folder fits (never `keep`). */
async function enforceBound(directory: string, maxBytes: number, keep: string): Promise<void> {
  const files: { path: string; size: number; mtimeMs: number }[] = [];
  for (const name of await readdir(directory)) {
    if (!name.endsWith(SUFFIX)) continue;
    const path = join(directory, name);
    try {
      const info = await stat(path);
      files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
    } catch {
      // removed by another process meanwhile
    }
  }
  let total = files.reduce((sum, file) => sum + file.size, 0);
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  for (const file of files) {
    if (total <= maxBytes) break;
    if (file.path === keep) continue;
    await rm(file.path, { force: true });
    total -= file.size;
  }
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null &&
    (error as { code?: unknown }).code === "ENOENT";
}
