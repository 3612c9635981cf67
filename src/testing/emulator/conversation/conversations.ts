/**
 * What the emulator remembers per conversation between Runs — and nothing else
 * survives a Run: the prompt of its last model call (the emulated prompt cache), the
 * hashes of the checkpoints it issued (to recognise altered ones), Cursor's mode and the
 * plans the client accepted (an `execute_plan_action` must name one). Bounded: least
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
  /** Cursor's mode (`agent`, `plan`, …): the user message's, or an approved switch. */
  mode: string;
  /** Plans the client accepted (CreatePlan `success`), by `plan_uri`: name and text. */
  readonly acceptedPlans: Map<string, { readonly name: string; readonly plan: string }>;
}

/** Accepted plans kept per conversation. */
export const MAX_PLANS_PER_CONVERSATION = 16;

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
      mode: "agent",
      acceptedPlans: new Map(),
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

  /** Records a plan the client accepted (the oldest are forgotten past the limit). */
  acceptPlan(
    id: string,
    uri: string,
    plan: { readonly name: string; readonly plan: string },
  ): void {
    const entry = this.ensure(id);
    entry.acceptedPlans.delete(uri);
    entry.acceptedPlans.set(uri, plan);
    while (entry.acceptedPlans.size > MAX_PLANS_PER_CONVERSATION) {
      const oldest = entry.acceptedPlans.keys().next().value;
      if (oldest === undefined) break;
      entry.acceptedPlans.delete(oldest);
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
