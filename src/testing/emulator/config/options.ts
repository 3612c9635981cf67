/**
 * Emulator options and their defaults.
 *
 * @module
 */
import type { ContextOverflowError } from "../model/turn/turn-state.ts";
import type { AuthOptions } from "../auth/auth-state.ts";
import type { CatalogModel } from "../catalog/catalog.ts";
import { defaultCatalog } from "../catalog/catalog-data.ts";
import { DEFAULT_CONVERSATION_LIMIT } from "../conversation/conversations.ts";
import {
  type BlobCacheSettings,
  DEFAULT_BLOB_CACHE_BYTES,
  DEFAULT_BLOB_CACHE_TTL_MS,
} from "../conversation/blob-cache.ts";
import { DEFAULT_LOG_LIMIT } from "../observe/log.ts";
import { DEFAULT_RUN_LIMIT } from "../observe/records.ts";
import type { Scenario } from "../model/scenario/scenario.ts";
import { resolveStrict, type RuleName, type StrictSettings } from "../observe/violations.ts";

/**
 * Options of {@link createEmulator} and `startCursorEmulator`.
 *
 * @example
 * ```ts
 * import type { EmulatorOptions } from "../../mod.ts";
 *
 * const options: EmulatorOptions = {
 *   strict: { disable: ["heartbeat-missing"] },
 *   auth: { accessTokenLifetimeMs: 60_000 },
 *   replyDeadlineMs: 10_000,
 *   log: { limit: 5_000 },
 * };
 * console.assert(options.replyDeadlineMs === 10_000);
 * ```
 */
export interface EmulatorOptions {
  /**
   * Strict mode (default on): record protocol violations and end the Run where the
   * service would. `false` turns every rule off; `{ disable: [...] }` turns some off.
   */
  readonly strict?: boolean | { readonly disable?: readonly RuleName[] };
  /** Accounts, tokens and login behaviour. */
  readonly auth?: AuthOptions;
  /** Replaces the built-in model catalogue. */
  readonly models?: readonly CatalogModel[];
  /** Replaces the directive model with a scripted one. */
  readonly scenario?: Scenario;
  /** How long an exec/KV/interaction request may stay unanswered (default 60 s). */
  readonly replyDeadlineMs?: number;
  /** Longest gap between client frames before `heartbeat-missing` (default 15 s). */
  readonly clientHeartbeatTimeoutMs?: number;
  /** Server heartbeat period while a Run is idle (default 5 s). */
  readonly heartbeatIntervalMs?: number;
  /** How long a BidiAppend sequence gap may stay open (default 2 s). */
  readonly appendGapTimeoutMs?: number;
  /** Characters per text delta (default 24). */
  readonly chunkChars?: number;
  /** Message log: `false` disables it; `limit` entries kept (default 20,000). */
  readonly log?: false | { readonly limit?: number; readonly keepMessages?: boolean };
  /** Run records kept (default 1,000). */
  readonly runLimit?: number;
  /** Conversations remembered for the prompt cache (default 256, least recently used dropped). */
  readonly conversationLimit?: number;
  /** Largest client frame or request body accepted (default 16 MiB). */
  readonly maxMessageBytes?: number;
  /** The clock (epoch ms); default `Date.now`. Token expiry follows it. */
  readonly now?: () => number;
  /**
   * Overrides the agent URL announced by `GetServerConfig` (default: the emulator's own; to a
   * request that came over the other scheme, the origin it reached).
   */
  readonly agentUrl?: string;
  /**
   * The HTTP/2 directive `GetServerConfig` announces (`http2_config`, field 7). Default
   * `"unspecified"` (HTTP/2 allowed); `"force-all-disabled"` tells clients to use the
   * HTTP/1.1 transports (RunSSE + BidiAppend). TRANSPORT-AUTH.md §1.1 has the enum; the
   * numbers of the `bidi` values are uncertain.
   */
  readonly http2Config?: Http2ConfigName;
  /**
   * The privacy mode `DashboardService/GetUserPrivacyMode` answers (default
   * `"no-storage"`, Privacy Mode on). Cursor's client sends `x-ghost-mode: false` only for
   * the two training-allowed modes.
   */
  readonly privacyMode?: PrivacyModeName;
  /**
   * When the final answer's blob (its assistant JSON root) is SET, where the sources
   * disagree. `"after-turn-ended"` (default): after `turn_ended`, before the final
   * checkpoint, as captures show (AGENT-SCHEMA.md §11 Open questions, 2. "Final
   * checkpoint use"). `"before-turn-ended"`: with the other final SETs, before
   * `turn_ended` (AGENT-SCHEMA.md §5.5 "Checkpoint timing and eligibility": "…final SETs →
   * turn_ended → …"). A client must keep its conversation with either.
   */
  readonly finalAnswerBlob?: FinalAnswerBlob;
  /**
   * The server's own copy of each conversation's blobs between Runs, where the sources
   * disagree on whether Cursor keeps one (AGENT-SCHEMA.md §5.3: GETs "seen on later turns";
   * CAP: a later Run with 154 SETs and 0 GETs). Default on (64 MiB, 10 minutes idle): a warm
   * continuation GETs only blobs the server lacks. `false` is a cold server (a new instance
   * every Run): every blob the checkpoint references is fetched with `get_blob`.
   * `forgetServerBlobs()` evicts at any time.
   */
  readonly serverBlobCache?: false | { readonly maxBytes?: number; readonly ttlMs?: number };
  /**
   * How a Run whose conversation exceeds the model's context window fails, where the
   * sources are silent on the detail (TRANSPORT-AUTH.md §3.4 lists both). The window is the
   * catalogue's for the model and its `context` parameter, 1M in Max Mode; the prompt of
   * each model call is checked before it streams. `"conversation-too-long"` (default):
   * `invalid_argument` with `ERROR_CONVERSATION_TOO_LONG`. `"max-tokens"`:
   * `invalid_argument` with `ERROR_MAX_TOKENS`. A client must treat both as an overflow.
   */
  readonly contextOverflow?: ContextOverflowError;
}

