/**
 * Rebuilding a turn whose held Run broke right after the host's tool results went in:
 * Cursor's copy of the turn is lost, but the host history is complete (every call has its
 * result), so a new conversation is seeded from it and the model carries on from the
 * results. Only when nothing new was shown and no new tool work started; missing results
 * or work the host never saw keep the failure final.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { CursorError } from "../../../core/cursor-error.ts";
import {
  createTurnAllowance,
  type RetryAllowance,
  retryKind,
} from "../../../session/recovery-guard.ts";
import { resumeFromCheckpoint } from "./resume.ts";
import type { ProviderConfig } from "../provider-config.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { heldRunFailure, logRebase, logRunInterrupted } from "./lines.ts";
import { replayFreshRun } from "./fresh-run.ts";
import { prepareRun, type RunInputs } from "../run/run-opener.ts";
import type { TurnStreamContext } from "../run/turn-stream.ts";
import type { Conversation } from "../../../session/conversation-store.ts";
import type { ActiveTurn } from "../run/active-turn.ts";
import { renderHistoryForReseed } from "../conversation/history-seed.ts";
import type { TurnPlan } from "../conversation/turn-plan.ts";
import { seedOverflow } from "../conversation/seed-fit.ts";

/**
 * Whether a failed resumed pass may be rebuilt from host history.
 *
 * @param facts The failed turn, whether the pass showed anything, whether every owed
 *   result came from the host, and whether the failure is transient.
 * @returns Whether to rebuild.
 */
export function mayRebuild(facts: {
  readonly turn: ActiveTurn;
  readonly shown: boolean;
  readonly resultsComplete: boolean;
  readonly retryable: boolean;
}): boolean {
  return facts.retryable && rebuildBarrier(facts) === undefined;
}

/** Why a held pass that failed cannot be rebuilt from host history. */
export type RebuildBarrier = "shown" | "results-missing" | "unrepresented";

/**
 * The replay barrier that keeps a failed held pass from being rebuilt: output shown past
 * the tool results, a result the host did not return, or work (an exec, a started tool)
 * that host history cannot represent.
 *
 * @param facts The failed turn, whether the pass showed anything and whether every owed
 *   result came from the host.
 * @returns The barrier, or `undefined` when the pass may be rebuilt.
 *
 * @example
 * ```ts
 * import { ActiveTurn } from "../run/active-turn.ts";
 * import { rebuildBarrier } from "./rebuild.ts";
 *
 * const turn = { passGuard: { barrier: undefined } } as unknown as ActiveTurn;
 * console.assert(rebuildBarrier({ turn, shown: true, resultsComplete: true }) === "shown");
 * console.assert(rebuildBarrier({ turn, shown: false, resultsComplete: true }) === undefined);
 * ```
 */
export function rebuildBarrier(facts: {
  readonly turn: ActiveTurn;
  readonly shown: boolean;
  readonly resultsComplete: boolean;
}): RebuildBarrier | undefined {
  const barrier = facts.turn.passGuard.barrier;
  if (barrier === "exec" || barrier === "tool-started") return "unrepresented";
  if (!facts.resultsComplete) return "results-missing";
  return facts.shown ? "shown" : undefined;
}

/** What each barrier tells the person reading the final error. */
const BARRIER_REASONS: Readonly<Record<RebuildBarrier, (code: string) => string>> = {
  shown: (code) =>
    `The answer after the tool results was cut off (${code}); answering the step again would repeat it, so the turn ends here`,
  "results-missing": (code) =>
    `The Run broke (${code}) before every tool result reached Cursor; the step cannot be rebuilt, so the turn ends here`,
  unrepresented: (code) =>
    `The Run broke (${code}) after Cursor started work the host history cannot hold; the step cannot be rebuilt, so the turn ends here`,
};

/**
 * The failure of a held pass that a replay barrier keeps final: not retryable, so the
 * host does not retry the step (its retry would rebuild the step from host history and
 * show a second answer after what the user saw). The message names the failure's code
 * only (its own text, often worded as retryable, stays in `cause`).
 *
 * @param failure The failure.
 * @param barrier The barrier that holds.
 * @returns The final error.
 *
 * @example
 * ```ts
 * import { CursorError } from "../../../core/cursor-error.ts";
 * import { finalAtBarrier } from "./rebuild.ts";
 *
 * const dropped = new CursorError("network", "Connection dropped", { retryable: true });
 * console.assert(finalAtBarrier(dropped, "shown").retryable === false);
 * ```
 */
export function finalAtBarrier(failure: CursorError, barrier: RebuildBarrier): CursorError {
  return new CursorError(failure.code, BARRIER_REASONS[barrier](failure.code), {
    retryable: false,
    retryAfterMs: failure.retryAfterMs,
    connectCode: failure.connectCode,
    httpStatus: failure.httpStatus,
    detail: failure.detail,
    cause: failure,
  });
}

/**
 * Whether rebuilding from host history would overflow the model's context window (see
 * {@link seedOverflow}): the seed text with the system prompt against the window Cursor
 * reported in its latest checkpoint.
 *
 * @param prompt The host prompt ending with the tool results.
 * @param systemPrompt The system prompt the rebuilt Run would send.
 * @param windowTokens The model's context window, when known.
 * @returns The error, or `undefined` when the rebuild fits (or the window is unknown).
 *
 * @example
 * ```ts
 * import { rebuildOverflow } from "./rebuild.ts";
 *
 * const prompt = [
 *   { role: "user" as const, content: [{ type: "text" as const, text: "List" }] },
 *   { role: "tool" as const, content: [{ type: "tool-result" as const, toolCallId: "c", toolName: "bash", output: { type: "text" as const, value: "x".repeat(400) } }] },
 * ];
 * console.assert(rebuildOverflow(prompt, "", 50)?.code === "context_overflow");
 * console.assert(rebuildOverflow(prompt, "", 10_000) === undefined);
 * ```
 */
