/**
 * Where conversation snapshots live between processes. The core only needs three
 * operations on opaque bytes keyed by the host session; the Node/Bun/Deno entry stores
 * them as owner-only files, the web entry keeps them in memory, and an edge app can
 * plug any key-value store in.
 *
 * @module
 */

/** What a store found for a key. */
export type SnapshotRead =
  | { readonly status: "found"; readonly bytes: Uint8Array }
  | { readonly status: "missing" }
  /** The store holds something it will not hand out (a file with the wrong mode, …). */
  | { readonly status: "refused"; readonly reason: string };

/**
 * A store of conversation snapshots (opaque bytes, one per host session). Writes
 * replace the whole value atomically; the store bounds its own total size (least
 * recently used first) and may drop values at any time: a missing snapshot only
 * makes the next turn cold. Lifetime and validation are the core's business.
 *
 * @example A store over a key-value service (an edge KV namespace, Redis, …)
 * ```ts
 * import type { ConversationSnapshotStore } from "./snapshot-store.ts";
 *
 * const kv = new Map<string, Uint8Array>(); // stand-in for the service
 * const store: ConversationSnapshotStore = {
 *   async read(key) {
 *     const bytes = kv.get(`cursor-snapshot:${key}`);
 *     return bytes === undefined ? { status: "missing" } : { status: "found", bytes };
 *   },
 *   async write(key, bytes) {
 *     kv.set(`cursor-snapshot:${key}`, bytes);
 *   },
 *   async remove(key) {
 *     kv.delete(`cursor-snapshot:${key}`);
 *   },
 * };
 * await store.write("ses_1", new Uint8Array([1]));
 * console.assert((await store.read("ses_1")).status === "found");
 * ```
 */
export interface ConversationSnapshotStore {
  /** Reads the snapshot of a host session. */
  read(key: string): Promise<SnapshotRead>;
  /** Replaces the snapshot of a host session (whole value, atomically). */
  write(key: string, bytes: Uint8Array): Promise<void>;
  /** Removes the snapshot of a host session (no error when absent). */
  remove(key: string): Promise<void>;
}

/** Default bound of a store's total size: 256 MiB. */
export const SNAPSHOT_STORE_MAX_BYTES = 256 * 1024 * 1024;

/** Options for {@link createMemorySnapshotStore}. */
export interface MemorySnapshotStoreOptions {
  /** Most bytes held; least recently used snapshots go first. Default 256 MiB. */
  readonly maxBytes?: number;
}

/**
 * An in-memory snapshot store: survives a provider instance, not the process (the
 * web entry's default).
 *
 * @param options The size bound.
 * @returns The store.
 *
 * @example
 * ```ts
 * import { createMemorySnapshotStore } from "./snapshot-store.ts";
 *
 * const store = createMemorySnapshotStore({ maxBytes: 4 });
 * await store.write("a", new Uint8Array(3));
 * await store.write("b", new Uint8Array(3));
 * console.assert((await store.read("a")).status === "missing", "evicted");
 * console.assert((await store.read("b")).status === "found");
 * ```
 */
export function createMemorySnapshotStore(
  options: MemorySnapshotStoreOptions = {},
): ConversationSnapshotStore {
  const maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
  const values = new Map<string, Uint8Array>();
  let size = 0;
  return {
    read(key) {
      const bytes = values.get(key);
      if (bytes === undefined) return Promise.resolve({ status: "missing" });
      values.delete(key);
      values.set(key, bytes);
      return Promise.resolve({ status: "found", bytes: bytes.slice() });
    },
    write(key, bytes) {
      const previous = values.get(key);
      if (previous !== undefined) size -= previous.length;
      values.delete(key);
      values.set(key, bytes.slice());
      size += bytes.length;
      for (const [oldKey, old] of values) {
        if (size <= maxBytes || oldKey === key) break;
        values.delete(oldKey);
        size -= old.length;
      }
      return Promise.resolve();
    },
    remove(key) {
      const previous = values.get(key);
      if (previous !== undefined) size -= previous.length;
      values.delete(key);
      return Promise.resolve();
    },
  };
}
