/**
 * What the emulator remembers per conversation between Runs — and nothing else
 * survives a Run: the prompt of its last model call (the emulated prompt cache) and the
 * hashes of the checkpoints it issued (to recognise altered ones). Bounded: least
 * recently used conversations are forgotten past the limit, and each conversation keeps
 * at most {@link MAX_ISSUED_PER_CONVERSATION} checkpoint hashes.
 *
 * @module
 */

/** Which checkpoint of a Run a hash belongs to. */
export type CheckpointKind = "staged" | "settled" | "final";

/** Remembered state of one conversation. */
export interface ConversationEntry {
  /** Bytes of the last model call's prompt (the cached prefix). */
  lastPrompt: Uint8Array | undefined;
  /** Checkpoint hash (hex) → kind. */
  readonly issued: Map<string, CheckpointKind>;
  runs: number;
  /** How often each limited `::fault` directive fired (`times=N`), by its key. */
  readonly faultFirings: Map<string, number>;
}

/** Checkpoint hashes kept per conversation. */
export const MAX_ISSUED_PER_CONVERSATION = 64;
/** Conversations kept by default. */
export const DEFAULT_CONVERSATION_LIMIT = 256;

/** The LRU of conversations. */
export class Conversations {
  readonly #limit: number;
  readonly #entries = new Map<string, ConversationEntry>();

  constructor(limit: number = DEFAULT_CONVERSATION_LIMIT) {
    this.#limit = limit;
  }

  /** The entry, refreshed as most recently used; `undefined` when unknown. */
  get(id: string): ConversationEntry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry;
  }

  /** The entry, created when unknown (evicting the least recently used past the limit). */
  ensure(id: string): ConversationEntry {
    const existing = this.get(id);
    if (existing !== undefined) return existing;
    const entry: ConversationEntry = {
      lastPrompt: undefined,
      issued: new Map(),
      runs: 0,
      faultFirings: new Map(),
    };
    this.#entries.set(id, entry);
    while (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    return entry;
  }

  /** Records an issued checkpoint. */
  issue(id: string, hashHex: string, kind: CheckpointKind): void {
    const entry = this.ensure(id);
    entry.issued.delete(hashHex);
    entry.issued.set(hashHex, kind);
    while (entry.issued.size > MAX_ISSUED_PER_CONVERSATION) {
      const oldest = entry.issued.keys().next().value;
      if (oldest === undefined) break;
      entry.issued.delete(oldest);
    }
  }

  /** Which conversation issued a checkpoint, and as which kind. */
  findIssued(hashHex: string): { conversationId: string; kind: CheckpointKind } | undefined {
    for (const [conversationId, entry] of this.#entries) {
      const kind = entry.issued.get(hashHex);
      if (kind !== undefined) return { conversationId, kind };
    }
    return undefined;
  }

  /** Number of conversations remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** Total bytes of cached prompts (for memory tests). */
  get cachedBytes(): number {
    let total = 0;
    for (const entry of this.#entries.values()) total += entry.lastPrompt?.length ?? 0;
    return total;
  }
}
