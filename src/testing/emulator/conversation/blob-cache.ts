/**
 * The server's own copy of a conversation's blobs, kept between Runs: what it SET into
 * the client's store, GOT from it or was given in `pre_fetched_blobs`. A warm
 * continuation on the same server then GETs only the blobs it lacks (AGENT-SCHEMA.md
 * §5.3: "the server asks for a blob referenced from the state it was given"; CAP saw a
 * Run with 154 SETs and 0 GETs). Bounded in bytes (least recently used conversations go
 * first) and per conversation by an idle expiry, as a server instance's memory is. With
 * the cache off the emulator is a cold server: every Run GETs every blob it needs, as on
 * a new instance (KV notes: GETs "seen on later turns").
 *
 * @module
 */
import type {
  ConversationStep,
  ConversationTurnStructure,
} from "../../../gen/agent/v1/conversation_state_pb.ts";
import type { UserMessage } from "../../../gen/agent/v1/user_message_pb.ts";
import type { RootJson, Transcript } from "./transcript.ts";
import type { HeldBlobs } from "../io/blob-channel.ts";

/** Bounds of the cache (defaults applied). */
export interface BlobCacheSettings {
  /** Most bytes held across conversations. */
  readonly maxBytes: number;
  /** A conversation untouched this long is forgotten. */
  readonly ttlMs: number;
}

/** Default bound: 64 MiB across conversations. */
export const DEFAULT_BLOB_CACHE_BYTES = 64 * 1024 * 1024;
/** Default idle expiry of a conversation's blobs: 10 minutes. */
export const DEFAULT_BLOB_CACHE_TTL_MS = 10 * 60 * 1000;

/**
 * Held blobs in decoded form, by id (hex): a warm server keeps its conversation parsed
 * rather than re-reading the whole history on every Run. Valid because ids are content
 * hashes: a held id always names the same bytes.
 */
export interface DecodedBlobs {
  readonly roots: Map<string, RootJson>;
  readonly turns: Map<string, ConversationTurnStructure>;
  readonly userMessages: Map<string, UserMessage>;
  readonly steps: Map<string, ConversationStep>;
}

/** One conversation's slice of the cache, as a Run sees it. */
export interface ConversationBlobs extends HeldBlobs {
  /** Decoded forms of held blobs. */
  readonly decoded: DecodedBlobs;
  /**
   * The conversation as the server left it at the final checkpoint it published (a copy),
   * when `checkpointHex` is that checkpoint's hash: a warm continuation starts from it.
   */
  settled(checkpointHex: string): Transcript | undefined;
  /** Keeps the conversation as of the final checkpoint with this hash. */
  settle(checkpointHex: string, transcript: Transcript): void;
}

interface Entry {
  readonly blobs: Map<string, Uint8Array>;
  readonly decoded: DecodedBlobs;
  settled: { readonly checkpointHex: string; readonly transcript: Transcript } | undefined;
  bytes: number;
  touchedAt: number;
}

function newEntry(now: number): Entry {
  return {
    blobs: new Map(),
    decoded: { roots: new Map(), turns: new Map(), userMessages: new Map(), steps: new Map() },
    settled: undefined,
    bytes: 0,
    touchedAt: now,
  };
}

/** A copy a Run may extend without touching the original (entries are shared, not mutated). */
function copyTranscript(transcript: Transcript): Transcript {
  return {
    roots: [...transcript.roots],
    turns: transcript.turns.map((turn) => ({ ...turn, steps: [...turn.steps] })),
  };
}

/** The cache of every conversation on this server. */
export class ServerBlobCache {
  readonly #settings: BlobCacheSettings;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(settings: BlobCacheSettings, now: () => number) {
    this.#settings = settings;
    this.#now = now;
  }

  /** The slice of one conversation (its idle expiry is checked and renewed here, once a Run). */
  forConversation(conversationId: string): ConversationBlobs {
    const entry = this.#entry(conversationId, true) ?? newEntry(0);
    return {
      get: (idHex) => this.#entries.get(conversationId)?.blobs.get(idHex),
      put: (idHex, data) => this.#put(conversationId, idHex, data),
      decoded: entry.decoded,
      settled: (checkpointHex) => {
        const settled = this.#entries.get(conversationId)?.settled;
        return settled?.checkpointHex === checkpointHex
          ? copyTranscript(settled.transcript)
          : undefined;
      },
      settle: (checkpointHex, transcript) => {
        const current = this.#entries.get(conversationId);
        if (current !== undefined) {
          current.settled = { checkpointHex, transcript: copyTranscript(transcript) };
        }
      },
    };
  }

  /**
   * Forgets blobs, as a restarted or different server instance would.
   *
   * @param conversationId One conversation; all when omitted.
   */
  forget(conversationId?: string): void {
    if (conversationId === undefined) {
      this.#entries.clear();
      this.#bytes = 0;
      return;
    }
    this.#drop(conversationId);
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Conversations with blobs held. */
  get conversations(): number {
    return this.#entries.size;
  }

  #entry(conversationId: string, create: boolean): Entry | undefined {
    const now = this.#now();
    let entry = this.#entries.get(conversationId);
    if (entry !== undefined && now - entry.touchedAt > this.#settings.ttlMs) {
      this.#drop(conversationId);
      entry = undefined;
    }
    if (entry === undefined) {
      if (!create) return undefined;
      entry = newEntry(now);
    }
    this.#entries.delete(conversationId);
    this.#entries.set(conversationId, entry);
    entry.touchedAt = now;
    return entry;
  }

  #put(conversationId: string, idHex: string, data: Uint8Array): void {
    if (data.length > this.#settings.maxBytes) return;
    const entry = this.#entry(conversationId, true);
    if (entry === undefined || entry.blobs.has(idHex)) return;
    entry.blobs.set(idHex, data);
    entry.bytes += data.length;
    this.#bytes += data.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#settings.maxBytes) break;
      if (oldest === conversationId) continue;
      this.#drop(oldest);
    }
    if (this.#bytes > this.#settings.maxBytes) this.#trim(entry);
  }

  /** Drops the conversation's oldest blobs until the bound holds (one huge conversation). */
  #trim(entry: Entry): void {
    for (const memo of Object.values(entry.decoded)) memo.clear();
    entry.settled = undefined;
    for (const [idHex, data] of entry.blobs) {
      if (this.#bytes <= this.#settings.maxBytes) break;
      entry.blobs.delete(idHex);
      entry.bytes -= data.length;
      this.#bytes -= data.length;
    }
  }

  #drop(conversationId: string): void {
    const entry = this.#entries.get(conversationId);
    if (entry === undefined) return;
    this.#entries.delete(conversationId);
    this.#bytes -= entry.bytes;
  }
}
