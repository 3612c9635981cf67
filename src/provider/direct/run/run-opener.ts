/**
 * Preparing a Run for a planned turn: the request context (advertised tools appended),
 * the run request, the outbound debug lines, and an opener that starts the same Run on a
 * new request id each time it is called (the first Run, and any replay of it).
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { create } from "@bufbuild/protobuf";
import { type PreFetchedBlob, PreFetchedBlobSchema } from "../../../gen/agent/v1/run_request_pb.ts";
import { CursorError } from "../../../core/cursor-error.ts";
import { encodeRunRequestMessage } from "../../../protocol/run-request-bytes.ts";
import { buildRunDescriptors } from "../../../protocol/run-descriptors.ts";
import { AgentRun } from "../../../agent-run/agent-run.ts";
import {
  type MaterializedRequestContext,
  materializeRequestContext,
  requestContextKey,
} from "../../../agent-run/request-context.ts";
import {
  agentModeOf,
  buildResumeRequest,
  buildUserTurnRequest,
} from "../../../agent-run/run-request.ts";
import type { RequestContext } from "../../../gen/agent/v1/request_context_pb.ts";
import {
  noteRun,
  planBlobPush,
  type ServerBlobKnowledge,
} from "../../../agent-run/blobs/blob-push.ts";
import { buildExecutePlanRequest } from "../../../agent-run/query-routing.ts";
import type { CursorCallOptions } from "../../settings/cursor-options.ts";
import { dueRuleReminder } from "../interactions/rule-reminder.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { ActiveTurn, type TurnOptions } from "../turn/active-turn.ts";
import type { StartFacts, SuccessorKind } from "../turn-types.ts";
import type { convertPrompt } from "../call/convert-prompt.ts";
import { advertisedTools } from "../turn-plan/capability-epoch.ts";
import { conversationSkills } from "../turn-plan/skills.ts";
import { admitContextEpoch, instructionSources } from "../turn-plan/context-epoch.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { logOutbound } from "./outbound-lines.ts";
import type { selectModel } from "../call/model-options.ts";
import type { HostTools } from "../tools/host-tools.ts";
import type { TurnPlan } from "../turn-plan/turn-plan.ts";

/** What a Run is prepared from. */
export interface RunInputs {
  readonly plan: TurnPlan;
  readonly selection: ReturnType<typeof selectModel>;
  readonly tools: HostTools;
  readonly options: LanguageModelV3CallOptions;
  /** `providerOptions.cursor`, checked (read once per call). */
  readonly cursorOptions: CursorCallOptions;
  readonly key: string | undefined;
  readonly converted: ReturnType<typeof convertPrompt>;
  /** Build an approved plan (`execute_plan_action`) instead of sending a user message. */
  readonly executePlan?: { readonly uri: string; readonly content: string };
}

/** What a prepared Run is opened as. */
export interface OpenAs {
  /** The Run this one succeeds in the same host turn (a replay, a rebuild, a plan's build). */
  readonly after?: { readonly turn: ActiveTurn; readonly kind: SuccessorKind };
  /** How the turn's first Run started (for a first Run; a successor keeps its own). */
  readonly startFacts?: StartFacts;
}

/** A prepared Run. */
export interface PreparedRun {
  /** Opens the Run (again): a new request id, the same run request. */
  readonly openTurn: (as?: OpenAs) => Promise<ActiveTurn>;
  readonly requestContext: ReturnType<typeof materializeRequestContext>;
  /** Skills this Run appends to the conversation's (a capability-epoch change). */
  readonly skillsAppended: number;
}

/**
 * Prepares the Run of a planned turn and writes its outbound lines.
 *
 * @param config The provider configuration.
 * @param input The plan, model selection, host tools, call options and prompt.
 * @returns The opener and the request context.
 */
export async function prepareRun(config: ProviderConfig, input: RunInputs): Promise<PreparedRun> {
  const { plan } = input;
  const { requestContext, workspaceRoot, skillsAppended } = await frozenRequestContext(
    config,
    input,
  );
  const request = runRequest(config, input, requestContext.message);
  const pushed = pushBlobs(config, plan, request);
  const openTurn = turnOpener(config, input, {
    requestBytes: encodeRunRequestMessage(request, plan.checkpoint),
    requestContext: requestContext.message,
    workspaceRoot,
    pushed,
  });
  if (config.logger.enabled) {
    await logOutbound(config, {
      plan,
      selection: input.selection,
      key: input.key,
      transport: config.transport.kind,
      requestContext,
    });
  }
  return { openTurn, requestContext, skillsAppended };
}

/**
 * The request context of the Run (advertised tools appended, skills, git facts), reused
 * while its inputs are unchanged and recorded as the conversation's.
 */
