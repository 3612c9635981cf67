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
  | {
    readonly status: "found";
    readonly bytes: Uint8Array;
    /**
     * The stored value's version, from a store that can compare and set (see
     * {@link SnapshotWriteOptions.ifVersion}); absent from a store that cannot.
     */
    readonly version?: string | undefined;
  }
  | { readonly status: "missing" }
  /** The store holds something it will not hand out (a file with the wrong mode, …). */
  | { readonly status: "refused"; readonly reason: string };

/** Conditions of a {@link ConversationSnapshotStore.write}. */
export interface SnapshotWriteOptions {
  /**
   * The version the writer continues from (`null`: none). When the key holds a value of
   * another version, nothing is written and the result is `conflict`; a key holding
   * nothing (never written, expired, evicted) accepts the write. Checked and written in
   * one atomic step. Omitted: unconditional. A store without versions ignores it.
   */
  readonly ifVersion?: string | null | undefined;
}

/** What a {@link ConversationSnapshotStore.write} did. */
export type SnapshotWrite =
  /** Written; `version` is the new value's version (absent from a store without versions). */
  | { readonly status: "written"; readonly version?: string | undefined }
  /** Another writer got there first: the stored value is not the expected version. */
  | { readonly status: "conflict" };

/**
 * A store of conversation snapshots (opaque bytes, one per host session). Writes
 * replace the whole value atomically; the store bounds its own size and may drop values
 * at any time: a missing snapshot only makes the next turn cold. Lifetime and
 * validation are the core's business.
 *
 * A store shared by several processes (Redis, Deno KV, one folder) gives every value a
 * version and honours {@link SnapshotWriteOptions.ifVersion} atomically: two processes
 * finishing turns of one conversation at once never overwrite each other, the later one
 * gets `conflict`, and {@link ConversationSnapshotStore.version} lets each turn see that
 * another process wrote a newer value. A store without versions (a `write` that resolves to nothing) is last
 * write wins, fit for one process only.
 *
 * @example A store over a key-value service (an edge KV namespace, Redis, …)
 * ```ts
 * import type { ConversationSnapshotStore } from "./store.ts";
 *
 * const kv = new Map<string, { version: string; bytes: Uint8Array }>(); // stand-in
 * const store: ConversationSnapshotStore = {
 *   async read(key) {
 *     const value = kv.get(`cursor-snapshot:${key}`);
 *     return value === undefined ? { status: "missing" } : { status: "found", ...value };
 *   },
 *   async write(key, bytes, options) {
 *     const current = kv.get(`cursor-snapshot:${key}`)?.version;
 *     const expected = options?.ifVersion;
 *     if (expected !== undefined && current !== undefined && current !== expected) {
 *       return { status: "conflict" };
 *     }
 *     const version = crypto.randomUUID();
 *     kv.set(`cursor-snapshot:${key}`, { version, bytes });
 *     return { status: "written", version };
 *   },
 *   async remove(key) {
 *     kv.delete(`cursor-snapshot:${key}`);
 *   },
 * };
 * const first = await store.write("ses_1", new Uint8Array([1]), { ifVersion: null });
 * console.assert(first?.status === "written");
 * const late = await store.write("ses_1", new Uint8Array([2]), { ifVersion: null });
 * console.assert(late?.status === "conflict");
 * ```
 */
export interface ConversationSnapshotStore {
  /** Reads the snapshot of a host session. */
  read(key: string): Promise<SnapshotRead>;
  /**
   * Replaces the snapshot of a host session (whole value, atomically), unless the
   * condition fails. A store without versions may resolve to nothing (written).
   */
  write(
    key: string,
    bytes: Uint8Array,
    options?: SnapshotWriteOptions,
  ): Promise<SnapshotWrite | void>;
  /** Removes the snapshot of a host session (no error when absent). */
  remove(key: string): Promise<void>;
  /**
   * The stored value's version without its bytes (`undefined` when the key holds
   * nothing). A versioned store offers it so each turn can check, cheaply, that no
   * other process wrote a newer snapshot.
   */
  version?(key: string): Promise<string | undefined>;
}