/**
 * Where the final answer's blob goes relative to `turn_ended` (see
 * {@link EmulatorOptions.finalAnswerBlob}).
 *
 * @example
 * ```ts
 * import { createEmulator, type FinalAnswerBlob } from "../../mod.ts";
 *
 * const finalAnswerBlob: FinalAnswerBlob = "before-turn-ended";
 * const emulator = await createEmulator({ finalAnswerBlob });
 * await emulator.close();
 * ```
 */
export type FinalAnswerBlob = "after-turn-ended" | "before-turn-ended";

/**
 * A value of Cursor's `Http2Config` enum (see {@link EmulatorOptions.http2Config}).
 *
 * @example
 * ```ts
 * import { createEmulator, type Http2ConfigName } from "../../mod.ts";
 *
 * const http2Config: Http2ConfigName = "force-all-disabled";
 * const emulator = await createEmulator({ http2Config });
 * await emulator.close();
 * ```
 */
export type Http2ConfigName =
  | "unspecified"
  | "force-all-disabled"
  | "force-all-enabled"
  | "force-bidi-disabled"
  | "force-bidi-enabled";

/**
 * A value of Cursor's `aiserver.v1.PrivacyMode` enum (see {@link EmulatorOptions.privacyMode}).
 *
 * @example
 * ```ts
 * import { createEmulator, type PrivacyModeName } from "../../mod.ts";
 *
 * const privacyMode: PrivacyModeName = "usage-data-training-allowed";
 * const emulator = await createEmulator({ privacyMode });
 * await emulator.close();
 * ```
 */
export type PrivacyModeName =
  | "unspecified"
  | "no-storage"
  | "no-training"
  | "usage-data-training-allowed"
  | "usage-codebase-training-allowed";

export type { ContextOverflowError };

/** Options with every default applied. */
export interface ResolvedOptions {
  readonly strict: StrictSettings;
  readonly auth: AuthOptions;
  readonly models: readonly CatalogModel[];
  readonly scenario: Scenario | undefined;
  readonly replyDeadlineMs: number;
  readonly clientHeartbeatTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly appendGapTimeoutMs: number;
  readonly chunkChars: number;
  readonly logLimit: number;
  readonly logMessages: boolean;
  readonly runLimit: number;
  readonly conversationLimit: number;
  readonly maxMessageBytes: number;
  readonly now: () => number;
  readonly agentUrl: string | undefined;
  readonly http2Config: Http2ConfigName;
  readonly privacyMode: PrivacyModeName;
  readonly finalAnswerBlob: FinalAnswerBlob;
  /** `undefined`: a cold server. */
  readonly serverBlobCache: BlobCacheSettings | undefined;
  readonly contextOverflow: ContextOverflowError;
}

/** Applies defaults. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const log = options.log === false ? { limit: 0 } : options.log ?? {};
  return {
    strict: resolveStrict(options.strict),
    auth: options.auth ?? {},
    models: options.models ?? defaultCatalog(),
    scenario: options.scenario,
    replyDeadlineMs: options.replyDeadlineMs ?? 60_000,
    clientHeartbeatTimeoutMs: options.clientHeartbeatTimeoutMs ?? 15_000,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 5_000,
    appendGapTimeoutMs: options.appendGapTimeoutMs ?? 2_000,
    chunkChars: options.chunkChars ?? 24,
    logLimit: log.limit ?? DEFAULT_LOG_LIMIT,
    logMessages: (options.log === false ? undefined : options.log?.keepMessages) ?? true,
    runLimit: options.runLimit ?? DEFAULT_RUN_LIMIT,
    conversationLimit: options.conversationLimit ?? DEFAULT_CONVERSATION_LIMIT,
    maxMessageBytes: options.maxMessageBytes ?? 16 * 1024 * 1024,
    now: options.now ?? Date.now,
    agentUrl: options.agentUrl,
    http2Config: options.http2Config ?? "unspecified",
    privacyMode: options.privacyMode ?? "no-storage",
    finalAnswerBlob: options.finalAnswerBlob ?? "after-turn-ended",
    contextOverflow: options.contextOverflow ?? "conversation-too-long",
    serverBlobCache: options.serverBlobCache === false ? undefined : {
      maxBytes: options.serverBlobCache?.maxBytes ?? DEFAULT_BLOB_CACHE_BYTES,
      ttlMs: options.serverBlobCache?.ttlMs ?? DEFAULT_BLOB_CACHE_TTL_MS,
    },
  };
}