async function frozenRequestContext(config: ProviderConfig, input: RunInputs) {
  const conversation = input.plan.conversation;
  const advertised = advertisedTools(conversation?.advertisedTools ?? [], input.tools);
  conversation?.noteSent({ advertisedTools: advertised });
  const previous = conversation?.requestContext;
  // A first context always reads the git facts: git runs while the turn computes (ADR 199).
  const first = previous === undefined
    ? config.workspaceGit.facts(
      config.logger,
      config.workspaceRootFor(input.cursorOptions.workspace),
    )
    : undefined;
  // Awaited below; this keeps a failure of the work in between from leaving it unhandled.
  first?.catch(() => {});
  const workspace = config.workspaceFor(input.cursorOptions.workspace);
  if (first !== undefined) await buildRunDescriptors(nextTask);
  const skills = conversationSkills(previous, input.converted.systemPrompt);
  const base = {
    workspace,
    systemPrompt: input.plan.systemPrompt,
    tools: advertised,
    ...(skills.advertised === undefined ? {} : { skills: skills.advertised }),
  };
  // Git facts are read only when the context is rebuilt anyway, then frozen with it (ADR 120).
  const git = first !== undefined
    ? await first
    : previous?.key === requestContextKey(base)
    ? undefined
    : await config.workspaceGit.facts(config.logger, workspace.workspaceRoot);
  const requestContext = materializeRequestContext({ ...base, git }, previous);
  conversation?.noteSent({ requestContext });
  return {
    requestContext,
    workspaceRoot: workspace.workspaceRoot,
    skillsAppended: skills.appended,
  };
}

/**
 * Lets pending I/O callbacks run (git's next step) before the caller goes on:
 * `setImmediate` where the runtime has it (Node, Bun: right after I/O callbacks, without
 * `setTimeout`'s clamp of ≥ 1 ms), else `setTimeout`. Not a `MessageChannel`: on Node its
 * first message loads undici (for `MessageEvent`), ≈ 35 ms an HTTP/2 Run never needs.
 */
function nextTask(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown })
    .setImmediate;
  return new Promise((resolve) => {
    if (immediate === undefined) setTimeout(resolve, 0);
    else immediate(resolve);
  });
}

/** The run request: the user message (with its reminder and epoch), or a plan's build. */
function runRequest(config: ProviderConfig, input: RunInputs, context: RequestContext) {
  const { plan, selection } = input;
  if (input.executePlan !== undefined) {
    return buildExecutePlanRequest({
      conversationId: plan.conversationId,
      conversationGroupId: plan.groupId,
      runId: config.generateId(),
      requestContext: context,
      model: selection,
      planFileUri: input.executePlan.uri,
      planFileContent: input.executePlan.content,
    });
  }
  return buildUserTurnRequest({
    conversationId: plan.conversationId,
    conversationGroupId: plan.groupId,
    messageId: config.generateId(),
    userText: userTurnText(config, input),
    images: input.converted.images.map((image) => ({ ...image, uuid: config.generateId() })),
    requestContext: context,
    model: selection,
    mode: agentModeOf(plan.conversation?.cursorMode),
  });
}

/** The user message's text: the person's, the instruction epoch, then a due rule reminder. */
function userTurnText(config: ProviderConfig, input: RunInputs): string {
  const { plan } = input;
  const conversation = plan.conversation;
  // A rule reminder goes with the user message, after the person's text (ADR 135).
  const reminder = conversation === undefined
    ? undefined
    : dueRuleReminder(conversation.ruleReminder, input.cursorOptions.sessionRules);
  if (reminder !== undefined) conversation?.noteRuleReminder(reminder.kind);
  const epoch = contextEpoch(config, input, plan.continuity === "cold");
  return [plan.userText, epoch, reminder?.text].filter((part) => part !== undefined)
    .join("\n\n");
}

/** Blobs a warm Run pushes with its request (what the server is believed to lack). */
function pushBlobs(
  config: ProviderConfig,
  plan: TurnPlan,
  request: { preFetchedBlobs: PreFetchedBlob[] },
): boolean {
  const conversation = plan.conversation;
  const pushed = conversation !== undefined && plan.continuity === "warm"
    ? planBlobPush(conversation.serverBlobs, plan.checkpoint, config.blobs)
    : [];
  request.preFetchedBlobs = pushed.map((blob) => create(PreFetchedBlobSchema, blob));
  if (pushed.length > 0 && config.logger.enabled) {
    const bytes = pushed.reduce((sum, blob) => sum + blob.value.length, 0);
    config.logger.line(
      `kv: pre_fetched_blobs count=${pushed.length} bytes=${bytes} server=${conversation?.serverBlobs.belief}`,
    );
  }
  return pushed.length > 0;
}

/** Opens the prepared Run (again) as a first Run or as the successor of one. */
function turnOpener(
  config: ProviderConfig,
  input: RunInputs,
  prepared: {
    readonly requestBytes: Uint8Array;
    readonly requestContext: RequestContext;
    readonly workspaceRoot: string;
    readonly pushed: boolean;
  },
): PreparedRun["openTurn"] {
  const { plan, selection } = input;
  const conversation = plan.conversation;
  return async (as) => {
    const run = await openAgentRun(config, {
      requestBytes: prepared.requestBytes,
      requestContext: prepared.requestContext,
      abortSignal: input.options.abortSignal,
      blobPush: conversation === undefined
        ? undefined
        : { serverBlobs: conversation.serverBlobs, pushed: prepared.pushed },
    });
    const identity = {
      conversationId: plan.conversationId,
      modelId: selection.modelId,
      priorUsed: plan.priorUsed,
      priorCategories: conversation?.checkpointCategories,
      workspaceRoot: prepared.workspaceRoot,
    };
    const turn = as?.after === undefined
      ? new ActiveTurn({ ...turnServices(config), ...identity, run, startFacts: as?.startFacts })
      : as.after.turn.successor(as.after.kind, run, identity);
    // The ledger prices the variant the Run asked for (a Fast variant at its Fast rates).
    config.billing.variantOf.set(turn, selection.parameters);
    turn.interactions.sessionRules = input.cursorOptions.sessionRules;
    return turn;
  };
}

