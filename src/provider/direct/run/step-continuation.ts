/**
 * Continuing a stored tool step (ADR 190): a request with the host's tool results that
 * finds no held Run in this process — it ran on another instance, before a restart, in
 * another edge invocation, or the held Run was released — continues from the checkpoint
 * Cursor saved with the pending batch. A new Run with `resume_action` and that checkpoint
 * (same conversation) makes Cursor re-issue the batch; each re-issued exec is answered
 * with the host's result for its call, and the model carries on.
 *
 * @module
 */
import type { LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import { create } from "@bufbuild/protobuf";
import { PreFetchedBlobSchema } from "../../../gen/agent/v1/run_request_pb.ts";
import { encodeRunRequestMessage } from "../../../protocol/run-request-bytes.ts";
import { planBlobPush } from "../../../agent-run/blobs/blob-push.ts";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { PendingStep } from "../../../conversation/conversation-state.ts";
import { buildResumeRequest } from "../../../agent-run/run-request.ts";
import type { selectModel } from "../call/model-options.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { ActiveTurn } from "../turn/active-turn.ts";
import type { StartFacts } from "../turn-types.ts";
import { openAgentRun, turnServices } from "./run-opener.ts";
import type { CursorCallOptions } from "../../settings/cursor-options.ts";
import type { ResultMedia } from "../tools/media/tool-images.ts";
import { dueRuleReminder } from "../interactions/rule-reminder.ts";

/** The host's results matched to a stored step's calls. */
export interface MatchedStep {
  readonly step: PendingStep;
  /** The results for the calls Cursor re-issues, by Cursor's tool call id. */
  readonly results: Map<string, LanguageModelV3ToolResultPart>;
  /** Every call of the step has its result. */
  readonly complete: boolean;
}

/**
 * Matches the host's tool results to the conversation's stored step.
 *
 * @param step The stored step, if any.
 * @param results The tool results at the tail of the host's prompt.
 * @returns The match, or `undefined` when the results are not this step's (none of its calls).
 *
 * @example
 * ```ts
 * import { matchStoredStep } from "./step-continuation.ts";
 *
 * const step = {
 *   checkpoint: new Uint8Array([1]),
 *   used: undefined,
 *   calls: [{ cursorCallId: "call_1", hostCallId: "cursor_a", toolName: "bash" }],
 * };
 * const output = { type: "text" as const, value: "ok" };
 * const result = { type: "tool-result" as const, toolCallId: "cursor_a", toolName: "bash", output };
 * const matched = matchStoredStep(step, [result]);
 * console.assert(matched?.results.get("call_1") === result && matched.complete);
 * console.assert(matchStoredStep(step, [{ ...result, toolCallId: "other" }]) === undefined);
 * ```
 */
export function matchStoredStep(
  step: PendingStep | undefined,
  results: readonly LanguageModelV3ToolResultPart[],
): MatchedStep | undefined {
  if (step === undefined) return undefined;
  const byHost = new Map(results.map((result) => [result.toolCallId, result]));
  const matched = new Map<string, LanguageModelV3ToolResultPart>();
  let complete = true;
  for (const call of step.calls) {
    const result = byHost.get(call.hostCallId);
    if (result === undefined) complete = false;
    else if (call.cursorCallId !== "") matched.set(call.cursorCallId, result);
  }
  return matched.size === 0 ? undefined : { step, results: matched, complete };
}

/** What the continued Run is opened with. */
export interface ContinueInputs {
  readonly conversation: Conversation<ActiveTurn>;
  readonly step: PendingStep;
  readonly selection: ReturnType<typeof selectModel>;
  readonly key: string | undefined;
  readonly workspaceRoot: string;
  readonly abortSignal: AbortSignal | undefined;
  readonly startFacts: StartFacts;
}

/**
 * Opens the Run that continues a stored step: `resume_action` with the step's checkpoint
 * and the conversation's request context (the blobs the checkpoint reaches go with it
 * when the server may lack them), and writes its `outbound Run:` line (`resume=true`).
 *
 * @param config The provider configuration.
 * @param input The conversation, its stored step, the model and the call's facts.
 * @returns The new turn, or `undefined` when the conversation has no request context.
 */
export async function openContinuedTurn(
  config: ProviderConfig,
  input: ContinueInputs,
): Promise<ActiveTurn | undefined> {
  const { conversation, step, selection } = input;
  const requestContext = conversation.requestContext;
  if (requestContext === undefined) return undefined;
  const request = buildResumeRequest({
    conversationId: conversation.conversationId,
    conversationGroupId: conversation.groupId,
    runId: config.generateId(),
    requestContext: requestContext.message,
    model: selection,
  });
  const pushed = planBlobPush(conversation.serverBlobs, step.checkpoint, config.blobs);
  request.preFetchedBlobs = pushed.map((blob) => create(PreFetchedBlobSchema, blob));
  emitDiagnostic(config.logger, {
    kind: "outbound-run",
    sessionKey: input.key ?? "none",
    conversationId: conversation.conversationId,
    model: selection.modelId,
    transport: config.transport.kind,
    reset: false,
    resume: true,
    checkpointLen: step.checkpoint.length,
    requestContext: "reused",
    requestContextLen: requestContext.bytes.length,
    systemPromptSent: false,
  });
  const run = await openAgentRun(config, {
    requestBytes: encodeRunRequestMessage(request, step.checkpoint),
    requestContext: requestContext.message,
    abortSignal: input.abortSignal,
    blobPush: { serverBlobs: conversation.serverBlobs, pushed: pushed.length > 0 },
  });
  const turn = new ActiveTurn({
    ...turnServices(config),
    run,
    conversationId: conversation.conversationId,
    modelId: selection.modelId,
    priorUsed: step.used ?? conversation.checkpointUsed,
    priorCategories: conversation.checkpointCategories,
    workspaceRoot: input.workspaceRoot,
    startFacts: input.startFacts,
  });
  config.billing.variantOf.set(turn, selection.parameters);
  return turn;
}

/** What {@link startContinuation} takes from the call. */
export interface ContinuationCall {
  readonly conversation: Conversation<ActiveTurn>;
  readonly results: readonly LanguageModelV3ToolResultPart[];
  readonly selection: ReturnType<typeof selectModel>;
  readonly key: string | undefined;
  readonly cursorOptions: CursorCallOptions;
  readonly abortSignal: AbortSignal | undefined;
  readonly startFacts: StartFacts;
  /** The images that came with the results, checked against the model. */
  readonly media: (modelId: string) => Promise<ResultMedia | undefined>;
  /** Receives a warning for the host (a result for a call the step does not owe). */
  readonly warn: (message: string) => void;
}

/**
 * Starts continuing the conversation's stored step when the results are its calls': opens
 * the `resume_action` Run, arms it to answer the re-issued batch with the host's results
 * (the rule reminder riding with the first, the step dropped once they are in), and writes
 * the `continuation: … heldRun=restored-checkpoint` line.
 *
 * @param config The provider configuration.
 * @param input The conversation, the results and the call's facts.
 * @returns The turn, the match and the results' tool names; `undefined` when there is no
 *   stored step for these results or no request context to send.
 */
export async function startContinuation(
  config: ProviderConfig,
  input: ContinuationCall,
): Promise<
  | { readonly turn: ActiveTurn; readonly matched: MatchedStep; readonly toolNames: string[] }
  | undefined
> {
  const { conversation, results, cursorOptions } = input;
  const matched = matchStoredStep(conversation.pendingStep, results);
  if (matched === undefined) return undefined;
  const turn = await openContinuedTurn(config, {
    conversation,
    step: matched.step,
    selection: input.selection,
    key: input.key,
    workspaceRoot: config.workspaceFor(cursorOptions.workspace).workspaceRoot,
    abortSignal: input.abortSignal,
    startFacts: input.startFacts,
  });
  if (turn === undefined) return undefined;
  for (const result of results) config.toolCallOwners.delete(result.toolCallId);
  turn.interactions.sessionRules = cursorOptions.sessionRules;
  const due = dueRuleReminder(conversation.ruleReminder, cursorOptions.sessionRules);
  turn.expectReissue({
    results: matched.results,
    missingReason: "The host returned no result for this tool call",
    reminder: due && { text: due.text, sent: () => conversation.noteRuleReminder(due.kind) },
    media: await input.media(turn.modelId),
    answered: (delivered) => {
      // The results are in Cursor's context: the step is not continued again.
      conversation.awaitResults(undefined);
      for (const message of delivered) input.warn(message);
    },
  });
  const toolNames = results.map((result) => result.toolName);
  emitDiagnostic(config.logger, {
    kind: "continuation",
    toolNames,
    heldRun: "restored-checkpoint",
  });
  return { turn, matched, toolNames };
}
