/**
 * The snapshot store types, for everyone who writes or passes a store: every provider
 * entry and every `./stores/*` entry re-exports them (`export type *`), so a store's
 * signature never names a type its entry does not export.
 *
 * @module
 */
export type {
  ConversationSnapshotStore,
  SnapshotRead,
  SnapshotWrite,
  SnapshotWriteOptions,
  VersionedSnapshotStore,
} from "../../snapshot/store.ts";
