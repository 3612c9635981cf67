/**
 * Conversation snapshots in Redis or Valkey, shared by every instance of an app (Node
 * processes behind a load balancer, serverless functions): a turn that lands on another
 * instance continues warm. Needs the `redis` package (an optional peer dependency).
 *
 * @example
 * ```ts ignore
 * import { createClient } from "redis";
 * import { createCursor } from "@ai-sdk-cursor/provider";
 * import { createRedisSnapshotStore } from "@ai-sdk-cursor/provider/stores/redis";
 *
 * const client = await createClient({ url: process.env.REDIS_URL }).connect();
 * const cursor = createCursor({ conversationSnapshots: createRedisSnapshotStore({ client }) });
 * ```
 *
 * @module
 */
export {
  createRedisSnapshotStore,
  REDIS_SNAPSHOT_MAX_VALUE_BYTES,
  type RedisCommandClient,
  type RedisSnapshotStoreOptions,
} from "../src/adapters/redis/snapshot-redis-store.ts";
export type * from "../src/provider/public/public-snapshot-types.ts";
