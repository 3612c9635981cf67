/**
 * The fake's chat store: chats are kept per workspace (like the real CLI, which keys
 * its store by a hash of the workspace path), so a resume from another workspace
 * finds nothing. The file-system store lives in the adapter; this module has the
 * interface and an in-memory store.
 *
 * @module
 */

/** One chat the fake created. */
export interface FakeChat {
  readonly id: string;
  readonly workspace: string;
  /** Every prompt the chat received, oldest first. */
  readonly prompts: readonly string[];
  readonly createdAtMs: number;
  readonly updatedAtMs: number;
}

/** Where the fake keeps chats. */
export interface FakeChatStore {
  load(workspace: string, chatId: string): FakeChat | undefined;
  save(chat: FakeChat): void;
  /** The most recently updated chat of a workspace. */
  latest(workspace: string): FakeChat | undefined;
}

/**
 * A short, stable, file-name-safe hash (FNV-1a, 32 bit, hex) of a text.
 *
 * @param text Any text.
 * @returns Eight hex digits.
 */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * Creates a store that lives as long as the process.
 *
 * @returns An empty store.
 */
export function createMemoryChatStore(): FakeChatStore {
  const chats = new Map<string, FakeChat>();
  const key = (workspace: string, id: string) => `${workspace}\u0000${id}`;
  return {
    load: (workspace, chatId) => chats.get(key(workspace, chatId)),
    save: (chat) => void chats.set(key(chat.workspace, chat.id), chat),
    latest: (workspace) =>
      [...chats.values()].filter((chat) => chat.workspace === workspace)
        .sort((a, b) => b.updatedAtMs - a.updatedAtMs)[0],
  };
}