/**
 * A store that versions its values (every store this package ships): `write` always says
 * whether it wrote, and `version` is always there. Safe to share between instances.
 */
export interface VersionedSnapshotStore extends ConversationSnapshotStore {
  /** Replaces the snapshot unless the condition fails; says which happened. */
  write(key: string, bytes: Uint8Array, options?: SnapshotWriteOptions): Promise<SnapshotWrite>;
  /** The stored value's version without its bytes (`undefined` when the key holds nothing). */
  version(key: string): Promise<string | undefined>;
}

/**
 * Whether a stored version satisfies a write's condition.
 *
 * @param current The stored version (`undefined`: nothing stored).
 * @param expected The version the writer continues from (`null`: none; `undefined`: no condition).
 * @returns `true` when the write may go ahead.
 *
 * @example
 * ```ts
 * import { versionMatches } from "./store.ts";
 *
 * console.assert(versionMatches(undefined, null) && versionMatches(undefined, "v1"));
 * console.assert(!versionMatches("v1", null) && !versionMatches("v2", "v1"));
 * console.assert(versionMatches("v1", "v1") && versionMatches("v2", undefined));
 * ```
 */
export function versionMatches(
  current: string | undefined,
  expected: string | null | undefined,
): boolean {
  return expected === undefined || current === undefined || current === expected;
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
 * web entry's default). Versioned, so provider instances sharing one store in a process
 * never overwrite each other's newer snapshot.
 *
 * @param options The size bound.
 * @returns The store.
 *
 * @example
 * ```ts
 * import { createMemorySnapshotStore } from "./store.ts";
 *
 * const store = createMemorySnapshotStore({ maxBytes: 4 });
 * await store.write("a", new Uint8Array(3));
 * await store.write("b", new Uint8Array(3));
 * console.assert((await store.read("a")).status === "missing", "evicted");
 * console.assert((await store.read("b")).status === "found");
 * ```
 *
 * @example Two writers continuing from one version: the later one loses
 * ```ts
 * import { createMemorySnapshotStore } from "./store.ts";
 *
 * const store = createMemorySnapshotStore();
 * const first = await store.write("ses_1", new Uint8Array([1]), { ifVersion: null });
 * const base = first.status === "written" ? first.version ?? null : null;
 * await store.write("ses_1", new Uint8Array([2]), { ifVersion: base });
 * const late = await store.write("ses_1", new Uint8Array([3]), { ifVersion: base });
 * console.assert(late.status === "conflict");
 * ```
 */
export function createMemorySnapshotStore(
  options: MemorySnapshotStoreOptions = {},
): VersionedSnapshotStore {
  const maxBytes = options.maxBytes ?? SNAPSHOT_STORE_MAX_BYTES;
  const values = new Map<string, { readonly bytes: Uint8Array; readonly version: string }>();
  let size = 0;
  let written = 0;
  return {
    read(key) {
      const value = values.get(key);
      if (value === undefined) return Promise.resolve({ status: "missing" });
      values.delete(key);
      values.set(key, value);
      return Promise.resolve({
        status: "found",
        bytes: value.bytes.slice(),
        version: value.version,
      });
    },
    write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      const previous = values.get(key);
      if (!versionMatches(previous?.version, writeOptions?.ifVersion)) {
        return Promise.resolve({ status: "conflict" });
      }
      if (previous !== undefined) size -= previous.bytes.length;
      values.delete(key);
      const version = `m${++written}`;
      values.set(key, { bytes: bytes.slice(), version });
      size += bytes.length;
      for (const [oldKey, old] of values) {
        if (size <= maxBytes || oldKey === key) break;
        values.delete(oldKey);
        size -= old.bytes.length;
      }
      return Promise.resolve({ status: "written", version });
    },
    remove(key) {
      const previous = values.get(key);
      if (previous !== undefined) size -= previous.bytes.length;
      values.delete(key);
      return Promise.resolve();
    },
    version(key) {
      return Promise.resolve(values.get(key)?.version);
    },
  };
}
