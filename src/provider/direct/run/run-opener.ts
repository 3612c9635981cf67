/**
 * Preparing a Run for a planned turn: the request context (advertised tools appended),
 * the run request, the outbound debug lines, and an opener that starts the same Run on a
 * new request id each time it is called (the first Run, and any replay of it).
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { create } from "@bufbuild/protobuf";
import { PreFetchedBlobSchema } from "../../../gen/agent/v1/run_request_pb.ts";
import { CursorError } from "../../../core/cursor-error.ts";
import { sha256Hex } from "../../../core/bytes.ts";
import { encodeRunRequestMessage } from "../../../protocol/run-request-bytes.ts";
import { AgentRun } from "../../../session/agent-run.ts";
import {
  type MaterializedRequestContext,
  materializeRequestContext,
  requestContextKey,
} from "../../../session/request-context.ts";
import { buildResumeRequest, buildUserTurnRequest } from "../../../session/run-request.ts";
import type { RequestContext } from "../../../gen/agent/v1/request_context_pb.ts";
import { noteRun, planBlobPush, type ServerBlobKnowledge } from "../../../session/blob-push.ts";
import { buildExecutePlanRequest } from "../../../session/interactions.ts";
import { AgentMode } from "../../../gen/agent/v1/common_pb.ts";
import type { CursorCallOptions } from "../../cursor-options.ts";
import { dueRuleReminder } from "../interactions/rule-reminder.ts";
import type { ProviderConfig } from "../provider-config.ts";
import {
  ActiveTurn,
  type StartFacts,
  type SuccessorKind,
  type TurnOptions,
} from "./active-turn.ts";
import type { convertPrompt } from "../call/convert-prompt.ts";
import { advertisedTools } from "../conversation/capability-epoch.ts";
import { conversationSkills } from "../conversation/skills.ts";
import { admitContextEpoch, instructionSources } from "../conversation/context-epoch.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { selectModel } from "../call/model-options.ts";
import type { HostTools } from "../tools/host-tools.ts";
import type { TurnPlan } from "../conversation/turn-plan.ts";

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
  const { plan, selection, tools, options } = input;
  const conversation = plan.conversation;
  const advertised = advertisedTools(conversation?.advertisedTools ?? [], tools);
  conversation?.noteSent({ advertisedTools: advertised });
  const workspace = config.workspaceFor(input.cursorOptions.workspace);
  const skills = conversationSkills(conversation?.requestContext, input.converted.systemPrompt);
  const base = {
    workspace,
    systemPrompt: plan.systemPrompt,
    tools: advertised,
    ...(skills.advertised === undefined ? {} : { skills: skills.advertised }),
  };
  const previous = conversation?.requestContext;
  // Git facts are read only when the context is rebuilt anyway, then frozen with it (ADR 120).
  const git = previous?.key === requestContextKey(base)
    ? undefined
    : await config.workspaceGit.facts(config.logger, workspace.workspaceRoot);
  const requestContext = materializeRequestContext({ ...base, git }, previous);
  conversation?.noteSent({ requestContext });
  const sessionRules = input.cursorOptions.sessionRules;
  // A rule reminder goes with the user message, after the person's text (ADR 135).
  const reminder = input.executePlan === undefined && conversation !== undefined
    ? dueRuleReminder(conversation.ruleReminder, sessionRules)
    : undefined;
  if (conversation !== undefined && reminder !== undefined) {
    conversation.noteRuleReminder(reminder.kind);
  }
  const epoch = input.executePlan === undefined
    ? contextEpoch(config, input, plan.continuity === "cold")
    : undefined;
  const userText = [plan.userText, epoch, reminder?.text].filter((part) => part !== undefined)
    .join("\n\n");
  const request = input.executePlan === undefined
    ? buildUserTurnRequest({
      conversationId: plan.conversationId,
      conversationGroupId: plan.groupId,
      messageId: config.generateId(),
      userText,
      images: input.converted.images.map((image) => ({ ...image, uuid: config.generateId() })),
      requestContext: requestContext.message,
      model: selection,
      mode: agentMode(conversation?.cursorMode),
    })
    : buildExecutePlanRequest({
      conversationId: plan.conversationId,
      conversationGroupId: plan.groupId,
      runId: config.generateId(),
      requestContext: requestContext.message,
      model: selection,
      planFileUri: input.executePlan.uri,
      planFileContent: input.executePlan.content,
    });
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
  const requestBytes = encodeRunRequestMessage(request, plan.checkpoint);
  const openTurn = async (as?: OpenAs): Promise<ActiveTurn> => {
    const run = await openAgentRun(config, {
      requestBytes,
      requestContext: requestContext.message,
      abortSignal: options.abortSignal,
      blobPush: conversation === undefined
        ? undefined
        : { serverBlobs: conversation.serverBlobs, pushed: pushed.length > 0 },
    });
    const identity = {
      conversationId: plan.conversationId,
      modelId: selection.modelId,
      priorUsed: plan.priorUsed,
      priorCategories: conversation?.checkpointCategories,
      workspaceRoot: workspace.workspaceRoot,
    };
    const turn = as?.after === undefined
      ? new ActiveTurn({ ...turnServices(config), ...identity, run, startFacts: as?.startFacts })
      : as.after.turn.successor(as.after.kind, run, identity);
    // The ledger prices the variant the Run asked for (a Fast variant at its Fast rates).
    config.billing.variantOf.set(turn, selection.parameters);
    turn.interactions.sessionRules = sessionRules;
    return turn;
  };
  if (config.logger.enabled) {
    await logOutbound(config, {
      plan,
      selection,
      key: input.key,
      transport: config.transport.kind,
      requestContext,
    });
  }
  return { openTurn, requestContext, skillsAppended: skills.appended };
}

/** The wire mode of Cursor's unified mode id (agent unless the conversation plans or asks). */
function agentMode(mode: string | undefined): AgentMode {
  switch (mode) {
    case "plan":
    case "spec":
      return AgentMode.PLAN;
    case "ask":
    case "chat":
      return AgentMode.ASK;
    case "debug":
      return AgentMode.DEBUG;
    default:
      return AgentMode.AGENT;
  }
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

async function logOutbound(
  config: ProviderConfig,
  facts: {
    plan: TurnPlan;
    selection: ReturnType<typeof selectModel>;
    key: string | undefined;
    transport: string;
    requestContext: { bytes: Uint8Array; reused: boolean };
  },
): Promise<void> {
  const { plan } = facts;
  emitDiagnostic(config.logger, {
    kind: "outbound-run",
    sessionKey: facts.key ?? "none",
    conversationId: plan.conversationId,
    model: facts.selection.modelId,
    transport: facts.transport,
    reset: plan.resetReason !== undefined,
    resume: false,
    checkpointLen: plan.checkpoint.length,
    requestContext: facts.requestContext.reused ? "reused" : "built",
    requestContextLen: facts.requestContext.bytes.length,
    systemPromptSent: plan.continuity === "cold",
  });
  emitDiagnostic(config.logger, {
    kind: "hash",
    subject: "systemPrompt",
    sha256: await sha256Hex(plan.systemPrompt),
    sent: plan.continuity === "cold",
  });
  emitDiagnostic(config.logger, {
    kind: "hash",
    subject: "requestContext",
    sha256: await sha256Hex(facts.requestContext.bytes),
    bytes: facts.requestContext.bytes.length,
  });
  emitDiagnostic(config.logger, {
    kind: "hash",
    subject: "checkpoint",
    sha256: await sha256Hex(plan.checkpoint),
    bytes: plan.checkpoint.length,
  });
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
