/**
 * The conversations a provider holds, keyed by the host's session: the Cursor
 * conversation id, the latest checkpoint, the frozen request context and, while tools
 * run on the host, the held Run. Bounded in count; held Runs are bounded in number and
 * idle time. Belongs to one provider instance (never module state).
 *
 * @module
 */
import { Conversation } from "./conversation.ts";

export { Conversation } from "./conversation.ts";

/** Limits of a store. */
export interface ConversationStoreOptions {
  /** Most conversations kept (least recently used dropped); default 256. */
  readonly maxConversations?: number;
  /** Most held Runs at once (oldest released); default 24. */
  readonly maxHeld?: number;
  /** A held Run idle this long is released; default 10 minutes. */
  readonly heldIdleMs?: number;
  readonly now: () => number;
  /** Releases a held Run (closes it). */
  readonly release: (held: unknown, reason: string) => void;
}

/** The store. */
export interface ConversationStore<Held> {
  get(key: string): Conversation<Held> | undefined;
  /** Starts a conversation; the group id is kept from the one it replaces unless given. */
  create(key: string, conversationId: string, groupId?: string): Conversation<Held>;
  /** Holds a Run for a conversation, enforcing the limits. */
  hold(conversation: Conversation<Held>, held: Held): void;
  /** Takes the held Run out (it is the caller's now). */
  take(conversation: Conversation<Held>): Held | undefined;
  /** Releases held Runs that have been idle too long. */
  sweep(): void;
  readonly size: number;
}

/**
 * Creates a conversation store.
 *
 * @param options Limits, clock and the release hook.
 * @returns The store.
 *
 * @example
 * ```ts
 * import { createConversationStore } from "./conversation-store.ts";
 *
 * const store = createConversationStore<string>({ now: Date.now, release: () => {} });
 * const conversation = store.create("ses_1", "c-1");
 * store.hold(conversation, "run");
 * console.assert(store.take(conversation) === "run" && store.take(conversation) === undefined);
 * ```
 */
export function createConversationStore<Held>(
  options: ConversationStoreOptions,
): ConversationStore<Held> {
  return new BoundedConversations<Held>(options);
}

/** The store: least recently used conversations first out, held Runs bounded. */
class BoundedConversations<Held> implements ConversationStore<Held> {
  readonly #options: ConversationStoreOptions;
  readonly #maxConversations: number;
  readonly #maxHeld: number;
  readonly #heldIdleMs: number;
  readonly #conversations = new Map<string, Conversation<Held>>();

  constructor(options: ConversationStoreOptions) {
    this.#options = options;
    this.#maxConversations = options.maxConversations ?? 256;
    this.#maxHeld = options.maxHeld ?? 24;
    this.#heldIdleMs = options.heldIdleMs ?? 10 * 60 * 1000;
  }

  get size(): number {
    return this.#conversations.size;
  }

  get(key: string): Conversation<Held> | undefined {
    const found = this.#conversations.get(key);
    if (found) {
      this.#conversations.delete(key);
      this.#conversations.set(key, found);
      found.touch(this.#options.now());
    }
    return found;
  }

  create(key: string, conversationId: string, groupId?: string): Conversation<Held> {
    const existing = this.#conversations.get(key);
    if (existing) this.#release(existing, "replaced");
    const conversation = new Conversation<Held>(
      key,
      conversationId,
      groupId ?? existing?.groupId ?? conversationId,
      this.#options.now(),
      {
        cursorMode: existing?.cursorMode,
        ...(existing?.snapshotVersion === undefined
          ? {}
          : { snapshotVersion: existing.snapshotVersion }),
      },
    );
    this.#conversations.delete(key);
    this.#conversations.set(key, conversation);
    for (const [oldKey, old] of this.#conversations) {
      if (this.#conversations.size <= this.#maxConversations) break;
      this.#release(old, "conversation-evicted");
      this.#conversations.delete(oldKey);
    }
    return conversation;
  }

  hold(conversation: Conversation<Held>, held: Held): void {
    this.#release(conversation, "superseded");
    conversation.hold(held, this.#options.now());
    const holding = [...this.#conversations.values()].filter((c) => c.held !== undefined)
      .sort((a, b) => a.heldSince - b.heldSince);
    for (const old of holding.slice(0, Math.max(0, holding.length - this.#maxHeld))) {
      this.#release(old, "held-limit");
    }
  }

  take(conversation: Conversation<Held>): Held | undefined {
    return conversation.take();
  }

  sweep(): void {
    const now = this.#options.now();
    for (const conversation of this.#conversations.values()) {
      if (conversation.held !== undefined && now - conversation.heldSince > this.#heldIdleMs) {
        this.#release(conversation, "hard-cap-expired");
      }
    }
  }

  #release(conversation: Conversation<Held>, reason: string): void {
    const held = conversation.take(reason);
    if (held !== undefined) this.#options.release(held, reason);
  }
}
