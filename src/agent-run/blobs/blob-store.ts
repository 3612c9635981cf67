/**
 * The content-addressed blob store that answers Cursor's KV requests. It must outlive
 * a Run: the next turn's checkpoint references blobs stored during earlier Runs.
 *
 * @module
 */

/** A store of blobs keyed by the hex of their SHA-256 id. */
export interface BlobStore {
  /** Returns the blob, or `undefined` when it is not held. */
  get(idHex: string): Uint8Array | undefined;
  /** Stores a blob under its id. */
  set(idHex: string, data: Uint8Array): void;
  /** How many bytes are held. */
  readonly sizeBytes: number;
}

/** Options for {@link createMemoryBlobStore}. */
export interface MemoryBlobStoreOptions {
  /**
   * Most bytes held; least recently used blobs are dropped beyond it. Default 512 MiB:
   * large enough that a live conversation never loses a blob it still references.
   */
  readonly maxBytes?: number;
}

/**
 * An in-memory blob store with a least-recently-used byte bound.
 *
 * @param options The byte bound.
 * @returns A {@link BlobStore}.
 *
 * @example
 * ```ts
 * import { createMemoryBlobStore } from "./blob-store.ts";
 *
 * const store = createMemoryBlobStore();
 * store.set("ab", new Uint8Array([1]));
 * console.assert(store.get("ab")?.[0] === 1 && store.sizeBytes === 1);
 * ```
 */
export function createMemoryBlobStore(options: MemoryBlobStoreOptions = {}): BlobStore {
  const maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
  const blobs = new Map<string, Uint8Array>();
  let size = 0;
  return {
    get(idHex) {
      const data = blobs.get(idHex);
      if (data !== undefined) {
        blobs.delete(idHex);
        blobs.set(idHex, data);
      }
      return data;
    },
    set(idHex, data) {
      const previous = blobs.get(idHex);
      if (previous !== undefined) {
        size -= previous.length;
        blobs.delete(idHex);
      }
      blobs.set(idHex, data);
      size += data.length;
      for (const [key, value] of blobs) {
        if (size <= maxBytes) break;
        blobs.delete(key);
        size -= value.length;
      }
    },
    get sizeBytes() {
      return size;
    },
  };
}
