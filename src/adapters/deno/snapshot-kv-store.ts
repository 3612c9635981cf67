/**
 * Conversation snapshots in Deno KV (`Deno.openKv()`: a local SQLite file in
 * development, distributed on Deno Deploy). A Deno KV value holds at most 64 KiB, so a
 * snapshot is stored as chunks under a fresh id and a head entry names the id: readers
 * only ever follow a head, so they never see half a snapshot. A conditional write sets
 * the head in one `atomic()` operation checked against the head's versionstamp (the
 * value's version), so two instances finishing turns of one conversation at once never
 * overwrite each other; the loser's chunks are removed. Every entry expires after the
 * lifetime (24 h); a value above the size bound is refused.
 *
 * @module
 */
import { CursorError } from "../../core/cursor-error.ts";
import type { SnapshotRead, SnapshotWrite, VersionedSnapshotStore } from "../../snapshot/store.ts";
import { SNAPSHOT_LIFETIME_MS } from "../../snapshot/persistence.ts";

/** A Deno KV key. */
export type KvKeyLike = readonly (string | number | bigint | boolean | Uint8Array)[];

/** One entry read from Deno KV. */
export interface KvEntryLike {
  /** The value, `null` when the key holds none. */
  readonly value: unknown;
  /** The value's versionstamp, `null` when the key holds none. */
  readonly versionstamp: string | null;
}

/** The part of an atomic operation of `Deno.Kv` this store uses. */
export interface KvAtomicLike {
  /** Fails the commit unless each key still has the versionstamp (`null`: no value). */
  check(...checks: { key: KvKeyLike; versionstamp: string | null }[]): KvAtomicLike;
  /** Sets a value, expiring after `expireIn` ms. */
  set(key: KvKeyLike, value: unknown, options?: { expireIn?: number }): KvAtomicLike;
  /** Deletes a key. */
  delete(key: KvKeyLike): KvAtomicLike;
  /** Applies every mutation at once, or none when a check failed (`ok: false`). */
  commit(): Promise<{ readonly ok: boolean; readonly versionstamp?: string }>;
}

/** The part of `Deno.Kv` this store uses (what `await Deno.openKv()` returns). */
export interface KvLike {
  /** Reads one key. */
  get(key: KvKeyLike): Promise<KvEntryLike>;
  /** Reads up to ten keys at once. */
  getMany(keys: KvKeyLike[]): Promise<KvEntryLike[]>;
  /** Starts an atomic operation. */
  atomic(): KvAtomicLike;
}

/** Options for {@link createDenoKvSnapshotStore}. */
export interface DenoKvSnapshotStoreOptions {
  /** An open database (`await Deno.openKv()`); the caller closes it. */
  readonly kv: KvLike;
  /** First parts of every key; default `["cursor-snapshot"]`. */
  readonly prefix?: KvKeyLike | undefined;
  /** How long entries live after their write; default 24 h. */
  readonly ttlMs?: number | undefined;
  /** Largest snapshot written; default 16 MiB. */
  readonly maxValueBytes?: number | undefined;
}

/** Default bound of one snapshot: 16 MiB. */
export const DENO_KV_SNAPSHOT_MAX_VALUE_BYTES = 16 * 1024 * 1024;
/** Bytes per chunk: under Deno KV's 64 KiB value limit. */
const CHUNK_BYTES = 60 * 1024;
/** Chunks per atomic write (Deno KV bounds an operation's total size) and per getMany. */
const CHUNKS_PER_BATCH = 10;

/** What a head entry holds. */
interface Head {
  readonly id: string;
  readonly chunks: number;
  readonly size: number;
}

/**
 * Creates a snapshot store over Deno KV.
 *
 * @param options The open database, the key prefix, the lifetime and the size bound.
 * @returns The store (versioned: safe to share between instances).
 *
 * @example A snapshot larger than one Deno KV value (run with --unstable-kv)
 * ```ts
 * /// <reference lib="deno.unstable" />
 * import { createDenoKvSnapshotStore } from "./snapshot-kv-store.ts";
 *
 * const kv = await Deno.openKv(":memory:");
 * const store = createDenoKvSnapshotStore({ kv });
 * const written = await store.write("ses_1", new Uint8Array(100_000), { ifVersion: null });
 * const read = await store.read("ses_1");
 * console.assert(read.status === "found" && read.bytes.length === 100_000);
 * console.assert(read.status === "found" && written.status === "written" &&
 *   read.version === written.version);
 * kv.close();
 * ```
 */
export function createDenoKvSnapshotStore(
  options: DenoKvSnapshotStoreOptions,
): VersionedSnapshotStore {
  const kv = options.kv;
  const space: KvSpace = {
    kv,
    prefix: options.prefix ?? ["cursor-snapshot"],
    ttlMs: options.ttlMs ?? SNAPSHOT_LIFETIME_MS,
  };
  const maxValueBytes = options.maxValueBytes ?? DENO_KV_SNAPSHOT_MAX_VALUE_BYTES;
  return {
    async read(key): Promise<SnapshotRead> {
      const entry = await unlocked(() => kv.get(headKey(space, key)));
      const head = asHead(entry.value);
      if (head === undefined || entry.versionstamp === null) return { status: "missing" };
      const bytes = await readChunks(space, key, head);
      if (bytes === undefined) return { status: "missing" };
      return { status: "found", bytes, version: entry.versionstamp };
    },
    async write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      if (bytes.length > maxValueBytes) {
        throw new CursorError(
          "invalid_argument",
          `A snapshot of ${bytes.length} bytes exceeds the store's bound of ${maxValueBytes} bytes`,
        );
      }
      const previous = await unlocked(() => kv.get(headKey(space, key)));
      const expected = writeOptions?.ifVersion;
      if (conflicts(previous.versionstamp, expected)) return { status: "conflict" };
      return await writeSnapshot(space, key, bytes, previous, expected);
    },
    async remove(key) {
      const entry = await unlocked(() => kv.get(headKey(space, key)));
      const head = asHead(entry.value);
      await unlocked(() => kv.atomic().delete(headKey(space, key)).commit());
      if (head !== undefined) await removeChunks(space, chunkKeys(space, key, head));
    },
    async version(key) {
      const entry = await unlocked(() => kv.get(headKey(space, key)));
      return asHead(entry.value) === undefined ? undefined : entry.versionstamp ?? undefined;
    },
  };
}

