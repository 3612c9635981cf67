/**
 * Resuming an interrupted turn from its latest eligible checkpoint: a transient failure
 * after Cursor saved a checkpoint that holds everything the host has seen opens a new Run
 * with `resume_action` and that checkpoint (same conversation), as Cursor's CLI does. The
 * resumed Run's output passes the turn stream's filter, so text shown after the
 * checkpoint is not shown twice. Two resumed attempts in a row that stream without saving
 * a checkpoint end the turn. When to resume is the recovery policy's decision
 * (`recovery/policy.ts`); this module carries it out.
 *
 * @module
 */
import { CursorError } from "../../../core/cursor-error.ts";
import type { MaterializedRequestContext } from "../../../agent-run/request-context.ts";
import { RESUMES_WITHOUT_CHECKPOINT_LIMIT } from "../../../conversation/checkpoint-eligibility.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { selectModel } from "../call/model-options.ts";
import type { RetryDecision } from "../recovery/policy.ts";
import { openResumedTurn } from "../run/run-opener.ts";

/** What resuming a turn needs besides the failed attempt. */
export interface ResumeInputs {
  readonly groupId: string;
  readonly selection: ReturnType<typeof selectModel>;
  readonly requestContext: MaterializedRequestContext | undefined;
  readonly key: string | undefined;
  readonly abortSignal: AbortSignal | undefined;
}

/**
 * Carries out a `resume` decision whose retry the allowance granted: the resume line, the
 * wait, and the Run resumed from the failed attempt's eligible checkpoint.
 *
 * @param config The provider configuration.
 * @param failed The failure, the failed attempt and how many recoveries came before.
 * @param decision The policy's decision (its kind and wait).
 * @param input The conversation's group, model, request context, key and abort signal.
 * @returns The resumed attempt, or `undefined` when the call was aborted during the wait.
 * @throws {CursorError} `interrupted` when the request context or checkpoint is gone.
 */
export async function resumeRun(
  config: ProviderConfig,
  failed: { readonly error: unknown; readonly turn: ActiveTurn; readonly attempt: number },
  decision: RetryDecision,
  input: ResumeInputs,
): Promise<ActiveTurn | undefined> {
  const { turn } = failed;
  const tracker = turn.checkpoints;
  const checkpoint = tracker.eligible;
  const requestContext = input.requestContext;
  if (checkpoint === undefined || requestContext === undefined) {
    throw new CursorError(
      "interrupted",
      "The turn has no checkpoint or request context to resume from",
    );
  }
  if (config.logger.enabled) {
    emitDiagnostic(config.logger, {
      kind: "resume",
      conversationId: turn.conversationId,
      attempt: failed.attempt + 1,
      retry: decision.kind,
      code: CursorError.from(failed.error).code,
      delayMs: decision.delayMs,
      checkpointLen: checkpoint.length,
      resumesWithoutCheckpoint: tracker.resumesWithoutCheckpoint,
      limit: RESUMES_WITHOUT_CHECKPOINT_LIMIT,
    });
  }
  if (!(await sleepUnlessAborted(decision.delayMs, input.abortSignal))) return undefined;
  return await openResumedTurn(config, turn, {
    groupId: input.groupId,
    selection: input.selection,
    requestContext,
    key: input.key,
    abortSignal: input.abortSignal,
  });
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
