/**
 * The state of one emulator, shared by its routes and Runs: options, log, records,
 * violations, faults, auth, conversations, live Runs and the RunSSE registry. All state
 * lives here (nothing at module level), so two emulators never interfere.
 *
 * @module
 */
import { AuthState } from "../auth/auth-state.ts";
import { BidiRegistry } from "./bidi-registry.ts";
import { Conversations } from "../conversation/conversations.ts";
import { ServerBlobCache } from "../conversation/blob-cache.ts";
import { FaultController } from "../faults/faults.ts";
import { EmulatorLog } from "../observe/log.ts";
import { type EmulatorOptions, type ResolvedOptions, resolveOptions } from "../config/options.ts";
import { RunRecords } from "../observe/records.ts";
import { RunSession } from "../run/run-session.ts";
import type { RunSink } from "../io/run-writer.ts";
import { ruleEnforced, type RuleName, type Violation } from "../observe/violations.ts";

const MAX_VIOLATIONS = 10_000;

/**
 * Counts for memory and leak checks.
 *
 * @example
 * ```ts
 * import { createEmulator } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const stats = emulator.stats();
 *   console.assert(stats.liveRuns === 0 && stats.bidiBindings === 0);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface EmulatorStats {
  /** Runs still open. */
  readonly liveRuns: number;
  /** RunSSE bindings (live, or appends waiting for their RunSSE). */
  readonly bidiBindings: number;
  /** Conversations remembered for the prompt cache. */
  readonly conversations: number;
  /** Bytes of cached prompts. */
  readonly cachedPromptBytes: number;
  /** Bytes of blobs the server holds between Runs (0 for a cold server). */
  readonly serverBlobBytes: number;
  /** Log entries kept. */
  readonly logEntries: number;
  /** Run records kept. */
  readonly runRecords: number;
}

/** One emulator's state. */
export class EmulatorCore {
  readonly options: ResolvedOptions;
  readonly log: EmulatorLog;
  /** Conversations remembered for the prompt cache. */
  readonly conversations: Conversations;
  /** The server's blobs between Runs; `undefined` for a cold server. */
  readonly blobCache: ServerBlobCache | undefined;
  readonly faults = new FaultController();
  readonly auth: AuthState;
  readonly records: RunRecords;
  readonly bidi: BidiRegistry;
  readonly #violations: Violation[] = [];
  readonly #live = new Set<RunSession>();
  readonly #sweeper: ReturnType<typeof setInterval>;
  #runs = 0;
  /** The base URL the adapters serve (for GetServerConfig). */
  baseUrl: string | undefined;
  /** The HTTP/2 URL, when an HTTP/2 server runs. */
  http2Url: string | undefined;

  private constructor(options: ResolvedOptions, auth: AuthState) {
    this.options = options;
    this.auth = auth;
    this.log = new EmulatorLog(options.logLimit, options.logMessages);
    this.conversations = new Conversations(options.conversationLimit);
    this.blobCache = options.serverBlobCache === undefined
      ? undefined
      : new ServerBlobCache(options.serverBlobCache, options.now);
    this.records = new RunRecords(options.runLimit);
    this.bidi = new BidiRegistry(options.now);
    const period = Math.max(10, Math.min(250, options.appendGapTimeoutMs / 4));
    this.#sweeper = setInterval(() => this.#sweep(), period);
  }

  /** Builds an emulator core. */
  static async create(options: EmulatorOptions = {}): Promise<EmulatorCore> {
    const resolved = resolveOptions(options);
    const holder: { core?: EmulatorCore } = {};
    const auth = await AuthState.create(resolved.auth, resolved.now, (message) => {
      holder.core?.violate("pkce-mismatch", message, undefined);
    });
    holder.core = new EmulatorCore(resolved, auth);
    return holder.core;
  }

  /**
   * Records a violation that belongs to no live Run (auth, late appends, appends whose
   * RunSSE is not open yet).
   *
   * @returns Always `false` (no Run to end).
   */
  violate(rule: RuleName, message: string, requestId: string | undefined): boolean {
    if (!ruleEnforced(this.options.strict, rule)) return false;
    this.recordViolation({
      rule,
      message,
      runId: undefined,
      requestId,
      time: this.options.now(),
      endedRun: false,
    });
    return false;
  }

  /** Opens a Run on a transport. */
  openRun(transport: "sse" | "http2", requestId: string, sink: RunSink): RunSession {
    const session = new RunSession(this, {
      runId: `run-${++this.#runs}`,
      requestId,
      transport,
      sink,
    });
    this.#live.add(session);
    this.records.add(session.record);
    return session;
  }

  /** Called by a session once it has ended and cleaned up. */
  runEnded(session: RunSession): void {
    this.#live.delete(session);
    if (session.record.transport === "sse") this.bidi.ended(session.record.requestId);
  }

  /** Records a violation. */
  recordViolation(violation: Violation): void {
    this.#violations.push(violation);
    if (this.#violations.length > MAX_VIOLATIONS) this.#violations.shift();
  }

  /** Violations so far. */
  violations(): Violation[] {
    return [...this.#violations];
  }

  /** Forgets recorded violations. */
  clearViolations(): void {
    this.#violations.length = 0;
  }

  /** Live Runs. */
  liveRuns(): RunSession[] {
    return [...this.#live];
  }

  /** Counts for leak checks. */
  stats(): EmulatorStats {
    return {
      /** Runs still open. */
      liveRuns: this.#live.size,
      bidiBindings: this.bidi.size,
      /** Conversations remembered for the prompt cache. */
      conversations: this.conversations.size,
      /** Bytes of cached prompts. */
      cachedPromptBytes: this.conversations.cachedBytes,
      serverBlobBytes: this.blobCache?.bytes ?? 0,
      /** Log entries kept. */
      logEntries: this.log.size,
      /** Run records kept. */
      runRecords: this.records.all().length,
    };
  }

  #sweep(): void {
    const expired = this.bidi.sweep(
      this.options.appendGapTimeoutMs,
      Math.max(30_000, this.options.replyDeadlineMs),
    );
    for (const { session, missing } of expired) {
      const message =
        `BidiAppend seqno ${missing} never arrived within ${this.options.appendGapTimeoutMs} ms`;
      if (!session.violation("append-seqno-gap", message)) {
        session.fail({ code: "invalid_argument", message });
      }
    }
  }

  /** Ends every live Run (`unavailable`) and stops timers. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const live = [...this.#live];
    for (const session of live) {
      session.fail({ code: "unavailable", message: "Emulator is shutting down" });
    }
    await Promise.all(live.map((session) => session.done));
    this.bidi.clear();
  }
}
