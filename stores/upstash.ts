/**
 * Conversation snapshots in Upstash Redis over its REST API, for apps on edge runtimes
 * and serverless functions where a Redis connection is not an option: `fetch` only, no
 * client package. Every instance of the app continues a conversation warm; two finishing
 * turns of one conversation at once never overwrite each other (one Lua compare-and-set).
 *
 * @example
 * ```ts ignore
 * import { createCursor } from "@ai-sdk-cursor/provider";
 * import { createUpstashSnapshotStore } from "@ai-sdk-cursor/provider/stores/upstash";
 *
 * const cursor = createCursor({
 *   conversationSnapshots: createUpstashSnapshotStore({
 *     url: process.env.UPSTASH_REDIS_REST_URL ?? "",
 *     token: process.env.UPSTASH_REDIS_REST_TOKEN ?? "",
 *   }),
 * });
 * ```
 *
 * @module
 */
export {
  createUpstashSnapshotStore,
  UPSTASH_SNAPSHOT_MAX_VALUE_BYTES,
  type UpstashFetch,
  type UpstashSnapshotStoreOptions,
} from "../src/adapters/upstash/snapshot-upstash-store.ts";
export type * from "../src/provider/public/public-snapshot-types.ts";
