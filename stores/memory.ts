/**
 * Conversation snapshots in this process's memory, for several provider instances in one
 * process (or tests): pass the same store to each `createCursor()`. Versioned like the
 * shared stores, so two instances finishing turns of one conversation at once never
 * overwrite each other. The web entry already keeps its snapshots in memory; this entry
 * is for sharing one store explicitly. It lives here rather than in the package root so
 * the root keeps exactly one `create*` export (OpenCode calls the first one it finds).
 *
 * @example Two provider instances sharing one store
 * ```ts
 * import { createCursor } from "../mod.ts";
 * import { createMemorySnapshotStore } from "./memory.ts";
 *
 * const conversationSnapshots = createMemorySnapshotStore({ maxBytes: 64 * 1024 * 1024 });
 * const a = createCursor({ accessToken: "token", conversationSnapshots });
 * const b = createCursor({ accessToken: "token", conversationSnapshots });
 * console.assert(a("gpt-5").provider === b("gpt-5").provider);
 * ```
 *
 * @module
 */
export {
  createMemorySnapshotStore,
  type MemorySnapshotStoreOptions,
} from "../src/snapshot/store.ts";
export type * from "../src/provider/public/public-snapshot-types.ts";
