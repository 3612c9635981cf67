/**
 * Preparing a Run for a planned turn: the request context (advertised tools appended),
 * the run request, the outbound debug lines, and an opener that starts the same Run on a
 * new request id each time it is called (the first Run, and any replay of it).
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { create } from "@bufbuild/protobuf";
import { PreFetchedBlobSchema } from "../../gen/agent/v1/run_request_pb.ts";
import { CursorError } from "../../core/cursor-error.ts";
import { sha256Hex } from "../../core/bytes.ts";
import { encodeRunRequestMessage } from "../../protocol/run-request-bytes.ts";
import { AgentRun } from "../../session/agent-run.ts";
import { materializeRequestContext, requestContextKey } from "../../session/request-context.ts";
import { buildUserTurnRequest } from "../../session/run-request.ts";
import { noteRun, planBlobPush } from "../../session/blob-push.ts";
import { buildExecutePlanRequest } from "../../session/interactions.ts";
import { AgentMode } from "../../gen/agent/v1/common_pb.ts";
import { readCursorOptions } from "./model-options.ts";
import type { ProviderConfig } from "../provider-config.ts";
import { ActiveTurn } from "./active-turn.ts";
import type { convertPrompt } from "./convert-prompt.ts";
import { advertisedTools } from "./capability-epoch.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";
import type { selectModel } from "./model-options.ts";
import type { HostTools } from "./tools/host-tools.ts";
import type { TurnPlan } from "./turn-plan.ts";

/** What a Run is prepared from. */
export interface RunInputs {
  readonly plan: TurnPlan;
  readonly selection: ReturnType<typeof selectModel>;
  readonly tools: HostTools;
  readonly options: LanguageModelV3CallOptions;
  readonly key: string | undefined;
  readonly converted: ReturnType<typeof convertPrompt>;
  /** Build an approved plan (`execute_plan_action`) instead of sending a user message. */
  readonly executePlan?: { readonly uri: string; readonly content: string };
}

/** A prepared Run. */
export interface PreparedRun {
  /** Opens the Run (again): a new request id, the same run request. */
  readonly openTurn: () => Promise<ActiveTurn>;
  readonly requestContext: ReturnType<typeof materializeRequestContext>;
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
  if (conversation) conversation.advertisedTools = advertised;
  const base = { workspace: config.workspace, systemPrompt: plan.systemPrompt, tools: advertised };
  const previous = conversation?.requestContext;
  // Git facts are read only when the context is rebuilt anyway, then frozen with it (ADR 120).
  const git = previous?.key === requestContextKey(base)
    ? undefined
    : await config.workspaceGit.facts(config.logger);
  const requestContext = materializeRequestContext({ ...base, git }, previous);
  if (conversation) conversation.requestContext = requestContext;
  const request = input.executePlan === undefined
    ? buildUserTurnRequest({
      conversationId: plan.conversationId,
      conversationGroupId: plan.groupId,
      messageId: config.generateId(),
      userText: plan.userText,
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
  const sessionRules = readCursorOptions(options.providerOptions, config.providerName).sessionRules;
  const requestBytes = encodeRunRequestMessage(request, plan.checkpoint);
  const openTurn = async (): Promise<ActiveTurn> => {
    const requestId = config.generateId();
    const headers = await config.headers(requestId, options.abortSignal);
    const agentBaseURL = await config.agentOrigin(headers, options.abortSignal);
    const stream = await config.transport.openRun({ agentBaseURL, headers, requestId });
    const run = new AgentRun(stream, {
      blobs: config.blobs,
      requestContext: requestContext.message,
      logger: config.logger,
    });
    if (options.abortSignal?.aborted) {
      run.close();
      throw new CursorError("canceled", "Request was canceled");
    }
    if (conversation) noteRun(conversation.serverBlobs, run.activity, pushed.length > 0);
    await run.start(requestBytes);
    const turn = new ActiveTurn({
      run,
      conversationId: plan.conversationId,
      modelId: selection.modelId,
      priorUsed: plan.priorUsed,
      priorCategories: conversation?.checkpointCategories,
      newId: config.generateId,
      logger: config.logger,
      workspaceRoot: config.workspace.workspaceRoot,
      images: config.images,
    });
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
  return { openTurn, requestContext };
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
