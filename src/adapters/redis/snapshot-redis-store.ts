/**
 * Conversation snapshots in Redis or Valkey, through the `redis` client (an optional
 * peer dependency): one hash per host session under a namespaced key, holding the
 * compact binary snapshot (`d`) and its version (`v`). A conditional write is one Lua
 * script, so checking the version and replacing the value are a single atomic step on
 * the server: two instances finishing turns of one conversation at once never overwrite
 * each other. Every write renews the key's lifetime (24 h); a value above the size bound
 * is refused before it is sent.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { RESP_TYPES } from "redis";
import { CursorError } from "../../core/cursor-error.ts";
import type { SnapshotRead, SnapshotWrite, VersionedSnapshotStore } from "../../snapshot/store.ts";
import { SNAPSHOT_LIFETIME_MS } from "../../snapshot/persistence.ts";
import { COMPARE_AND_SET_SCRIPT, compareAndSetCondition } from "../redis-script/compare-and-set.ts";

/** The part of a `redis` (node-redis 5 or later) client this store uses. */
export interface RedisCommandClient {
  /** Sends one command; `typeMapping` decides how replies are decoded. */
  sendCommand(
    args: ReadonlyArray<string | Buffer>,
    options?: { readonly typeMapping?: Record<number, unknown> },
  ): Promise<unknown>;
}

/** Options for {@link createRedisSnapshotStore}. */
export interface RedisSnapshotStoreOptions {
  /** A connected client (`await createClient({ url }).connect()`); the caller closes it. */
  readonly client: RedisCommandClient;
  /** Prefix of every key; default `cursor-snapshot:`. */
  readonly prefix?: string | undefined;
  /** How long a value lives after its last write; default 24 h. */
  readonly ttlMs?: number | undefined;
  /** Largest snapshot written; default 16 MiB. The total is bounded by Redis's `maxmemory`. */
  readonly maxValueBytes?: number | undefined;
}

/** Default bound of one snapshot: 16 MiB. */
export const REDIS_SNAPSHOT_MAX_VALUE_BYTES = 16 * 1024 * 1024;

/** Replies as bytes, not text: a snapshot is binary. */
const AS_BUFFERS = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } };

/**
 * Creates a snapshot store over Redis or Valkey.
 *
 * @param options The connected client, the key prefix, the lifetime and the size bound.
 * @returns The store (versioned: safe to share between instances).
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createCursor } from "@ai-sdk-cursor/provider";
 * import { createRedisSnapshotStore } from "@ai-sdk-cursor/provider/stores/redis";
 *
 * const client = await createClient({ url: "redis://localhost:6379" }).connect();
 * const cursor = createCursor({
 *   conversationSnapshots: createRedisSnapshotStore({ client }),
 * });
 * ```
 */
export function createRedisSnapshotStore(
  options: RedisSnapshotStoreOptions,
): VersionedSnapshotStore {
  const client = options.client;
  const prefix = options.prefix ?? "cursor-snapshot:";
  const ttlMs = options.ttlMs ?? SNAPSHOT_LIFETIME_MS;
  const maxValueBytes = options.maxValueBytes ?? REDIS_SNAPSHOT_MAX_VALUE_BYTES;
  const keyOf = (key: string) => `${prefix}${key}`;
  return {
    async read(key): Promise<SnapshotRead> {
      const reply = await client.sendCommand(["HMGET", keyOf(key), "v", "d"], AS_BUFFERS);
      const [version, data] = Array.isArray(reply) ? reply : [];
      if (!(data instanceof Uint8Array)) return { status: "missing" };
      return {
        status: "found",
        bytes: new Uint8Array(data),
        version: version instanceof Uint8Array ? Buffer.from(version).toString() : undefined,
      };
    },
    async write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      if (bytes.length > maxValueBytes) {
        throw new CursorError(
          "invalid_argument",
          `A snapshot of ${bytes.length} bytes exceeds the store's bound of ${maxValueBytes} bytes`,
        );
      }
      const version = crypto.randomUUID();
      const written = await client.sendCommand([
        "EVAL",
        COMPARE_AND_SET_SCRIPT,
        "1",
        keyOf(key),
        compareAndSetCondition(writeOptions?.ifVersion),
        version,
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
        String(ttlMs),
      ]);
      return written === 1 ? { status: "written", version } : { status: "conflict" };
    },
    async remove(key) {
      await client.sendCommand(["DEL", keyOf(key)]);
    },
    async version(key) {
      const reply = await client.sendCommand(["HGET", keyOf(key), "v"]);
      return typeof reply === "string" ? reply : undefined;
    },
  };
}
