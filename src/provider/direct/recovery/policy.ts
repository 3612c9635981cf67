/**
 * The direct backend's recovery policy, pure: from the failure of a Run mid-turn and plain
 * facts of the turn, what happens next — resume from the turn's eligible checkpoint,
 * replay the same request on a new Run, rebuild a held pass from host history, or end the
 * turn. No IO, clock, logging or mutation: the `recover` hook gathers the facts, asks once
 * per failure, and carries the decision out (log lines, the retry allowance, the wait,
 * the new Run).
 *
 * @module
 */
import {
  MAX_INLINE_WAIT_MS,
  type ReplayBarrier,
  replayDelayMs,
} from "../../../conversation/recovery-guard.ts";
import { type RetryKind, retryKindOf } from "../../../conversation/retry-budget.ts";

/**
 * How the turn began: a user message on a new Run, or a Run held for tool results that
 * took the host's results.
 */
export type TurnOrigin = "user-message" | "held-run";

/** Why a held pass that failed cannot be rebuilt from host history. */
export type RebuildBarrier = "shown" | "results-missing" | "unrepresented";

/** The failure, as the policy reads it. */
export interface FailureFacts {
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly connectCode: string | undefined;
}

/** What the turn's checkpoint tracker says. */
export interface CheckpointFacts {
  /** The turn holds a resume-eligible checkpoint. */
  readonly eligible: boolean;
  /** The failed attempt was itself resumed from a checkpoint. */
  readonly resumedAttempt: boolean;
  /**
   * The tracker's verdict on settling this failure (`settleFailure`): another resume is
   * allowed. Asked only when {@link resumeApplies}; `false` otherwise.
   */
  readonly allowsResume: boolean;
}

/** Everything the policy decides from: plain data, no turn or conversation objects. */
export interface RecoveryFacts {
  readonly failure: FailureFacts;
  /** How many recoveries came before in this pass (0-based). */
  readonly attempt: number;
  readonly origin: TurnOrigin;
  /** The call's abort signal has fired. */
  readonly aborted: boolean;
  /** A held pass was already rebuilt in this turn (its Run now replays like a fresh one). */
  readonly rebuilt: boolean;
  /**
   * A held turn's session conversation is known (without it a held Run can neither resume
   * nor rebuild); read for held turns only.
   */
  readonly conversationKnown: boolean;
  /** The request context a resumed Run would send is known. */
  readonly requestContextKnown: boolean;
  readonly checkpoint: CheckpointFacts;
  /** Passes the failed Run has pumped (more than one: tool results went in). */
  readonly pumpPasses: number;
  /** The failed Run's first replay barrier, over all its passes. */
  readonly runBarrier: ReplayBarrier | undefined;
  /** The first replay barrier of the pass that failed. */
  readonly passBarrier: ReplayBarrier | undefined;
  /** This pass showed the host text or reasoning. */
  readonly shown: boolean;
  /** Every tool result the held Run owed came from the host. */
  readonly resultsComplete: boolean;
  /** The held Run's state lived in a request or isolate that has ended. */
  readonly missingLocalState: boolean;
}

/** Why the turn ends with a failure. */
export type FinalReason =
  | "not-retryable"
  | "aborted"
  | "replay-barrier"
  | "rebuild-barrier"
  | "retry-after"
  | "resume-refused"
  | "no-request-context"
  | "no-conversation"
  | "spent";

/**
 * The error a final decision ends the turn with: the failure as it is, the failure made
 * final because the turn's retries of `kind` are spent (`spentRetries`), or the failure
 * made final because a host retry would answer a held step twice (`finalAtBarrier`).
 */
export type FinalError =
  | { readonly with: "failure" }
  | { readonly with: "spent"; readonly kind: RetryKind }
  | { readonly with: "barrier"; readonly barrier: RebuildBarrier };

