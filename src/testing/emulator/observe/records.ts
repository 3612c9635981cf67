/**
 * Per-Run records: what a test asserts on after a Run (continuity, usage counters,
 * the ideal cache read, the request-context hash, execs, and which protocol variants
 * the client used). Kept in a bounded list.
 *
 * @module
 */
import type { RunVariants } from "./run-variants.ts";

/**
 * Usage counters of a Run, as sent in `turn_ended`.
 *
 * @example
 * ```ts
 * import type { RunCounters } from "../../mod.ts";
 *
 * const counters: RunCounters = { input: 120, output: 30, cacheRead: 100, cacheWrite: 20, reasoning: 0 };
 * console.assert(counters.input === counters.cacheRead + counters.cacheWrite);
 * ```
 */
export interface RunCounters {
  /** Input tokens over all model calls (includes cache read and write). */
  input: number;
  /** Output tokens (includes reasoning). */
  output: number;
  /** Tokens read from the emulated prompt cache. */
  cacheRead: number;
  /** Tokens written to the emulated prompt cache. */
  cacheWrite: number;
  /** Thinking tokens. */
  reasoning: number;
}

/**
 * Usage of one model call inside a Run.
 *
 * @example
 * ```ts
 * import type { ModelCallRecord } from "../../mod.ts";
 *
 * const call: ModelCallRecord = {
 *   promptTokens: 400,
 *   cacheRead: 380,
 *   cacheWrite: 20,
 *   uncached: 0,
 *   idealCacheRead: 380,
 *   outputTokens: 12,
 *   context: ["user: hi"],
 * };
 * console.assert(call.cacheRead / call.idealCacheRead === 1);
 * ```
 */
export interface ModelCallRecord {
  /** Tokens of this call's prompt (`ceil(bytes / 4)`). */
  readonly promptTokens: number;
  /** Tokens read from the emulated prompt cache. */
  readonly cacheRead: number;
  /** Tokens written to the emulated prompt cache. */
  readonly cacheWrite: number;
  /** Prompt tokens neither read nor written (prompts under the minimum cacheable size). */
  readonly uncached: number;
  /** What a perfectly continuing client would have read from cache. */
  readonly idealCacheRead: number;
  /** Tokens this call produced. */
  outputTokens: number;
  /**
   * What the model saw, one line per transcript message after the system prompt
   * (`role: text`; tool calls and results as JSON): the conversation the checkpoint carried
   * plus this turn so far. Tests read it to prove what Cursor's context holds.
   */
  readonly context: readonly string[];
}

/**
 * One exec the Run issued.
 *
 * @example
 * ```ts
 * import type { ExecRecord } from "../../mod.ts";
 *
 * const exec: ExecRecord = {
 *   id: 1,
 *   requestCase: "shellStreamArgs",
 *   toolCallId: "call_3f2a9c1e_1_0_0",
 *   resultCase: "exit",
 *   thrown: undefined,
 *   streamClosed: true,
 *   durationMs: 12,
 * };
 * console.assert(exec.streamClosed);
 * ```
 */
export interface ExecRecord {
  /** The request id on its channel. */
  readonly id: number;
  /** The exec request case, e.g. `shellStreamArgs`. */
  readonly requestCase: string;
  /** The tool call it belongs to (empty for the request-context probe). */
  readonly toolCallId: string;
  /** The terminal result case the client answered with. */
  resultCase: string | undefined;
  /** The error text when the client threw instead. */
  thrown: string | undefined;
  /** Whether the client sent `stream_close`. */
  streamClosed: boolean;
  /** Time from request to outcome. */
  durationMs: number | undefined;
}

/**
 * One interaction query the Run issued.
 *
 * @example
 * ```ts
 * import type { InteractionRecord } from "../../mod.ts";
 *
 * const query: InteractionRecord = {
 *   id: 0,
 *   queryCase: "askQuestionInteractionQuery",
 *   toolCallId: "call_3f2a9c1e_1_0_0",
 *   resultCase: "askQuestionInteractionResponse",
 * };
 * console.assert(query.id === 0);
 * ```
 */
export interface InteractionRecord {
  /** The request id on its channel. */
  readonly id: number;
  /** The interaction query case. */
  readonly queryCase: string;
  /** The tool call it belongs to (empty for the request-context probe). */
  readonly toolCallId: string;
  /** The terminal result case the client answered with. */
  resultCase: string | undefined;
}

