/**
 * The map from a conversation anchor to the Cursor chat that holds it. Deliberately
 * short-lived: 64 entries with least-recently-used eviction, one hour from the last
 * successful turn. It lives in memory and, where the entry supplies a file, is written
 * through to an owner-only file so a restart keeps it (see {@link encodeResumeEntries}
 * and {@link decodeResumeEntries}: the same rules apply on load). Time comes in as an argument
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
  /** Every entry, least recently used first (for writing the cache out). */
  entries(): (readonly [string, ResumeEntry])[];
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
    entries() {
      return [...entries];
    },
    get size() {
      return entries.size;
    },
  };
}

/** The version of the resume file's format. */
const RESUME_FILE_VERSION = 1;

/**
 * The cache's live entries as the resume file's text (expired ones left out).
 *
 * @param cache The cache.
 * @param nowMs The current time.
 * @param ttlMs The entry lifetime (default one hour).
 * @returns JSON text: `{ version, entries: [[key, entry], …] }`, least recently used first.
 */
export function encodeResumeEntries(
  cache: ResumeCache,
  nowMs: number,
  ttlMs: number = RESUME_CACHE_TTL_MS,
): string {
  const live = cache.entries().filter(([, entry]) => nowMs - entry.updatedAtMs <= ttlMs);
  return JSON.stringify({ version: RESUME_FILE_VERSION, entries: live });
}

/** What {@link decodeResumeEntries} found. */
export type ResumeFileContent =
  | { readonly ok: true; readonly entries: [string, ResumeEntry][]; readonly rejected: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads the resume file's text with the cache's rules: each entry must have every field
 * with its type, a safe chat id, and an age within the lifetime (an entry from the
 * future is refused too); the newest `capacity` entries are kept.
 *
 * @param text The file's text.
 * @param nowMs The current time.
 * @param options Capacity and lifetime (the cache's defaults).
 * @returns The valid entries, least recently used first, and how many were refused.
 *
 * @example
 * ```ts
 * import { decodeResumeEntries } from "./resume-cache.ts";
 *
 * const entry = {
 *   chatId: "chat-1", toolFingerprint: "", userCount: 1, userDigest: "u", messageCount: 2,
 *   messageDigest: "m", replyDigest: "r", updatedAtMs: 0,
 * };
 * const text = JSON.stringify({ version: 1, entries: [["a", entry], ["b", { ...entry, chatId: "x; rm" }]] });
 * const read = decodeResumeEntries(text, 1_000);
 * console.assert(read.ok && read.entries.length === 1 && read.rejected === 1);
 * ```
 */
export function decodeResumeEntries(
  text: string,
  nowMs: number,
  options: ResumeCacheOptions = {},
): ResumeFileContent {
  const capacity = options.capacity ?? RESUME_CACHE_CAPACITY;
  const ttlMs = options.ttlMs ?? RESUME_CACHE_TTL_MS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not-json" };
  }
  if (typeof parsed !== "object" || parsed === null) return { ok: false, reason: "not-an-object" };
  const { version, entries } = parsed as { version?: unknown; entries?: unknown };
  if (version !== RESUME_FILE_VERSION) return { ok: false, reason: "foreign-version" };
  if (!Array.isArray(entries)) return { ok: false, reason: "no-entries" };
  const valid: [string, ResumeEntry][] = [];
  for (const item of entries) {
    const entry = Array.isArray(item) && item.length === 2 && typeof item[0] === "string"
      ? asEntry(item[1])
      : undefined;
    const age = entry === undefined ? NaN : nowMs - entry.updatedAtMs;
    if (entry !== undefined && age >= -60_000 && age <= ttlMs) valid.push([item[0], entry]);
  }
  const kept = valid.slice(Math.max(0, valid.length - capacity));
  return { ok: true, entries: kept, rejected: entries.length - valid.length };
}

function asEntry(value: unknown): ResumeEntry | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const strings = ["chatId", "toolFingerprint", "userDigest", "messageDigest", "replyDigest"];
  const numbers = ["userCount", "messageCount", "updatedAtMs"];
  if (!strings.every((name) => typeof v[name] === "string")) return undefined;
  if (!numbers.every((name) => Number.isFinite(v[name]) && (v[name] as number) >= 0)) {
    return undefined;
  }
  if (!isSafeChatId(v.chatId as string)) return undefined;
  return {
    chatId: v.chatId as string,
    toolFingerprint: v.toolFingerprint as string,
    userCount: v.userCount as number,
    userDigest: v.userDigest as string,
    messageCount: v.messageCount as number,
    messageDigest: v.messageDigest as string,
    replyDigest: v.replyDigest as string,
    updatedAtMs: v.updatedAtMs as number,
  };
}
