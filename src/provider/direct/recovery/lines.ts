/**
 * The recovery lines of the debug log (see the cache-log runbook): interrupted Runs, fresh
 * turns that supersede a held Run, drains, resumes and rebases. Metadata only: counts,
 * ids, reasons and outcomes, never prompt text or tool payloads.
 *
 * @module
 */

import type { DebugLogger } from "../../../core/logger.ts";
import type { DrainOutcome } from "../diagnostics/events.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";

export type { DrainOutcome };

/**
 * Writes the line of a new user turn cancelling the held Run's outstanding execs.
 *
 * @param logger The debug logger.
 * @param facts The conversation, how many execs were cancelled and how many results the
 *   host history supplied instead.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "../../../core/logger.ts";
 * import { logFreshTurn } from "./lines.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * logFreshTurn(logger, { conversationId: "c-1", cancelled: 1, delivered: 0 });
 * console.assert(lines[0]?.startsWith("fresh turn: cancelled 1 pending exec(s)") === true);
 * ```
 */
export function logFreshTurn(
  logger: DebugLogger,
  facts: { conversationId: string; cancelled: number; delivered: number },
): void {
  emitDiagnostic(logger, { kind: "fresh-turn", ...facts });
}

/**
 * Writes the line of a superseded Run drained (or not).
 *
 * @param logger The debug logger.
 * @param facts The conversation, the outcome and how much unseen output was discarded.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "../../../core/logger.ts";
 * import { logDrain } from "./lines.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * logDrain(logger, { conversationId: "c-1", outcome: "turn-ended", discardedChars: 0 });
 * console.assert(lines[0]?.startsWith("drain outcome=turn-ended") === true);
 * ```
 */
export function logDrain(
  logger: DebugLogger,
  facts: { conversationId: string; outcome: DrainOutcome; discardedChars: number },
): void {
  emitDiagnostic(logger, { kind: "drain", ...facts });
}

/**
 * Writes the line of a turn's Run ending before `turn_ended` (dropped, reset, error).
 *
 * @param logger The debug logger.
 * @param facts The conversation, the error code, and what the turn had streamed.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "../../../core/logger.ts";
 * import { logRunInterrupted } from "./lines.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * logRunInterrupted(logger, {
 *   conversationId: "c-1",
 *   code: "network",
 *   streamedChars: 12,
 *   replaySafe: true,
 *   checkpoints: 0,
 * });
 * console.assert(lines[0]?.startsWith("Run interrupted: ") === true);
 * ```
 */
export function logRunInterrupted(logger: DebugLogger, facts: {
  conversationId: string;
  code: string;
  streamedChars: number;
  replaySafe: boolean;
  checkpoints: number;
}): void {
  emitDiagnostic(logger, { kind: "run-interrupted", ...facts });
}

/**
 * Writes the line of an interrupted fresh Run replayed on a new Run from the turn's
 * starting checkpoint.
 *
 * @param logger The debug logger.
 * @param facts The conversation, the replay number, which allowance it used, the failure
 *   code and the wait before it.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "../../../core/logger.ts";
 * import { logRebase } from "./lines.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * logRebase(logger, {
 *   conversationId: "c-1",
 *   attempt: 1,
 *   kind: "transport",
 *   code: "network",
 *   delayMs: 0,
 * });
 * console.assert(lines[0]?.startsWith("rebasing fresh Run: ") === true);
 * ```
 */
export function logRebase(logger: DebugLogger, facts: {
  conversationId: string;
  attempt: number;
  kind: string;
  code: string;
  delayMs: number;
}): void {
  const { kind, ...rest } = facts;
  emitDiagnostic(logger, { kind: "rebase", retry: kind, ...rest });
}

/**
 * Why a held Run could not take the host's tool results: its state lives in a request or
 * isolate that has ended (`missing-process-local-state`), or the Run failed (`remote-error`).
 *
 * @param error What delivering the results threw.
 * @returns The `heldRun=` reason.
 *
 * @example
 * ```ts
 * import { heldRunFailure } from "./lines.ts";
 *
 * const ended = new Error("This promise was created by a request that has since ended");
 * console.assert(heldRunFailure(ended) === "missing-process-local-state");
 * console.assert(heldRunFailure(new Error("reset")) === "remote-error");
 * ```
 */
export function heldRunFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /request that has since ended|cannot perform I\/O on behalf of a different request/i
      .test(message)
    ? "missing-process-local-state"
    : "remote-error";
}
