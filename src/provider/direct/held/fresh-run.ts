/**
 * The `recover` hook of a turn: on each failure of its Run it gathers the facts, asks the
 * recovery policy (`recovery/policy.ts`) once, and carries out the decision — the
 * `Run interrupted` line, the retry allowance, then a resume from the eligible checkpoint,
 * a replay of the same request on a new Run (what the failed Run showed is filtered out
 * of the replay by the turn stream, so the host sees the answer once), a rebuild of a held
 * pass from host history, or the final error.
 *
 * @module
 */
import { CursorError } from "../../../core/cursor-error.ts";
import { createTurnAllowance, type RetryAllowance } from "../../../conversation/recovery-guard.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { heldRunFailure, logRebase, logRunInterrupted } from "../recovery/lines.ts";
import {
  decideRecovery,
  type FinalDecision,
  type RecoveryFacts,
  resumeApplies,
  type RetryDecision,
  type TurnOrigin,
} from "../recovery/policy.ts";
import { finalAtBarrier, type RebuildInputs, rebuildRun } from "./rebuild.ts";
import { type ResumeInputs, resumeRun, sleepUnlessAborted, spentRetries } from "./resume.ts";
import type { PreparedRun, RunInputs } from "../run/run-opener.ts";
import type { TurnStreamContext } from "../run/turn-stream.ts";
import type { Conversation } from "../../../conversation/conversation-store.ts";

/** The hook a turn stream calls when its Run fails. */
type Recover = NonNullable<TurnStreamContext["recover"]>;
/** One failure, as the turn stream reports it. */
type Failed = Parameters<Recover>[0];

/** The Run a replay opens again, and the conversation its lines name. */
interface ReplayTarget {
  readonly conversationId: string;
  readonly open: PreparedRun["openTurn"];
}

/** What one hook carries its decisions out with. */
interface RecoveryInputs {
  readonly config: ProviderConfig;
  readonly origin: TurnOrigin;
  readonly allowance: RetryAllowance;
  readonly abortSignal: AbortSignal | undefined;
  /** The Run to replay (a held turn has one once it is rebuilt). */
  readonly replay?: ReplayTarget;
  /** How to resume, read at the failure (absent: a held turn without a conversation). */
  readonly resume?: () => ResumeInputs;
  /** How to rebuild a held pass (absent: no conversation). */
  readonly rebuild?: RebuildInputs;
  /** Every tool result the held Run owed came from the host. */
  readonly resultsComplete: boolean;
}

/**
 * The `recover` hook of a turn started by a user message.
 *
 * @param input The provider configuration, the conversation, how to open the same Run
 *   again, the call's abort signal, optionally the turn's retry allowance, and how to
 *   resume from an eligible checkpoint (tried before a replay).
 * @returns The hook for {@link TurnStreamContext.recover}.
 */
export function replayFreshRun(input: {
  readonly config: ProviderConfig;
  readonly conversationId: string;
  readonly open: PreparedRun["openTurn"];
  readonly abortSignal: AbortSignal | undefined;
  readonly allowance?: RetryAllowance;
  readonly resume: ResumeInputs;
}): Recover {
  return recoveryHook({
    config: input.config,
    origin: "user-message",
    allowance: input.allowance ?? createTurnAllowance(),
    abortSignal: input.abortSignal,
    replay: { conversationId: input.conversationId, open: input.open },
    resume: () => input.resume,
    resultsComplete: true,
  });
}

/**
 * The `recover` hook of a held turn that took the host's tool results: resumes from an
 * eligible checkpoint, else rebuilds from host history once, then replays the rebuilt Run
 * like any fresh one.
 *
 * @param config The provider configuration.
 * @param input What the rebuilt Run is prepared from, and whether the host returned every
 *   owed result.
 * @returns The hook.
 */
export function rebuildHook(
  config: ProviderConfig,
  input: Omit<RunInputs, "plan"> & {
    readonly conversation: Conversation<ActiveTurn> | undefined;
    readonly resultsComplete: boolean;
    /** The turn's retry allowance (shared with the host's retries of the turn). */
    readonly allowance?: RetryAllowance;
  },
): Recover {
  const { conversation } = input;
  return recoveryHook({
    config,
    origin: "held-run",
    allowance: input.allowance ?? createTurnAllowance(),
    abortSignal: input.options.abortSignal,
    ...(conversation === undefined ? {} : {
      resume: () => ({
        groupId: conversation.groupId,
        selection: input.selection,
        requestContext: conversation.requestContext,
        key: input.key,
        abortSignal: input.options.abortSignal,
      }),
      rebuild: { ...input, conversation },
    }),
    resultsComplete: input.resultsComplete,
  });
}