/** Where a store keeps its entries: the database, the key prefix and the entries' lifetime. */
interface KvSpace {
  readonly kv: KvLike;
  readonly prefix: KvKeyLike;
  readonly ttlMs: number;
}

function headKey(space: KvSpace, key: string): KvKeyLike {
  return [...space.prefix, "head", key];
}

/** The keys of a head's chunks, in order. */
function chunkKeys(space: KvSpace, key: string, head: Head): KvKeyLike[] {
  return Array.from(
    { length: head.chunks },
    (_, index) => [...space.prefix, "chunk", key, head.id, index],
  );
}

/** The bytes a head's chunks hold; `undefined` when one is missing or they do not fit it. */
async function readChunks(
  space: KvSpace,
  key: string,
  head: Head,
): Promise<Uint8Array | undefined> {
  const bytes = new Uint8Array(head.size);
  let offset = 0;
  for (const batch of batches(chunkKeys(space, key, head))) {
    for (const chunk of await unlocked(() => space.kv.getMany(batch))) {
      // A chunk expired before its head: the value is gone as a whole.
      if (!(chunk.value instanceof Uint8Array)) return undefined;
      if (offset + chunk.value.length > head.size) return undefined;
      bytes.set(chunk.value, offset);
      offset += chunk.value.length;
    }
  }
  return offset === head.size ? bytes : undefined;
}

/**
 * Writes the bytes as chunks under a fresh id, then the head naming them, checked against
 * the head read before (when the write is conditional); removes the loser's chunks.
 */
async function writeSnapshot(
  space: KvSpace,
  key: string,
  bytes: Uint8Array,
  previous: KvEntryLike,
  expected: string | null | undefined,
): Promise<SnapshotWrite> {
  const head: Head = {
    id: crypto.randomUUID(),
    chunks: Math.ceil(bytes.length / CHUNK_BYTES),
    size: bytes.length,
  };
  const keys = chunkKeys(space, key, head);
  await writeChunks(space, keys, bytes);
  // Checked against the head read above: whoever set it since wins, this write loses.
  const operation = space.kv.atomic();
  if (expected !== undefined) {
    operation.check({ key: headKey(space, key), versionstamp: previous.versionstamp });
  }
  operation.set(headKey(space, key), head, { expireIn: space.ttlMs });
  const committed = await unlocked(() => operation.commit());
  if (!committed.ok || committed.versionstamp === undefined) {
    await removeChunks(space, keys);
    return { status: "conflict" };
  }
  const old = asHead(previous.value);
  if (old !== undefined) await removeChunks(space, chunkKeys(space, key, old)).catch(() => {});
  return { status: "written", version: committed.versionstamp };
}

/** Sets the chunks (one per key, in order) in batches of atomic writes. */
async function writeChunks(space: KvSpace, keys: KvKeyLike[], bytes: Uint8Array): Promise<void> {
  for (const batch of batches(keys.map((chunk, index) => ({ chunk, index })))) {
    const operation = space.kv.atomic();
    for (const { chunk, index } of batch) {
      const part = bytes.slice(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES);
      operation.set(chunk, part, { expireIn: space.ttlMs });
    }
    await unlocked(() => operation.commit());
  }
}

async function removeChunks(space: KvSpace, keys: KvKeyLike[]): Promise<void> {
  for (const batch of batches(keys)) {
    const operation = space.kv.atomic();
    for (const key of batch) operation.delete(key);
    await unlocked(() => operation.commit());
  }
}

/** Whether the stored head's versionstamp fails the write's condition. */
function conflicts(stored: string | null, expected: string | null | undefined): boolean {
  return expected !== undefined && stored !== null && stored !== expected;
}

function asHead(value: unknown): Head | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { id, chunks, size } = value as Record<string, unknown>;
  if (typeof id !== "string" || typeof chunks !== "number" || typeof size !== "number") {
    return undefined;
  }
  return { id, chunks, size };
}

/** How long a local database locked by another process is waited for. */
const LOCKED_WAIT_MS = 5000;

/**
 * Runs a database operation, again while a local database file is locked by another
 * process opening it (SQLite's `database is locked`; never on Deno Deploy).
 */
async function unlocked<T>(operation: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCKED_WAIT_MS;
  for (let pause = 2;; pause = Math.min(pause * 2, 50)) {
    try {
      return await operation();
    } catch (error) {
      const locked = error instanceof Error && /database is locked/.test(error.message);
      if (!locked || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNKS_PER_BATCH) {
    out.push(items.slice(start, start + CHUNKS_PER_BATCH));
  }
  return out;
}
