/**
 * The in-memory map from a conversation anchor to the Cursor chat that holds it.
 * Deliberately short-lived: 64 entries with least-recently-used eviction, one hour
 * from the last successful turn, process memory only. Time comes in as an argument
 * (the caller's injected clock), so the cache itself holds no clock and no globals.
 * One cache belongs to one provider instance.
 *
 * @module
 */

/** Default capacity. */
export const RESUME_CACHE_CAPACITY = 64;
/** Default lifetime of an entry: one hour from its last update. */
export const RESUME_CACHE_TTL_MS = 60 * 60 * 1000;

/** Chat ids that may reach argv: letters, digits, hyphens and underscores, starting with a letter or digit. */
const SAFE_CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * Whether a chat id is safe to cache and to pass as `--resume <id>`.
 *
 * @param chatId A chat id from the CLI's output.
 * @returns True when it consists of letters, digits, `-` and `_` only (and does not start with `-` or `_`).
 *
 * @example
 * ```ts
 * import { isSafeChatId } from "./resume-cache.ts";
 *
 * console.assert(isSafeChatId("0ef42bbf-3b80-4bec-ac39-ca46531cbc47"));
 * console.assert(!isSafeChatId("abc; rm -rf ~"));
 * console.assert(!isSafeChatId("--force"));
 * ```
 */
export function isSafeChatId(chatId: string): boolean {
  return SAFE_CHAT_ID.test(chatId);
}

/** What the cache knows about one conversation's Cursor chat. */
export interface ResumeEntry {
  /** The Cursor chat id (always passes {@link isSafeChatId}). */
  readonly chatId: string;
  /** Fingerprint of the tools offered when the chat last ran. */
  readonly toolFingerprint: string;
  /** How many real user messages the chat has seen. */
  readonly userCount: number;
  /** Hash of those user messages. */
  readonly userDigest: string;
  /** How many prompt messages the chat has seen (its last request). */
  readonly messageCount: number;
  /** Hash of those messages. */
  readonly messageDigest: string;
  /** Canonical form of the reply the chat gave to that request. */
  readonly replyDigest: string;
  /** When the entry was last written (epoch milliseconds). */
  readonly updatedAtMs: number;
}

/** The result of a lookup. */
export type ResumeLookup =
  | { readonly status: "hit"; readonly entry: ResumeEntry }
  | { readonly status: "miss" }
  | { readonly status: "expired" };

/** The cache of one provider instance. */
export interface ResumeCache {
  /**
   * Looks an entry up; a hit becomes the most recently used, an expired entry is removed.
   *
   * @param key The conversation key.
   * @param nowMs The current time from the injected clock.
   * @returns The entry, or why there is none.
   */
  lookup(key: string, nowMs: number): ResumeLookup;
  /**
   * Stores an entry as the most recently used, evicting the least recently used
   * beyond capacity. Entries with an unsafe chat id are refused.
   *
   * @param key The conversation key.
   * @param entry The entry.
   * @returns Whether the entry was stored.
   */
  store(key: string, entry: ResumeEntry): boolean;
  /** Removes an entry. */
  evict(key: string): boolean;
  /** Whether an entry exists (without touching its recency or lifetime). */
  has(key: string): boolean;
  /** Number of entries. */
  readonly size: number;
}

/** Options of {@link createResumeCache}. */
export interface ResumeCacheOptions {
  /** Maximum entries (default 64). */
  readonly capacity?: number;
  /** Lifetime of an entry in milliseconds (default one hour). */
  readonly ttlMs?: number;
}

/**
 * Creates an empty resume cache for one provider instance.
 *
 * @param options Capacity and lifetime overrides.
 * @returns The cache.
 * @throws {RangeError} When the capacity or lifetime is not a positive number.
 *
 * @example
 * ```ts
 * import { createResumeCache } from "./resume-cache.ts";
 *
 * const cache = createResumeCache();
 * const entry = {
 *   chatId: "chat-1", toolFingerprint: "", userCount: 1, userDigest: "u", messageCount: 2,
 *   messageDigest: "m", replyDigest: "r", updatedAtMs: 0,
 * };
 * cache.store("key", entry);
 * console.assert(cache.lookup("key", 1_000).status === "hit");
 * console.assert(cache.lookup("key", 60 * 60 * 1000 + 1).status === "expired");
 * ```
 */
export function createResumeCache(options: ResumeCacheOptions = {}): ResumeCache {
  const capacity = options.capacity ?? RESUME_CACHE_CAPACITY;
  const ttlMs = options.ttlMs ?? RESUME_CACHE_TTL_MS;
  if (!(capacity >= 1) || !(ttlMs > 0)) {
    throw new RangeError(
      `Cannot create resume cache: capacity "${capacity}" and ttlMs "${ttlMs}" must be positive`,
    );
  }
  const entries = new Map<string, ResumeEntry>();
  return {
    lookup(key, nowMs) {
      const entry = entries.get(key);
      if (entry === undefined) return { status: "miss" };
      entries.delete(key);
      if (nowMs - entry.updatedAtMs > ttlMs) return { status: "expired" };
      entries.set(key, entry);
      return { status: "hit", entry };
    },
    store(key, entry) {
      if (!isSafeChatId(entry.chatId)) return false;
      entries.delete(key);
      entries.set(key, entry);
      while (entries.size > capacity) {
        const oldest = entries.keys().next();
        if (oldest.done) break;
        entries.delete(oldest.value);
      }
      return true;
    },
    evict(key) {
      return entries.delete(key);
    },
    has(key) {
      return entries.has(key);
    },
    get size() {
      return entries.size;
    },
  };
}
