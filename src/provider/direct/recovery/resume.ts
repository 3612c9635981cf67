/**
 * Resuming an interrupted turn from its latest eligible checkpoint: a transient failure
 * after Cursor saved a checkpoint that holds everything the host has seen opens a new Run
 * with `resume_action` and that checkpoint (same conversation), as Cursor's CLI does. The
 * resumed Run's output passes the turn stream's filter, so text shown after the
 * checkpoint is not shown twice. Two resumed attempts in a row that stream without saving
 * a checkpoint end the turn.
 *
 * @module
 */
import { CursorError } from "../../../core/cursor-error.ts";
import type { MaterializedRequestContext } from "../../../session/request-context.ts";
import {
  MAX_INLINE_WAIT_MS,
  replayDelayMs,
  type RetryAllowance,
  retryKind,
} from "../../../session/recovery-guard.ts";
import { RESUMES_WITHOUT_CHECKPOINT_LIMIT } from "../../../session/checkpoint-eligibility.ts";
import type { ProviderConfig } from "../provider-config.ts";
import type { ActiveTurn } from "../run/active-turn.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { selectModel } from "../call/model-options.ts";
import { openResumedTurn } from "../run/run-opener.ts";

/** What resuming a turn needs besides the failed attempt. */
export interface ResumeInputs {
  readonly groupId: string;
  readonly selection: ReturnType<typeof selectModel>;
  readonly requestContext: MaterializedRequestContext | undefined;
  readonly key: string | undefined;
  readonly abortSignal: AbortSignal | undefined;
  readonly allowance: RetryAllowance;
}

/** The verdict on resuming: a resumed attempt, not applicable, or the turn ends here. */
export type ResumeVerdict =
  | { readonly kind: "resumed"; readonly turn: ActiveTurn }
  | { readonly kind: "not-applicable" }
  | { readonly kind: "final" };

/**
 * Resumes the failed attempt from its latest eligible checkpoint when that is allowed.
 *
 * @param config The provider configuration.
 * @param failed The failure, the failed attempt and how many recoveries came before.
 * @param input The conversation's group, model, request context, key, abort signal and the
 *   turn's retry allowance.
 * @returns The verdict: `not-applicable` when the attempt has no eligible checkpoint (the
 *   caller may replay or rebuild instead), `final` when the failure must surface.
 * @throws {CursorError} when the turn's retries of this kind are spent.
 */
export async function resumeFromCheckpoint(
  config: ProviderConfig,
  failed: { readonly error: unknown; readonly turn: ActiveTurn; readonly attempt: number },
  input: ResumeInputs,
): Promise<ResumeVerdict> {
  const { turn } = failed;
  const tracker = turn.checkpoints;
  if (!turn.resumed && tracker.eligible === undefined) return { kind: "not-applicable" };
  const failure = CursorError.from(failed.error);
  const allowed = tracker.settleFailure();
  const checkpoint = tracker.eligible;
  if (config.logger.enabled) {
    emitDiagnostic(config.logger, {
      kind: "run-interrupted",
      conversationId: turn.conversationId,
      code: failure.code,
      streamedChars: turn.state.text.length,
      replaySafe: allowed && failure.retryable,
      checkpoints: turn.guard.checkpoints,
    });
  }
  if (checkpoint === undefined || !allowed || !failure.retryable) return { kind: "final" };
  if (input.requestContext === undefined || input.abortSignal?.aborted) return { kind: "final" };
  if ((failure.retryAfterMs ?? 0) > MAX_INLINE_WAIT_MS) return { kind: "final" };
  const kind = retryKind(failure);
  if (!input.allowance.take(kind)) throw spentRetries(failure, kind);
  const delayMs = replayDelayMs(failed.attempt, failure.retryAfterMs);
  if (config.logger.enabled) {
    emitDiagnostic(config.logger, {
      kind: "resume",
      conversationId: turn.conversationId,
      attempt: failed.attempt + 1,
      retry: kind,
      code: failure.code,
      delayMs,
      checkpointLen: checkpoint.length,
      resumesWithoutCheckpoint: tracker.resumesWithoutCheckpoint,
      limit: RESUMES_WITHOUT_CHECKPOINT_LIMIT,
    });
  }
  if (!(await sleepUnlessAborted(delayMs, input.abortSignal))) return { kind: "final" };
  const resumed = await openResumedTurn(config, turn, {
    groupId: input.groupId,
    selection: input.selection,
    requestContext: input.requestContext,
    key: input.key,
    abortSignal: input.abortSignal,
  });
  return { kind: "resumed", turn: resumed };
}

/**
 * Waits, unless the call is aborted first.
 *
 * @param ms How long.
 * @param signal The call's abort signal.
 * @returns Whether the wait completed.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The failure once the turn's replays of this kind are spent: final, so the host does not
 * multiply them with its own retries.
 *
 * @param failure The failure.
 * @param kind The spent allowance.
 * @returns The final error.
 */
export function spentRetries(failure: CursorError, kind: string): CursorError {
  return new CursorError(
    failure.code,
    `${failure.message} (the turn's ${kind} retries are spent)`,
    {
      retryable: false,
      retryAfterMs: failure.retryAfterMs,
      connectCode: failure.connectCode,
      httpStatus: failure.httpStatus,
      detail: failure.detail,
      cause: failure,
    },
  );
}
