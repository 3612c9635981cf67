/**
 * The conversations a provider holds, keyed by the host's session: the Cursor
 * conversation id, the latest checkpoint, the frozen request context and, while tools
 * run on the host, the held Run. Bounded in count; held Runs are bounded in number and
 * idle time. Belongs to one provider instance (never module state).
 *
 * @module
 */
import type { AdvertisedTool, MaterializedRequestContext } from "./request-context.ts";
import { type ServerBlobKnowledge, serverBlobKnowledge } from "./blob-push.ts";

/** What is known about one host conversation. */
export interface Conversation<Held> {
  readonly key: string;
  conversationId: string;
  /** Stable across conversation-id rotation (the host session). */
  readonly groupId: string;
  /** The latest checkpoint bytes, exactly as received. */
  checkpoint: Uint8Array | undefined;
  /** `usedTokens` of that checkpoint, when it had token details. */
  checkpointUsed: number | undefined;
  /** The category breakdown of that checkpoint. */
  checkpointCategories: Record<string, number> | undefined;
  /** The system prompt frozen at the conversation's first Run. */
  frozenSystemPrompt: string | undefined;
  /** Digests of the host messages the conversation holds, in order. */
  history: string[];
  /** The assistant text streamed in the last turn (to recognise it in host history). */
  lastAssistantText: string;
  /**
   * What this provider showed in a pass that never finished (the host interrupted it), so
   * the next prompt's copy of that partial answer is recognised as ours, not another
   * provider's.
   */
  interruptedText?: string | undefined;
  /** Cursor's mode for the next user message (`plan` after a declined plan; unset: agent). */
  cursorMode?: string | undefined;
  /**
   * The rule reminder Cursor's model was sent last in this conversation (a new conversation
   * has been sent none).
   */
  ruleReminder?: "edit-denied" | "edit-allowed" | undefined;
  /**
   * The turn in progress: what the conversation held when it began and what its finished
   * steps showed. A step interrupted after earlier tool steps of the same turn falls back
   * to it (no checkpoint holds those steps), so the next prompt's copy of the whole turn
   * is recognised as ours.
   */
  turnStart?:
    | { readonly history: string[]; readonly assistantText: string; shown: string }
    | undefined;
  /** The request context sent last, with the key of its inputs (reused while they are unchanged). */
  requestContext: (MaterializedRequestContext & { readonly key: string }) | undefined;
  /** Host tools advertised to Cursor so far (new ones are appended, none removed). */
  advertisedTools: AdvertisedTool[];
  /**
   * The host instruction sources (path → text) Cursor's model holds; `undefined` when
   * unknown (never persisted: the first Run after a restore reasserts them).
   */
  instructionSources?: Map<string, string> | undefined;
  /** SHA-256 (hex) of the tool-result images sent to Cursor (each is sent once). */
  readonly sentToolImages: Set<string>;
  /** A compaction Run finished: the next Run rebases on the host's summary. */
  compactionPending: boolean;
  /** The checkpoint the last written snapshot holds (nothing to write while it is current). */
  persistedCheckpoint: Uint8Array | undefined;
  /**
   * The version of the snapshot store's value this conversation continues from (the one
   * it restored or last wrote), when the store has versions; kept when the conversation
   * is replaced, since the store still holds that value.
   */
  snapshotVersion: string | undefined;
  /** What the server is believed to hold of the conversation's blobs (what to push). */
  readonly serverBlobs: ServerBlobKnowledge;
  /** Why the last held Run was released, for the continuation diagnostics. */
  heldReleaseReason: string | undefined;
  /** The held Run while the host runs tools. */
  held: Held | undefined;
  /** When the held Run was last touched. */
  heldSince: number;
  lastUsed: number;
}

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
    if (conversation.held === undefined) return;
    const held = conversation.held;
    conversation.held = undefined;
    conversation.heldReleaseReason = reason;
    options.release(held, reason);
  };
  const store: ConversationStore<Held> = {
    get(key) {
      const found = conversations.get(key);
      if (found) {
        conversations.delete(key);
        conversations.set(key, found);
        found.lastUsed = options.now();
      }
      return found;
    },
    create(key, conversationId, groupId) {
      const existing = conversations.get(key);
      if (existing) releaseHeld(existing, "replaced");
      const conversation: Conversation<Held> = {
        key,
        conversationId,
        groupId: groupId ?? existing?.groupId ?? conversationId,
        cursorMode: existing?.cursorMode,
        checkpoint: undefined,
        checkpointUsed: undefined,
        checkpointCategories: undefined,
        frozenSystemPrompt: undefined,
        history: [],
        lastAssistantText: "",
        requestContext: undefined,
        advertisedTools: [],
        sentToolImages: new Set(),
        compactionPending: false,
        persistedCheckpoint: undefined,
        snapshotVersion: existing?.snapshotVersion,
        serverBlobs: serverBlobKnowledge(),
        heldReleaseReason: undefined,
        held: undefined,
        heldSince: 0,
        lastUsed: options.now(),
      };
      conversations.delete(key);
      conversations.set(key, conversation);
      for (const [oldKey, old] of conversations) {
        if (conversations.size <= maxConversations) break;
        releaseHeld(old, "conversation-evicted");
        conversations.delete(oldKey);
      }
      return conversation;
    },
    hold(conversation, held) {
      releaseHeld(conversation, "superseded");
      conversation.held = held;
      conversation.heldSince = options.now();
      const holding = [...conversations.values()].filter((c) => c.held !== undefined).sort((a, b) =>
        a.heldSince - b.heldSince
      );
      for (const old of holding.slice(0, Math.max(0, holding.length - maxHeld))) {
        releaseHeld(old, "held-limit");
      }
    },
    take(conversation) {
      const held = conversation.held;
      conversation.held = undefined;
      return held;
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
