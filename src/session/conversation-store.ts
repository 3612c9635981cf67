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
  const maxConversations = options.maxConversations ?? 256;
  const maxHeld = options.maxHeld ?? 24;
  const heldIdleMs = options.heldIdleMs ?? 10 * 60 * 1000;
  const conversations = new Map<string, Conversation<Held>>();
  const releaseHeld = (conversation: Conversation<Held>, reason: string) => {
    const held = conversation.take(reason);
    if (held !== undefined) options.release(held, reason);
  };
  const evictBeyondLimit = () => {
    for (const [oldKey, old] of conversations) {
      if (conversations.size <= maxConversations) break;
      releaseHeld(old, "conversation-evicted");
      conversations.delete(oldKey);
    }
  };
  const store: ConversationStore<Held> = {
    get(key) {
      const found = conversations.get(key);
      if (found) {
        conversations.delete(key);
        conversations.set(key, found);
        found.touch(options.now());
      }
      return found;
    },
    create(key, conversationId, groupId) {
      const existing = conversations.get(key);
      if (existing) releaseHeld(existing, "replaced");
      const conversation = new Conversation<Held>(
        key,
        conversationId,
        groupId ?? existing?.groupId ?? conversationId,
        options.now(),
        {
          cursorMode: existing?.cursorMode,
          ...(existing?.snapshotVersion === undefined
            ? {}
            : { snapshotVersion: existing.snapshotVersion }),
        },
      );
      conversations.delete(key);
      conversations.set(key, conversation);
      evictBeyondLimit();
      return conversation;
    },
    hold(conversation, held) {
      releaseHeld(conversation, "superseded");
      conversation.hold(held, options.now());
      const holding = [...conversations.values()].filter((c) => c.held !== undefined).sort((a, b) =>
        a.heldSince - b.heldSince
      );
      for (const old of holding.slice(0, Math.max(0, holding.length - maxHeld))) {
        releaseHeld(old, "held-limit");
      }
    },
    take(conversation) {
      return conversation.take();
    },
    sweep() {
      const now = options.now();
      for (const conversation of conversations.values()) {
        if (conversation.held !== undefined && now - conversation.heldSince > heldIdleMs) {
          releaseHeld(conversation, "hard-cap-expired");
        }
      }
    },
    get size() {
      return conversations.size;
    },
  };
  return store;
}
