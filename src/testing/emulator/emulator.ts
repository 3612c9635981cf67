/**
 * `createEmulator`: the web-standard Cursor emulator without sockets. It exposes the
 * fetch handler (every route but the bidi `Run`), the transport-neutral bidi-Run entry
 * the HTTP/2 adapter uses, and the test API (runs, violations, log, transcript, faults,
 * auth, stats). `startCursorEmulator` (adapters) puts it on loopback.
 *
 * @module
 */
import type { AuthState } from "./auth/auth-state.ts";
import { type BidiRunOpen, openBidiRun } from "./http/bidi-run.ts";
import { EmulatorCore, type EmulatorStats } from "./http/emulator-core.ts";
import { createFetchHandler } from "./http/fetch-handler.ts";
import type { FaultController } from "./faults/faults.ts";
import type { LogEntry, LogFilter } from "./observe/log.ts";
import type { EmulatorOptions } from "./config/options.ts";
import type { RunRecord } from "./observe/records.ts";
import type { RunSink } from "./io/run-writer.ts";
import type { Violation } from "./observe/violations.ts";

/**
 * Filters for {@link CursorEmulatorCore.runs}.
 *
 * @example
 * ```ts
 * import type { RunFilter } from "../mod.ts";
 *
 * const filter: RunFilter = { transport: "sse", status: "ok" };
 * console.assert(filter.status === "ok");
 * ```
 */
export interface RunFilter {
  /** Only Runs of this conversation. */
  readonly conversationId?: string;
  /** Only Runs on this transport. */
  readonly transport?: "sse" | "http2";
  /** Only Runs that ended (or are) in this state. */
  readonly status?: RunRecord["status"];
}

/**
 * The emulator without sockets.
 *
 * @example Serving the fetch handler yourself
 * ```ts
 * import { createEmulator } from "../mod.ts";
 *
 * const emulator = await createEmulator({ auth: { required: false } });
 * try {
 *   const response = await emulator.fetch(new Request("http://emulator.test/health"));
 *   console.assert(response.status === 200);
 *   await response.body?.cancel();
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface CursorEmulatorCore {
  /** Web-standard handler for every route except the bidi `Run` (which answers 464 here). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Inject faults: `faults.next(spec)`, `faults.forConversation(id, spec)`, `faults.forRequest(id, spec)`. */
  readonly faults: FaultController;
  /** Auth controls: `approveLogin`, `setTokenLifetime`, `revoke`, `revokeAll`, `issueTokens`, `events`. */
  readonly auth: AuthState;
  /** Snapshots of the per-Run records, oldest first. */
  runs(filter?: RunFilter): RunRecord[];
  /** Strict-mode violations so far. */
  violations(): Violation[];
  /** Logged RPCs and messages. */
  log(filter?: LogFilter): LogEntry[];
  /** A readable transcript of the log. */
  transcript(filter?: LogFilter): string;
  /** Counts for leak checks. */
  stats(): EmulatorStats;
  /** Forgets the log, run records and violations. */
  clear(): void;
  /**
   * Forgets the blobs the server keeps between Runs (one conversation, or all), as a
   * restarted or different server instance would: the next warm Run GETs every blob it
   * needs. See `serverBlobCache` in {@link EmulatorOptions}.
   */
  forgetServerBlobs(conversationId?: string): void;
  /** Resolves once no Run is live (rejects after `timeoutMs`, default 5 s). */
  idle(timeoutMs?: number): Promise<void>;
  /** Ends live Runs and stops timers. */
  close(): Promise<void>;
}

/**
 * Creates an emulator core.
 *
 * @param options Emulator options.
 * @returns The emulator (no sockets; see `startCursorEmulator`).
 *
 * @example
 * ```ts
 * import { createEmulator } from "../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const response = await emulator.fetch(
 *     new Request("http://emulator.test/aiserver.v1.AiService/AvailableModels", {
 *       method: "POST",
 *       headers: { "content-type": "application/json" },
 *       body: "{}",
 *     }),
 *   );
 *   console.assert(response.status === 401, "auth is required by default");
 *   await response.body?.cancel();
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export async function createEmulator(options: EmulatorOptions = {}): Promise<CursorEmulatorCore> {
  return (await buildEmulator(options)).emulator;
}

/** What the runtime adapters need besides the public emulator. */
export interface EmulatorInternals {
  readonly emulator: CursorEmulatorCore;
  /** Opens a bidi Run (the HTTP/2 adapter). */
  openBidiRun(headers: Headers, sink: RunSink): Promise<BidiRunOpen>;
  /** Tells the emulator where it is served (for `GetServerConfig`). */
  setUrls(urls: { readonly url?: string; readonly http2Url?: string }): void;
}

/**
 * Builds an emulator and the hooks its adapters use (not part of the public API).
 *
 * @param options Emulator options.
 * @returns The emulator and its adapter hooks.
 */
export async function buildEmulator(options: EmulatorOptions = {}): Promise<EmulatorInternals> {
  const core = await EmulatorCore.create(options);
  const fetch = createFetchHandler(core);
  const emulator: CursorEmulatorCore = {
    fetch,
    faults: core.faults,
    auth: core.auth,
    runs(filter = {}) {
      return core.records.all()
        .filter((record) =>
          (filter.conversationId === undefined ||
            record.conversationId === filter.conversationId) &&
          (filter.transport === undefined || record.transport === filter.transport) &&
          (filter.status === undefined || record.status === filter.status)
        )
        .map((record) => structuredClone(record));
    },
    violations: () => core.violations(),
    log: (filter) => core.log.entries(filter),
    transcript: (filter) => core.log.transcript(filter),
    stats: () => core.stats(),
    clear() {
      core.log.clear();
      core.records.clear();
      core.clearViolations();
    },
    forgetServerBlobs: (conversationId) => core.blobCache?.forget(conversationId),
    idle: (timeoutMs = 5000) => waitIdle(core, timeoutMs),
    close: () => core.close(),
  };
  return {
    emulator,
    openBidiRun: (headers, sink) => openBidiRun(core, headers, sink),
    setUrls(urls) {
      if (urls.url !== undefined) core.baseUrl = urls.url;
      if (urls.http2Url !== undefined) core.http2Url = urls.http2Url;
    },
  };
}

async function waitIdle(core: EmulatorCore, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (core.liveRuns().length > 0) {
    if (Date.now() > deadline) {
      throw new Error(
        `Emulator still has ${core.liveRuns().length} live Run(s) after ${timeoutMs} ms`,
      );
    }
    await Promise.race([
      Promise.all(core.liveRuns().map((run) => run.done)),
      new Promise((resolve) => setTimeout(resolve, 20)),
    ]);
  }
}