function recoveryHook(input: RecoveryInputs): Recover {
  let target = input.replay;
  let rebuilt = false;
  return async (failed) => {
    const failure = CursorError.from(failed.error);
    const resume = rebuilt ? undefined : input.resume?.();
    const decision = decideRecovery(gatherFacts(input, failed, failure, { rebuilt, resume }));
    if (input.config.logger.enabled) {
      logRunInterrupted(input.config.logger, {
        conversationId: failed.turn.conversationId,
        code: failure.code,
        streamedChars: failed.turn.state.text.length,
        replaySafe: decision.replaySafe,
        checkpoints: failed.turn.guard.checkpoints,
      });
    }
    if (decision.action === "final") return endTurn(decision, failure);
    if (!input.allowance.take(decision.kind)) return endTurn(decision.refused, failure);
    if (decision.action === "resume" && resume !== undefined) {
      return await resumeRun(input.config, failed, decision, resume);
    }
    if (decision.action === "rebuild" && input.rebuild !== undefined) {
      const next = await rebuildRun(input.config, failed, input.rebuild);
      if (next === undefined) return endTurn(decision.refused, failure);
      target = next;
      rebuilt = true;
      return next.turn;
    }
    if (decision.action === "replay" && target !== undefined) {
      return await replayRun(input, failed, decision, target);
    }
    // Not reached: the policy resumes only with resume inputs, rebuilds only with a
    // conversation, and replays a held turn only once it is rebuilt.
    return endTurn(decision.refused, failure);
  };
}

/**
 * The facts of one failure. Asking the checkpoint tracker settles the failure against it
 * (it counts resumed attempts that saved nothing), so it is asked only when a resume
 * applies, as before a resume.
 */
function gatherFacts(
  input: RecoveryInputs,
  failed: Failed,
  failure: CursorError,
  state: { readonly rebuilt: boolean; readonly resume: ResumeInputs | undefined },
): RecoveryFacts {
  const { turn } = failed;
  const tracker = turn.checkpoints;
  const base = {
    origin: input.origin,
    rebuilt: state.rebuilt,
    conversationKnown: input.rebuild !== undefined,
    checkpoint: {
      eligible: tracker.eligible !== undefined,
      resumedAttempt: turn.resumed,
      allowsResume: false,
    },
  };
  const allowsResume = resumeApplies(base) && tracker.settleFailure();
  return {
    ...base,
    checkpoint: { ...base.checkpoint, allowsResume },
    failure,
    attempt: failed.attempt,
    aborted: input.abortSignal?.aborted === true,
    requestContextKnown: state.resume?.requestContext !== undefined,
    pumpPasses: turn.pumpPasses,
    runBarrier: turn.guard.barrier,
    passBarrier: turn.passGuard.barrier,
    shown: failed.shown,
    resultsComplete: input.resultsComplete,
    missingLocalState: heldRunFailure(failed.error) === "missing-process-local-state",
  };
}

/** Carries out a `replay` decision whose retry the allowance granted. */
async function replayRun(
  input: RecoveryInputs,
  failed: Failed,
  decision: RetryDecision,
  target: ReplayTarget,
): Promise<ActiveTurn | undefined> {
  const { logger } = input.config;
  if (logger.enabled) {
    logRebase(logger, {
      conversationId: target.conversationId,
      attempt: failed.attempt + 1,
      kind: decision.kind,
      code: CursorError.from(failed.error).code,
      delayMs: decision.delayMs,
    });
  }
  if (!(await sleepUnlessAborted(decision.delayMs, input.abortSignal))) return undefined;
  return await target.open({ after: { turn: failed.turn, kind: "replay" } });
}

/** Ends the turn as a final decision says: `undefined` surfaces the failure as it is. */
function endTurn(decision: FinalDecision, failure: CursorError): undefined {
  if (decision.error.with === "spent") throw spentRetries(failure, decision.error.kind);
  if (decision.error.with === "barrier") throw finalAtBarrier(failure, decision.error.barrier);
  return undefined;
}
