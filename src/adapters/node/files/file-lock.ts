/**
 * A lock between processes over one file: created exclusively (`O_EXCL`), removed when
 * the work is done. A lock left by a process that died is taken over once it is older
 * than the stale bound, so a crash never blocks the folder for good.
 *
 * @module
 */
import { mkdir, open, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { CursorError } from "../../../core/cursor-error.ts";
import { PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from "./private-file.ts";

/** Bounds of {@link withFileLock}. */
export interface FileLockOptions {
  /** Longest wait for the lock; default 5 s. */
  readonly waitMs?: number;
  /** A lock older than this is a dead process's and is taken over; default 10 s. */
  readonly staleMs?: number;
}

/**
 * Runs `work` while holding the lock file `path`.
 *
 * @param path The lock file (its folder is created when missing).
 * @param work What to do under the lock.
 * @param options The wait and stale bounds.
 * @returns What `work` returned.
 * @throws {CursorError} `timeout` when another process held the lock past the wait.
 *
 * @example
 * ```ts
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { withFileLock } from "./file-lock.ts";
 *
 * const lock = join(tmpdir(), crypto.randomUUID(), "a.lock");
 * const order: number[] = [];
 * await Promise.all([1, 2].map((n) => withFileLock(lock, async () => void order.push(n))));
 * console.assert(order.length === 2);
 * ```
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const waitMs = options.waitMs ?? 5000;
  const staleMs = options.staleMs ?? 10_000;
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const deadline = Date.now() + waitMs;
  for (let pause = 2;; pause = Math.min(pause * 2, 50)) {
    try {
      await (await open(path, "wx", PRIVATE_FILE_MODE)).close();
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EEXIST") throw error;
    }
    const age = await stat(path).then((info) => Date.now() - info.mtimeMs, () => 0);
    if (age > staleMs) {
      await rm(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new CursorError(
        "timeout",
        `Another process held the lock "${path}" for more than ${waitMs} ms`,
        { retryable: true },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  try {
    return await work();
  } finally {
    await rm(path, { force: true });
  }
}
