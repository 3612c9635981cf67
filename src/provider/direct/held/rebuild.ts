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
import type { ProviderConfig } from "../config/provider-config.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { logRebase } from "../recovery/lines.ts";
import type { RebuildBarrier } from "../recovery/policy.ts";
import { type PreparedRun, prepareRun, type RunInputs } from "../run/run-opener.ts";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { renderHistoryForReseed } from "../turn-plan/history-seed.ts";
import type { TurnPlan } from "../turn-plan/turn-plan.ts";
import { seedOverflow } from "../turn-plan/seed-fit.ts";

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

/** What rebuilding a held pass is prepared from. */
export type RebuildInputs = Omit<RunInputs, "plan"> & {
  readonly conversation: Conversation<ActiveTurn>;
};

/** A rebuilt turn: its first Run, and how to open its Run again for a replay. */
export interface RebuiltTurn {
  readonly turn: ActiveTurn;
  readonly conversationId: string;
  readonly open: PreparedRun["openTurn"];
}

/**
 * Carries out a `rebuild` decision whose retry the allowance granted: a new conversation
 * seeded with the whole host history (see {@link rebuildPlan}), its reset and rebase
 * lines, and its first Run.
 *
 * @param config The provider configuration.
 * @param failed The failure, the failed held pass and how many recoveries came before.
 * @param input What the rebuilt Run is prepared from.
 * @returns The rebuilt turn, or `undefined` when the prompt does not end with tool results.
 * @throws {CursorError} `context_overflow` when the host history does not fit the window.
 */
export async function rebuildRun(
  config: ProviderConfig,
  failed: { readonly error: unknown; readonly turn: ActiveTurn; readonly attempt: number },
  input: RebuildInputs,
): Promise<RebuiltTurn | undefined> {
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
      code: CursorError.from(failed.error).code,
      delayMs: 0,
    });
  }
  const { openTurn } = await prepareRun(config, { ...input, plan });
  const rebuilt = await openTurn({ after: { turn: failed.turn, kind: "rebuild" } });
  return { turn: rebuilt, conversationId: plan.conversationId, open: openTurn };
}
