/**
 * Conversation snapshots in Deno KV, shared by every isolate of a Deno Deploy app (or
 * every local process opening one database file): a turn that lands on another isolate
 * continues warm. Locally, Deno needs `--unstable-kv`.
 *
 * @example
 * ```ts ignore
 * import { createCursor } from "@ai-sdk-cursor/provider";
 * import { createDenoKvSnapshotStore } from "@ai-sdk-cursor/provider/stores/deno-kv";
 *
 * const kv = await Deno.openKv();
 * const cursor = createCursor({ conversationSnapshots: createDenoKvSnapshotStore({ kv }) });
 * ```
 *
 * @module
 */
export {
  createDenoKvSnapshotStore,
  DENO_KV_SNAPSHOT_MAX_VALUE_BYTES,
  type DenoKvSnapshotStoreOptions,
  type KvAtomicLike,
  type KvEntryLike,
  type KvKeyLike,
  type KvLike,
} from "../src/adapters/deno/snapshot-kv-store.ts";
export type * from "../src/provider/public/public-snapshot-types.ts";