/**
 * Everything recorded about one Run.
 *
 * @example Asserting on the Run a client just made
 * ```ts
 * import { startCursorEmulator } from "../../mod.ts";
 *
 * const emulator = await startCursorEmulator();
 * try {
 *   // … drive a turn with your client here …
 *   for (const run of emulator.runs()) {
 *     console.assert(run.counters.cacheRead <= run.idealCacheRead);
 *   }
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface RunRecord {
  /** The emulator's id for the Run (`run-1`, …). */
  readonly runId: string;
  /** The Run's request id (`x-request-id` / BidiRequestId). */
  readonly requestId: string;
  /** `sse` (RunSSE + BidiAppend) or `http2` (bidi Run). */
  readonly transport: "sse" | "http2";
  /** The conversation id from the run request. */
  conversationId: string;
  /** `warm`: a checkpoint was supplied for a conversation this emulator has served. */
  continuity: "warm" | "cold";
  /** A non-empty `conversation_state` came with the run request. */
  checkpointSupplied: boolean;
  /** The action case (`user_message_action`, `resume_action`, …). */
  action: string;
  /** Cursor's mode when the Run ended (`agent`, `plan`, …; an approved switch changes it). */
  mode: string;
  /** The requested model id. */
  modelId: string;
  /** Max mode was requested or implied by a 1M context. */
  maxMode: boolean;
  /** The requested parameter tuple. */
  parameters: Record<string, string>;
  /** The user message of the turn. */
  userText: string;
  /** The MIME types of the images the user message carries, in order. */
  images: string[];
  /** Turn number within the conversation (1 = first). */
  turn: number;
  /** The five `turn_ended` counters. */
  counters: RunCounters;
  /** Sum of the ideal cache reads of the Run's model calls. */
  idealCacheRead: number;
  /** Usage of each model call. */
  modelCalls: ModelCallRecord[];
  /** SHA-256 (hex) of the request context bytes the client answered with. */
  requestContextSha256: string;
  /** Size of the request context the client answered with. */
  requestContextBytes: number;
  /** Exec requests issued, with their outcome. */
  execs: ExecRecord[];
  /** Interaction queries issued, with their outcome. */
  interactions: InteractionRecord[];
  /**
   * KV traffic: SETs, GETs and misses; blobs the Run needed that the server already held
   * (`cacheHits`) or took from `pre_fetched_blobs` (`preFetched`) instead of a GET.
   */
  kv: { sets: number; gets: number; misses: number; cacheHits: number; preFetched: number };
  /** Checkpoints published. */
  checkpoints: number;
  /** Client heartbeats received. */
  clientHeartbeats: number;
  /** Non-heartbeat frames sent. */
  framesSent: number;
  /** Protocol variants the client used. */
  variants: RunVariants;
  /** Faults that applied (and where they fired). */
  faults: string[];
  /** How the Run ended (`running` while live). */
  status: "running" | "ok" | "error" | "dropped" | "canceled";
  /** The Connect error it ended with, if any. */
  error: { code: string; message: string } | undefined;
  /** Whether `turn_ended` was sent. */
  turnEnded: boolean;
  /**
   * The client's `cancel_action`, when it stopped the Run that way (a Run whose client only
   * dropped its stream has none): when it came, how many execs it left open, its `reason`.
   */
  clientCancel: ClientCancelRecord | undefined;
  /** Emulator clock time it opened. */
  readonly startedAt: number;
  /** Emulator clock time it ended. */
  endedAt: number | undefined;
}

/**
 * A client's `cancel_action` on a live Run.
 *
 * @example
 * ```ts
 * import type { ClientCancelRecord } from "../../mod.ts";
 *
 * const cancel: ClientCancelRecord = { at: 1_000, openExecs: 1, reason: "" };
 * console.assert(cancel.openExecs === 1);
 * ```
 */
export interface ClientCancelRecord {
  /** Emulator clock time it arrived. */
  readonly at: number;
  /** Execs still unanswered when it came (each was sent an abort). */
  readonly openExecs: number;
  /** The `reason` field (#1; Cursor's own clients leave it empty). */
  readonly reason: string;
}

/** Creates a record for a Run that just opened. */
export function newRunRecord(
  /** The emulator's id for the Run (`run-1`, …). */
  runId: string,
  /** The Run's request id (`x-request-id` / BidiRequestId). */
  requestId: string,
  /** `sse` (RunSSE + BidiAppend) or `http2` (bidi Run). */
  transport: "sse" | "http2",
  /** Emulator clock time it opened. */
  startedAt: number,
): RunRecord {
  return {
    runId,
    requestId,
    transport,
    /** The conversation id from the run request. */
    conversationId: "",
    continuity: "cold",
    /** A non-empty `conversation_state` came with the run request. */
    checkpointSupplied: false,
    action: "",
    mode: "",
    /** The requested model id. */
    modelId: "",
    /** Max mode was requested or implied by a 1M context. */
    maxMode: false,
    /** The requested parameter tuple. */
    parameters: {},
    /** The user message of the turn. */
    userText: "",
    images: [],
    turn: 0,
    /** The five `turn_ended` counters. */
    counters: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    idealCacheRead: 0,
    /** Usage of each model call. */
    modelCalls: [],
    requestContextSha256: "",
    /** Size of the request context the client answered with. */
    requestContextBytes: 0,
    /** Exec requests issued, with their outcome. */
    execs: [],
    /** Interaction queries issued, with their outcome. */
    interactions: [],
    /** KV traffic: SETs, GETs and misses. */
    kv: { sets: 0, gets: 0, misses: 0, cacheHits: 0, preFetched: 0 },
    /** Checkpoints published. */
    checkpoints: 0,
    /** Client heartbeats received. */
    clientHeartbeats: 0,
    /** Non-heartbeat frames sent. */
    framesSent: 0,
    /** Protocol variants the client used. */
    variants: { requestContextStreamClose: false },
    /** Faults that applied (and where they fired). */
    faults: [],
    /** How the Run ended (`running` while live). */
    status: "running",
    /** The Connect error it ended with, if any. */
    error: undefined,
    /** Whether `turn_ended` was sent. */
    turnEnded: false,
    clientCancel: undefined,
    startedAt,
    /** Emulator clock time it ended. */
    endedAt: undefined,
  };
}

/** Records kept by default. */
export const DEFAULT_RUN_LIMIT = 1000;

/** A bounded list of run records (oldest dropped first). */
export class RunRecords {
  readonly #limit: number;
  readonly #records: RunRecord[] = [];

  constructor(limit: number = DEFAULT_RUN_LIMIT) {
    this.#limit = limit;
  }

  /** Adds a record. */
  add(record: RunRecord): void {
    this.#records.push(record);
    if (this.#records.length > this.#limit) this.#records.shift();
  }

  /** Every kept record, oldest first (live objects; copy before mutating). */
  all(): RunRecord[] {
    return [...this.#records];
  }

  /** Forgets all records. */
  clear(): void {
    this.#records.length = 0;
  }
}