export function rebuildOverflow(
  prompt: LanguageModelV3Prompt,
  systemPrompt: string,
  windowTokens: number | undefined,
): CursorError | undefined {
  const text = renderHistoryForReseed(prompt);
  if (text === undefined) return undefined;
  return seedOverflow({ text, systemPrompt, kind: "rebuild" }, windowTokens);
}

/**
 * The plan of a rebuilt turn: the conversation gets a new Cursor id and starts cold with
 * the whole host history, tool results included.
 *
 * @param conversation The session's conversation (its id rotates).
 * @param prompt The host prompt ending with the tool results.
 * @param systemPrompt The host's system prompt.
 * @param newId The id source.
 * @returns The plan, or `undefined` when the prompt does not end with tool results.
 */
export function rebuildPlan(
  conversation: Conversation<ActiveTurn>,
  prompt: LanguageModelV3Prompt,
  systemPrompt: string,
  newId: () => string,
): TurnPlan | undefined {
  const text = renderHistoryForReseed(prompt);
  if (text === undefined) return undefined;
  conversation.rotate(newId(), systemPrompt);
  return {
    conversationId: conversation.conversationId,
    groupId: conversation.groupId,
    conversation,
    checkpoint: new Uint8Array(0),
    priorUsed: undefined,
    userText: text,
    systemPrompt,
    continuity: "cold",
    coldReason: "interrupted-run",
    resetReason: "interrupted-run",
  };
}

/**
 * The `recover` hook of a resumed turn: rebuilds from host history once (see
 * {@link mayRebuild}), then replays the rebuilt Run like any fresh one.
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
): NonNullable<TurnStreamContext["recover"]> {
  const allowance = input.allowance ?? createTurnAllowance();
  let replay: NonNullable<TurnStreamContext["recover"]> | undefined;
  const recover: NonNullable<TurnStreamContext["recover"]> = async (failed) => {
    if (replay !== undefined) return await replay(failed);
    if (input.conversation !== undefined) {
      const verdict = await resumeFromCheckpoint(config, failed, {
        groupId: input.conversation.groupId,
        selection: input.selection,
        requestContext: input.conversation.requestContext,
        key: input.key,
        abortSignal: input.options.abortSignal,
        allowance,
      });
      if (verdict.kind === "resumed") return verdict.turn;
      if (verdict.kind === "final") return undefined;
    }
    const failure = CursorError.from(failed.error);
    const rebuild = input.conversation !== undefined && mayRebuild({
      turn: failed.turn,
      shown: failed.shown,
      resultsComplete: input.resultsComplete,
      retryable: failure.retryable ||
        heldRunFailure(failed.error) === "missing-process-local-state",
    });
    if (config.logger.enabled) {
      logRunInterrupted(config.logger, {
        conversationId: failed.turn.conversationId,
        code: failure.code,
        streamedChars: failed.turn.state.text.length,
        replaySafe: rebuild,
        checkpoints: failed.turn.guard.checkpoints,
      });
    }
    if (!rebuild || input.conversation === undefined || input.options.abortSignal?.aborted) {
      return undefined;
    }
    if (!allowance.take(retryKind(failure))) {
      return undefined;
    }
    const systemPrompt = input.conversation.frozenSystemPrompt ?? input.converted.systemPrompt;
    const overflow = rebuildOverflow(
      input.options.prompt,
      systemPrompt,
      failed.turn.state.latestMax,
    );
    if (overflow !== undefined) throw overflow;
    const plan = rebuildPlan(
      input.conversation,
      input.options.prompt,
      systemPrompt,
      config.generateId,
    );
    if (plan === undefined) return undefined;
    if (config.logger.enabled) {
      emitDiagnostic(config.logger, {
        kind: "conversation-reset",
        reason: "interrupted-run",
        sessionKey: input.key ?? "none",
        conversationId: plan.conversationId,
        conversationGroupId: plan.groupId,
      });
      logRebase(config.logger, {
        conversationId: plan.conversationId,
        attempt: failed.attempt + 1,
        kind: "rebuild",
        code: failure.code,
        delayMs: 0,
      });
    }
    const { openTurn } = await prepareRun(config, { ...input, plan });
    replay = replayFreshRun({
      config,
      conversationId: plan.conversationId,
      open: openTurn,
      abortSignal: input.options.abortSignal,
      allowance,
    });
    return await openTurn({ after: { turn: failed.turn, kind: "rebuild" } });
  };
  return async (failed) => {
    const next = await recover(failed);
    if (next !== undefined || input.options.abortSignal?.aborted) return next;
    const failure = CursorError.from(failed.error);
    const barrier = rebuildBarrier({ ...failed, resultsComplete: input.resultsComplete });
    // A host retry of a held pass rebuilds it from host history: past a barrier that would
    // answer the step a second time, so the failure is final.
    if (failure.retryable && barrier !== undefined) throw finalAtBarrier(failure, barrier);
    return undefined;
  };
}
