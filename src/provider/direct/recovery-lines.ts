/**
 * The recovery lines of the debug log (see the cache-log runbook): interrupted Runs, fresh
 * turns that supersede a held Run, drains, resumes and rebases. Metadata only: counts,
 * ids, reasons and outcomes, never prompt text or tool payloads.
 *
 * @module
 */

/** How draining a superseded Run ended. */
export type DrainOutcome = "turn-ended" | "timeout" | "error" | "no-checkpoint";

/**
 * The line written when a new user turn cancels the held Run's outstanding execs.
 *
 * @param facts The conversation, how many execs were cancelled and how many results the
 *   host history supplied instead.
 * @returns The line.
 *
 * @example
 * ```ts
 * import { freshTurnLine } from "./recovery-lines.ts";
 *
 * const line = freshTurnLine({ conversationId: "c-1", cancelled: 1, delivered: 0 });
 * console.assert(line.startsWith("fresh turn: cancelled 1 pending exec(s)"));
 * ```
 */
export function freshTurnLine(
  facts: { conversationId: string; cancelled: number; delivered: number },
): string {
  return `fresh turn: cancelled ${facts.cancelled} pending exec(s) delivered=${facts.delivered} conversationId=${facts.conversationId}`;
}

/**
 * The line written once a superseded Run was drained (or could not be).
 *
 * @param facts The conversation, the outcome and how much unseen output was discarded.
 * @returns The line.
 *
 * @example
 * ```ts
 * import { drainLine } from "./recovery-lines.ts";
 *
 * const line = drainLine({ conversationId: "c-1", outcome: "turn-ended", discardedChars: 0 });
 * console.assert(line.startsWith("drain outcome=turn-ended"));
 * ```
 */
export function drainLine(
  facts: { conversationId: string; outcome: DrainOutcome; discardedChars: number },
): string {
  return `drain outcome=${facts.outcome} conversationId=${facts.conversationId} discardedChars=${facts.discardedChars}`;
}

/**
 * The line written when a turn's Run ends before `turn_ended` (dropped, reset, error).
 *
 * @param facts The conversation, the error code, and what the turn had streamed.
 * @returns The line.
 *
 * @example
 * ```ts
 * import { runInterruptedLine } from "./recovery-lines.ts";
 *
 * const line = runInterruptedLine({
 *   conversationId: "c-1",
 *   code: "network",
 *   streamedChars: 12,
 *   replaySafe: true,
 *   checkpoints: 0,
 * });
 * console.assert(line.startsWith("Run interrupted: "));
 * ```
 */
export function runInterruptedLine(facts: {
  conversationId: string;
  code: string;
  streamedChars: number;
  replaySafe: boolean;
  checkpoints: number;
}): string {
  return `Run interrupted: conversationId=${facts.conversationId} code=${facts.code} streamedChars=${facts.streamedChars} replaySafe=${facts.replaySafe} checkpoints=${facts.checkpoints}`;
}

/**
 * The line written when an interrupted fresh Run is replayed on a new Run from the
 * turn's starting checkpoint.
 *
 * @param facts The conversation, the replay number, which allowance it used, the failure
 *   code and the wait before it.
 * @returns The line.
 *
 * @example
 * ```ts
 * import { rebaseLine } from "./recovery-lines.ts";
 *
 * const line = rebaseLine({
 *   conversationId: "c-1",
 *   attempt: 1,
 *   kind: "transport",
 *   code: "network",
 *   delayMs: 0,
 * });
 * console.assert(line.startsWith("rebasing fresh Run: "));
 * ```
 */
export function rebaseLine(facts: {
  conversationId: string;
  attempt: number;
  kind: string;
  code: string;
  delayMs: number;
}): string {
  return `rebasing fresh Run: conversationId=${facts.conversationId} attempt=${facts.attempt} retry=${facts.kind} code=${facts.code} delayMs=${facts.delayMs} resume=false`;
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
 * import { heldRunFailure } from "./recovery-lines.ts";
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
