/**
 * The logging interface the core writes its diagnostic lines through. The file sink
 * lives in an adapter; the core never touches files.
 *
 * @module
 */

/** A typed diagnostic event as a sink sees it: its `kind` and plain JSON fields. */
export interface DiagnosticRecord {
  /** Which event this is (`finish`, `billing-step`, …); the other fields depend on it. */
  readonly kind: string;
}

/** Where diagnostic lines go. Implementations must never throw. */
export interface DebugLogger {
  /** Whether lines are recorded at all; callers skip building expensive lines when false. */
  readonly enabled: boolean;
  /** Records one line (no trailing newline). */
  line(text: string): void;
  /**
   * Records a typed event with its runbook text. Sinks without it receive the text
   * through {@link DebugLogger.line}; a structured sink (JSONL) writes the event itself.
   */
  record?(event: DiagnosticRecord, text: string): void;
}

/** A logger that records nothing. */
export const silentLogger: DebugLogger = Object.freeze({ enabled: false, line() {} });

/**
 * A logger that keeps lines in memory, for tests and for hosts that show logs themselves.
 *
 * @returns The logger and the array its lines are appended to.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "./logger.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * logger.line("hello");
 * console.assert(lines[0] === "hello");
 * ```
 */
export function createMemoryLogger(): { logger: DebugLogger; lines: string[] } {
  const lines: string[] = [];
  return { logger: { enabled: true, line: (text) => void lines.push(text) }, lines };
}

/** The events of the recovery log (`CURSOR_PROVIDER_RECOVERY_DEBUG`): metadata only. */
const RECOVERY_KINDS: ReadonlySet<string> = new Set([
  "run-interrupted",
  "resume",
  "rebase",
  "fresh-turn",
  "drain",
  "continuation",
  "held-run-released",
  "conversation-reset",
  "checkpoint-unusable",
  "outbound-run",
]);

/**
 * A logger that passes on only the recovery events (interrupted Runs, resumes, rebuilds,
 * drains, continuations, resets and outbound Runs): ids, counts, codes and reasons, never
 * prompt text or tool payloads. Untyped lines are dropped.
 *
 * @param logger The sink.
 * @returns The filtering logger.
 *
 * @example
 * ```ts
 * import { createMemoryLogger, recoveryOnlyLogger } from "./logger.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * const recovery = recoveryOnlyLogger(logger);
 * recovery.record?.({ kind: "drain" }, "drain outcome=turn-ended");
 * recovery.record?.({ kind: "finish" }, "finish: reason=stop");
 * recovery.line("anything else");
 * console.assert(lines.length === 1 && lines[0] === "drain outcome=turn-ended");
 * ```
 */
export function recoveryOnlyLogger(logger: DebugLogger): DebugLogger {
  if (!logger.enabled) return logger;
  return {
    enabled: true,
    line() {},
    record(event, text) {
      if (!RECOVERY_KINDS.has(event.kind)) return;
      if (logger.record) logger.record(event, text);
      else logger.line(text);
    },
  };
}
