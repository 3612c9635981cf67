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
