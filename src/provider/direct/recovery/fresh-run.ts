/**
 * Replaying a fresh Run that failed before anything stateful happened: the same request
 * (same checkpoint, same user message) on a new Run, within the turn's retry allowance,
 * after the replay delay. Whatever the failed Run showed is filtered out of the replay by
 * the turn stream, so the host sees the answer once.
 *
 * @module
 */
import { CursorError } from "../../../core/cursor-error.ts";
import {
  createTurnAllowance,
  MAX_INLINE_WAIT_MS,
  replayDelayMs,
  type RetryAllowance,
  retryKind,
} from "../../../session/recovery-guard.ts";
import type { ProviderConfig } from "../provider-config.ts";
import type { PreparedRun } from "../run/run-opener.ts";
import { logRebase, logRunInterrupted } from "./lines.ts";
import type { TurnStreamContext } from "../run/turn-stream.ts";
import {
  resumeFromCheckpoint,
  type ResumeInputs,
  sleepUnlessAborted,
  spentRetries,
} from "./resume.ts";

/**
 * The `recover` hook of a turn started by a user message.
 *
 * @param input The provider configuration, the conversation, how to open the same Run
 *   again, the call's abort signal and, optionally, the turn's retry allowance.
 * @returns The hook for {@link TurnStreamContext.recover}.
 */
export function replayFreshRun(input: {
  readonly config: ProviderConfig;
  readonly conversationId: string;
  readonly open: PreparedRun["openTurn"];
  readonly abortSignal: AbortSignal | undefined;
  readonly allowance?: RetryAllowance;
  /** Resuming from an eligible checkpoint (tried before a replay). */
  readonly resume?: Omit<ResumeInputs, "allowance">;
}): NonNullable<TurnStreamContext["recover"]> {
  const allowance = input.allowance ?? createTurnAllowance();
  const { logger } = input.config;
  return async ({ error, turn, attempt }) => {
    if (input.resume !== undefined) {
      const verdict = await resumeFromCheckpoint(input.config, { error, turn, attempt }, {
        ...input.resume,
        allowance,
      });
      if (verdict.kind === "resumed") return verdict.turn;
      if (verdict.kind === "final") return undefined;
    }
    const failure = CursorError.from(error);
    const barrier = turn.pumpPasses > 1 ? "tool-results" : turn.guard.barrier;
    const replaySafe = barrier === undefined && failure.retryable;
    if (logger.enabled) {
      logRunInterrupted(logger, {
        conversationId: input.conversationId,
        code: failure.code,
        streamedChars: turn.state.text.length,
        replaySafe,
        checkpoints: turn.guard.checkpoints,
      });
    }
    if (!replaySafe || input.abortSignal?.aborted) return undefined;
    if ((failure.retryAfterMs ?? 0) > MAX_INLINE_WAIT_MS) return undefined;
    const kind = retryKind(failure);
    if (!allowance.take(kind)) throw spentRetries(failure, kind);
    const delay = replayDelayMs(attempt, failure.retryAfterMs);
    if (logger.enabled) {
      logRebase(logger, {
        conversationId: input.conversationId,
        attempt: attempt + 1,
        kind,
        code: failure.code,
        delayMs: delay,
      });
    }
    if (!(await sleepUnlessAborted(delay, input.abortSignal))) return undefined;
    return await input.open({ after: { turn, kind: "replay" } });
  };
}