/** The turn ends here. */
export interface FinalDecision {
  readonly action: "final";
  readonly reason: FinalReason;
  /** The barrier behind a `replay-barrier` or `rebuild-barrier` reason. */
  readonly barrier?: ReplayBarrier | "tool-results" | RebuildBarrier;
  /** What the `Run interrupted` line reports as `replaySafe`. */
  readonly replaySafe: boolean;
  readonly error: FinalError;
}

/** The turn goes on: resumed, replayed or rebuilt, once the allowance grants `kind`. */
export interface RetryDecision {
  readonly action: "resume" | "replay" | "rebuild";
  /** The retry allowance to take from. */
  readonly kind: RetryKind;
  /** The wait before the new Run (a rebuild waits none). */
  readonly delayMs: number;
  /** What the `Run interrupted` line reports as `replaySafe`. */
  readonly replaySafe: boolean;
  /**
   * How the turn ends when the allowance refuses `kind` (a rebuild whose host prompt
   * cannot be planned again ends the same way).
   */
  readonly refused: FinalDecision;
}

/** The decision on one failure. */
export type RecoveryDecision = RetryDecision | FinalDecision;

/**
 * Whether the failure is settled against the turn's checkpoint (resume or end): the hook
 * can resume (a turn started by a user message, or a held turn whose conversation is
 * known and not yet rebuilt) and the attempt holds an eligible checkpoint or was resumed.
 *
 * @param facts The turn's facts (`checkpoint.allowsResume` is not read).
 * @returns Whether to ask the checkpoint tracker and decide a resume.
 *
 * @example
 * ```ts
 * import { resumeApplies } from "./policy.ts";
 *
 * const checkpoint = { eligible: true, resumedAttempt: false, allowsResume: false };
 * console.assert(resumeApplies({ origin: "user-message", rebuilt: false, conversationKnown: false, checkpoint }));
 * console.assert(!resumeApplies({ origin: "held-run", rebuilt: true, conversationKnown: true, checkpoint }));
 * ```
 */
export function resumeApplies(
  facts: Pick<RecoveryFacts, "origin" | "rebuilt" | "conversationKnown" | "checkpoint">,
): boolean {
  if (facts.rebuilt) return false;
  if (facts.origin === "held-run" && !facts.conversationKnown) return false;
  return facts.checkpoint.resumedAttempt || facts.checkpoint.eligible;
}

/**
 * Decides what follows a failed Run: a turn started by a user message resumes (see
 * {@link resumeApplies}) or replays; a held turn resumes, or rebuilds once from host
 * history and then replays the rebuilt Run. Whatever keeps a held turn final makes a
 * retryable failure past a rebuild barrier final for the host as well.
 *
 * @param facts The failure and the turn's facts.
 * @returns The decision.
 *
 * @example
 * ```ts
 * import { decideRecovery } from "./policy.ts";
 *
 * const decision = decideRecovery({
 *   failure: { code: "network", retryable: true, retryAfterMs: undefined, connectCode: undefined },
 *   attempt: 0,
 *   origin: "user-message",
 *   aborted: false,
 *   rebuilt: false,
 *   conversationKnown: true,
 *   requestContextKnown: true,
 *   checkpoint: { eligible: false, resumedAttempt: false, allowsResume: false },
 *   pumpPasses: 1,
 *   runBarrier: undefined,
 *   passBarrier: undefined,
 *   shown: true,
 *   resultsComplete: true,
 *   missingLocalState: false,
 * });
 * console.assert(decision.action === "replay" && decision.kind === "transport");
 * ```
 */
export function decideRecovery(facts: RecoveryFacts): RecoveryDecision {
  if (facts.origin === "user-message") {
    return resumeApplies(facts) ? decideResume(facts) : decideReplay(facts);
  }
  if (facts.rebuilt) return heldFinal(facts, decideReplay(facts));
  return heldFinal(facts, resumeApplies(facts) ? decideResume(facts) : decideRebuild(facts));
}

