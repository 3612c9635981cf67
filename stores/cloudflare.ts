/**
 * Conversation snapshots in a Cloudflare Durable Object namespace, shared by every
 * invocation and isolate of a Worker: a turn that lands on another isolate continues
 * warm. Export {@link CursorSnapshotObject} from the Worker's main module, bind it in the
 * wrangler configuration (a SQLite-backed class), and pass the binding to
 * {@link createDurableObjectSnapshotStore}. Web standards only: no Cloudflare package.
 *
 * @example A Worker's main module
 * ```ts ignore
 * import { createCursor } from "ai-sdk-provider-cursor";
 * import {
 *   createDurableObjectSnapshotStore,
 *   type DurableObjectNamespaceLike,
 * } from "ai-sdk-provider-cursor/stores/cloudflare";
 *
 * export { CursorSnapshotObject } from "ai-sdk-provider-cursor/stores/cloudflare";
 *
 * interface Env {
 *   CURSOR_API_KEY: string;
 *   CURSOR_SNAPSHOTS: DurableObjectNamespaceLike;
 * }
 *
 * export default {
 *   async fetch(request: Request, env: Env): Promise<Response> {
 *     const cursor = createCursor({
 *       apiKey: env.CURSOR_API_KEY,
 *       conversationSnapshots: createDurableObjectSnapshotStore(env.CURSOR_SNAPSHOTS),
 *     });
 *     // … generateText({ model: cursor("composer-2"), … }) with a sessionId per chat
 *     return new Response("ok");
 *   },
 * };
 * ```
 *
 * @module
 */
export {
  createDurableObjectSnapshotStore,
  type DurableObjectNamespaceLike,
  type DurableObjectSnapshotStoreOptions,
  type DurableObjectStubLike,
} from "../src/adapters/cloudflare/snapshot-durable-object-store.ts";
export {
  CursorSnapshotObject,
  DURABLE_OBJECT_SNAPSHOT_MAX_VALUE_BYTES,
  type DurableObjectStateLike,
  type DurableObjectStorageLike,
} from "../src/adapters/cloudflare/snapshot-durable-object.ts";
export type * from "../src/provider/public/public-snapshot-types.ts";