/** What opening one Run takes. */
export interface OpenInputs {
  readonly requestBytes: Uint8Array;
  readonly requestContext: RequestContext;
  readonly abortSignal: AbortSignal | undefined;
  /** The conversation's belief about the server's blobs, and whether this Run pushed any. */
  readonly blobPush?: {
    readonly serverBlobs: ServerBlobKnowledge;
    readonly pushed: boolean;
  } | undefined;
}

/** The provider's services every turn uses. */
export function turnServices(
  config: ProviderConfig,
): Pick<TurnOptions, "newId" | "logger" | "images"> {
  return { newId: config.generateId, logger: config.logger, images: config.images };
}

/** Opens a Run on a new request id (current credentials) and starts it with the request. */
export async function openAgentRun(config: ProviderConfig, input: OpenInputs): Promise<AgentRun> {
  const requestId = config.generateId();
  const headers = await config.headers(requestId, input.abortSignal);
  const agentBaseURL = await config.agentOrigin(headers, input.abortSignal);
  const stream = await config.transport.openRun({ agentBaseURL, headers, requestId });
  const run = new AgentRun(stream, {
    blobs: config.blobs,
    requestContext: input.requestContext,
    logger: config.logger,
    now: config.now,
  });
  if (input.abortSignal?.aborted) {
    run.close();
    throw new CursorError("canceled", "Request was canceled");
  }
  if (input.blobPush) noteRun(input.blobPush.serverBlobs, run.activity, input.blobPush.pushed);
  await run.start(input.requestBytes);
  return run;
}

/**
 * Opens the Run that resumes an interrupted turn from its latest eligible checkpoint
 * (`resume_action`, same conversation) and writes its `outbound Run:` line (`resume=true`).
 * The new attempt carries the failed one's checkpoint tracker.
 *
 * @param config The provider configuration.
 * @param failed The interrupted attempt.
 * @param input The conversation's group, model, request context, session key and the
 *   call's abort signal.
 * @returns The resumed attempt.
 * @throws {CursorError} `interrupted` when the failed attempt has no eligible checkpoint.
 */
export async function openResumedTurn(
  config: ProviderConfig,
  failed: ActiveTurn,
  input: {
    readonly groupId: string;
    readonly selection: ReturnType<typeof selectModel>;
    readonly requestContext: MaterializedRequestContext;
    readonly key: string | undefined;
    readonly abortSignal: AbortSignal | undefined;
  },
): Promise<ActiveTurn> {
  const checkpoint = failed.checkpoints.eligible;
  if (checkpoint === undefined) {
    throw new CursorError("interrupted", "The turn has no checkpoint to resume from");
  }
  const request = buildResumeRequest({
    conversationId: failed.conversationId,
    conversationGroupId: input.groupId,
    runId: config.generateId(),
    requestContext: input.requestContext.message,
    model: input.selection,
  });
  emitDiagnostic(config.logger, {
    kind: "outbound-run",
    sessionKey: input.key ?? "none",
    conversationId: failed.conversationId,
    model: input.selection.modelId,
    transport: config.transport.kind,
    reset: false,
    resume: true,
    checkpointLen: checkpoint.length,
    requestContext: "reused",
    requestContextLen: input.requestContext.bytes.length,
    systemPromptSent: false,
  });
  const run = await openAgentRun(config, {
    requestBytes: encodeRunRequestMessage(request, checkpoint),
    requestContext: input.requestContext.message,
    abortSignal: input.abortSignal,
  });
  const turn = failed.successor("resume", run);
  config.billing.variantOf.set(turn, input.selection.parameters);
  return turn;
}

/**
 * The host instructions a user-turn Run sends on its tail (context epochs, see
 * context-epoch.ts), recording what the conversation's model then holds.
 */
function contextEpoch(config: ProviderConfig, input: RunInputs, cold: boolean): string | undefined {
  const conversation = input.plan.conversation;
  if (conversation === undefined) return undefined;
  const current = instructionSources(input.converted.systemPrompt, input.options.prompt);
  const decision = admitContextEpoch(conversation.instructionSources, current, cold);
  conversation.admitInstructions(decision.admitted);
  if (decision.reminder === undefined) return undefined;
  emitDiagnostic(config.logger, {
    kind: "context-epoch",
    sessionKey: input.key ?? "none",
    conversationId: input.plan.conversationId,
    reason: decision.reasserted ? "reassert" : "changed",
    sent: decision.sent,
    removed: decision.removed,
  });
  return decision.reminder;
}