/**
 * The barrier that keeps a failed held pass from being rebuilt: work (an exec, a started
 * tool) that host history cannot represent, a result the host did not return, or output
 * shown past the tool results; `undefined` when the pass may be rebuilt.
 */
function rebuildBarrier(
  facts: Pick<RecoveryFacts, "passBarrier" | "shown" | "resultsComplete">,
): RebuildBarrier | undefined {
  if (facts.passBarrier === "exec" || facts.passBarrier === "tool-started") {
    return "unrepresented";
  }
  if (!facts.resultsComplete) return "results-missing";
  return facts.shown ? "shown" : undefined;
}

function decideResume(facts: RecoveryFacts): RecoveryDecision {
  const { failure, checkpoint } = facts;
  const replaySafe = checkpoint.allowsResume && failure.retryable;
  if (!failure.retryable) return final("not-retryable", replaySafe);
  if (!checkpoint.eligible || !checkpoint.allowsResume) return final("resume-refused", replaySafe);
  if (!facts.requestContextKnown) return final("no-request-context", replaySafe);
  if (facts.aborted) return final("aborted", replaySafe);
  if (waitTooLong(failure)) return final("retry-after", replaySafe);
  return retry("resume", facts, replayDelayMs(facts.attempt, failure.retryAfterMs));
}

function decideReplay(facts: RecoveryFacts): RecoveryDecision {
  const { failure } = facts;
  const barrier = facts.pumpPasses > 1 ? "tool-results" : facts.runBarrier;
  if (barrier !== undefined) return { ...final("replay-barrier", false), barrier };
  if (!failure.retryable) return final("not-retryable", false);
  if (facts.aborted) return final("aborted", true);
  if (waitTooLong(failure)) return final("retry-after", true);
  return retry("replay", facts, replayDelayMs(facts.attempt, failure.retryAfterMs));
}

function decideRebuild(facts: RecoveryFacts): RecoveryDecision {
  // A held Run lost with its request or isolate is rebuilt whatever the failure says.
  const retryable = facts.failure.retryable || facts.missingLocalState;
  const barrier = rebuildBarrier(facts);
  if (!facts.conversationKnown) return final("no-conversation", false);
  if (!retryable) return final("not-retryable", false);
  if (barrier !== undefined) return { ...final("rebuild-barrier", false), barrier };
  if (facts.aborted) return final("aborted", true);
  // A refused rebuild ends with the failure as it is (not as spent retries).
  return { ...retry("rebuild", facts, 0), refused: final("spent", true) };
}

/**
 * A held turn that ends with its failure as it is: a retryable failure past a rebuild
 * barrier becomes final, since the host's retry would rebuild the step from host history
 * and show a second answer after what the user saw. An aborted call ends as it is.
 */
function heldFinal(facts: RecoveryFacts, decision: RecoveryDecision): RecoveryDecision {
  if (decision.action === "final") return heldEnd(facts, decision);
  return { ...decision, refused: heldEnd(facts, decision.refused) };
}

function heldEnd(facts: RecoveryFacts, decision: FinalDecision): FinalDecision {
  if (decision.error.with !== "failure" || facts.aborted || !facts.failure.retryable) {
    return decision;
  }
  const barrier = rebuildBarrier(facts);
  return barrier === undefined ? decision : { ...decision, error: { with: "barrier", barrier } };
}

function retry(
  action: RetryDecision["action"],
  facts: RecoveryFacts,
  delayMs: number,
): RetryDecision {
  const kind = retryKindOf(facts.failure);
  const refused: FinalDecision = {
    ...final("spent", true),
    error: { with: "spent", kind },
  };
  return { action, kind, delayMs, replaySafe: true, refused };
}

function final(reason: FinalReason, replaySafe: boolean): FinalDecision {
  return { action: "final", reason, replaySafe, error: { with: "failure" } };
}

function waitTooLong(failure: FailureFacts): boolean {
  return (failure.retryAfterMs ?? 0) > MAX_INLINE_WAIT_MS;
}
