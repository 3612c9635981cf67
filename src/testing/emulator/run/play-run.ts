/**
 * A Run's path from its `run_request` to its end, top to bottom: validation, the
 * requested model, the `request_context` probe, the conversation (fresh, or rebuilt from
 * the client's blobs), the turn (a new user message, or a resume that re-issues a staged
 * tool batch), the scenario (directives by default) acting through the model steps, and
 * the success tail. Frames go out through the Run's writer.
 *
 * The whole path: `run-session.ts` (frames in) → this file → `../model/turn/` (model calls
 * in `model-call.ts`, tool steps in `tool-step.ts`, the tail in `finish-turn.ts`) →
 * `../io/run-writer.ts` (frames out).
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import type { AgentRunRequest } from "../../../gen/agent/v1/run_request_pb.ts";
import type { ConversationStateStructure } from "../../../gen/agent/v1/conversation_state_pb.ts";
import { AgentMode } from "../../../gen/agent/v1/common_pb.ts";
import { type UserMessage, UserMessageSchema } from "../../../gen/agent/v1/user_message_pb.ts";
import type { RequestContext } from "../../../gen/agent/v1/request_context_pb.ts";
import { BlobChannel } from "../io/blob-channel.ts";
import type { ConversationBlobs } from "../conversation/blob-cache.ts";
import type { ResolvedModel } from "../catalog/catalog.ts";
import { RunFailure } from "../wire/connect-http.ts";
import { decodeState } from "../conversation/load-state.ts";
import {
  countToolSteps,
  isFinalAssistant,
  isUserRoot,
  lastUserIndex,
  rootBytes,
  rootText,
  type Transcript,
  type TurnEntry,
} from "../conversation/transcript.ts";
import { emitChunks, emitText, emitThinking } from "../model/turn/model-call.ts";
import { fireDeferredFault, republishLate, runToolStep } from "../model/turn/tool-step.ts";
import { finishTurn } from "../model/turn/finish-turn.ts";
import { parsePending, type PendingBatch } from "../model/turn/pending-calls.ts";
import {
  directiveScenario,
  type ScenarioContext,
  type ScenarioToolResult,
} from "../model/scenario/scenario.ts";
import type { ToolEnv } from "../model/tools/tool-run.ts";
import type { TurnState } from "../model/turn/turn-state.ts";
import {
  blobMiss,
  loadTranscript,
  pickModel,
  probeRequestContext,
  type RunDeps,
  snakeCase,
} from "./run-inputs.ts";
import { executePlanMessage, modeId } from "./plan-action.ts";

/**
 * Plays a Run from its `run_request` to its end.
 *
 * @param deps The emulator and session.
 * @param request The decoded run request.
 * @param rawState The exact bytes of `conversation_state` as the client sent them.
 * @throws {RunFailure} to end the Run with a Connect error.
 */
export async function playRun(
  deps: RunDeps,
  request: AgentRunRequest,
  rawState: Uint8Array | undefined,
): Promise<void> {
  const { io } = deps;
  if (
    request.conversationState === undefined &&
    io.violation("conversation-state-missing", "run_request has no conversation_state")
  ) {
    throw new RunFailure({ code: "invalid_argument", message: "Conversation state is required" });
  }
  const conversationId = request.conversationId ?? `conversation-${io.runId}`;
  io.record.conversationId = conversationId;
  const model = pickModel(deps, request);
  const action = request.action?.action;
  io.record.action = snakeCase(action?.case ?? "none");
  if (action?.case === "cancelAction") {
    throw new RunFailure({ code: "canceled", message: "Canceled by the client" });
  }
  if (
    action?.case !== "userMessageAction" && action?.case !== "resumeAction" &&
    action?.case !== "startPlanAction" && action?.case !== "executePlanAction"
  ) {
    throw new RunFailure({
      code: "unimplemented",
      message: `Action ${JSON.stringify(io.record.action)} is not emulated`,
    });
  }
  const actionContext = action.value.requestContext;
  const context = await probeRequestContext(io, actionContext);
  const blobs = new BlobChannel<ConversationBlobs>(
    io,
    deps.blobCache?.forConversation(conversationId),
  );
  await blobs.acceptPreFetched(request.preFetchedBlobs);
  const known = deps.conversations.get(conversationId) !== undefined;
  const history = action.case === "userMessageAction"
    ? action.value.conversationHistory
    : undefined;
  const transcript = await loadTranscript(deps, blobs, rawState, context.message, history);
  io.record.continuity = io.record.checkpointSupplied && known ? "warm" : "cold";
  for (const fault of deps.faults) if (fault.kind === "blob-miss") await blobMiss(io, blobs);
  const input: TurnInput = {
    deps,
    blobs,
    transcript,
    model,
    conversationId,
    requestContext: context.message,
    contextBytes: context.bytes,
    requestId: io.record.requestId,
    faultScope: request.conversationGroupId || conversationId,
    state: rawState === undefined || rawState.length === 0 ? undefined : decodeState(rawState),
  };
  const conversation = deps.conversations.ensure(conversationId);
  await playTurn(
    input,
    action.case === "resumeAction" ? { kind: "resume" } : {
      kind: "message",
      userMessage: action.case === "executePlanAction"
        ? executePlanMessage(io, conversation, action.value)
        : action.value.userMessage,
    },
  );
}

/** What the turn starts from. */
interface TurnInput {
  readonly deps: RunDeps;
  readonly blobs: BlobChannel<ConversationBlobs>;
  readonly transcript: Transcript;
  readonly model: ResolvedModel;
  readonly conversationId: string;
  readonly requestContext: RequestContext | undefined;
  readonly contextBytes: Uint8Array;
  readonly requestId: string;
  /** Where `::fault … times=N` firings are counted: the conversation group. */
  readonly faultScope: string;
  /** The decoded checkpoint the client supplied, if any. */
  readonly state: ConversationStateStructure | undefined;
}

/** A new message or a resume. */
type TurnKind =
  | { readonly kind: "message"; readonly userMessage: UserMessage | undefined }
  | { readonly kind: "resume" };

/** Plays the turn (new or resumed) to its end. */
async function playTurn(input: TurnInput, kind: TurnKind): Promise<void> {
  const { deps, transcript } = input;
  const io = deps.io;
  const conversation = deps.conversations.ensure(input.conversationId);
  const lastUser = lastUserIndex(transcript.roots);
  const finalLast = isFinalAssistant(transcript.roots[transcript.roots.length - 1]);
  let turn: TurnEntry;
  let idealRootCount: number;
  let completedSteps = 0;
  let pending: PendingBatch | undefined;
  if (kind.kind === "message") {
    idealRootCount = transcript.roots.length - (finalLast ? 1 : 0);
    turn = await newTurn(input, kind.userMessage);
  } else {
    const last = transcript.turns[transcript.turns.length - 1];
    if (last === undefined) {
      throw new RunFailure({
        code: "failed_precondition",
        message: "Nothing to resume: the conversation has no turn",
      });
    }
    turn = last;
    idealRootCount = transcript.roots.length;
    completedSteps = countToolSteps(transcript.roots.slice(lastUser + 1));
    pending = parsePending(input.state);
  }
  const hasHistory = transcript.turns.length > 1 || kind.kind === "resume" ||
    transcript.roots.slice(0, idealRootCount).some((root, index) => index > 0 && isUserRoot(root));
  io.record.userText = turn.userMessage.text;
  io.record.images = (turn.userMessage.selectedContext?.selectedImages ?? []).map((image) =>
    image.mimeType || "unknown"
  );
  io.record.turn = transcript.turns.length;
  const state = turnState(input, turn, conversation, idealRootCount, hasHistory, completedSteps);
  state.toolEnv.onExecSent = () => {
    republishLate(state, "exec").catch(() => {});
    fireDeferredFault(state, "exec");
  };
  if (completedSteps > 0) io.variant("continuation", "checkpoint");
  // The new message's blobs go out now; their acknowledgements are awaited before the
  // first checkpoint that references them (AGENT-SCHEMA.md §5.5), not before the model.
  await input.blobs.send();
  if (pending !== undefined) {
    state.toolSteps = pending.step;
    await runToolStep(state, pending.specs, pending.ids);
  } else if (kind.kind === "resume" && finalLast) {
    await emitText(state, "Nothing to resume: the turn already finished.");
  }
  if (!(kind.kind === "resume" && finalLast)) await runScenario(input, state);
  await finishTurn(state);
  io.record.mode = conversation.mode;
  conversation.runs++;
}

async function newTurn(input: TurnInput, message: UserMessage | undefined): Promise<TurnEntry> {
  const userMessage = create(UserMessageSchema, message ?? {});
  if (userMessage.mode === AgentMode.UNSPECIFIED) userMessage.mode = AgentMode.AGENT;
  input.deps.conversations.ensure(input.conversationId).mode = modeId(userMessage.mode);
  const userMessageId = await input.blobs.put(toBinary(UserMessageSchema, userMessage));
  const turn: TurnEntry = {
    userMessageId,
    userMessage,
    steps: [],
    requestId: input.requestId,
    blobId: undefined,
  };
  input.transcript.turns.push(turn);
  const json = { role: "user", content: [{ type: "text", text: userMessage.text }] };
  const bytes = rootBytes(json);
  input.transcript.roots.push({ id: await input.blobs.put(bytes), bytes, json });
  return turn;
}

function turnState(
  input: TurnInput,
  turn: TurnEntry,
  conversation: TurnState["conversation"],
  idealRootCount: number,
  hasHistory: boolean,
  completedSteps: number,
): TurnState {
  const { deps } = input;
  const env = input.requestContext?.env;
  const toolEnv: ToolEnv = {
    io: deps.io,
    workspace: env?.workspacePaths[0] ?? env?.processWorkingDirectory ?? "/",
    tools: input.requestContext?.tools ?? [],
    modelId: input.model.model.id,
    conversationId: input.conversationId,
    watchShell: deps.watchShell,
    asyncAnswer: deps.asyncAnswer,
    conversation: deps.conversations.ensure(input.conversationId),
    acceptPlan: (uri, plan) => deps.conversations.acceptPlan(input.conversationId, uri, plan),
  };
  return {
    io: deps.io,
    blobs: input.blobs,
    transcript: input.transcript,
    turn,
    turnNumber: input.transcript.turns.length,
    toolEnv,
    model: input.model,
    contextBytes: input.contextBytes,
    requestContext: input.requestContext,
    conversations: deps.conversations,
    conversationId: input.conversationId,
    conversation,
    startedMs: deps.io.now(),
    idealRootCount,
    hasHistory,
    chunkChars: deps.options.chunkChars,
    finalAnswerBeforeTurnEnded: deps.options.finalAnswerBlob === "before-turn-ended",
    contextOverflow: deps.options.contextOverflow,
    call: undefined,
    toolSteps: completedSteps,
    stepIds: 0,
    previousPrompt: undefined,
    lastCheckpoint: undefined,
  };
}

async function runScenario(input: TurnInput, state: TurnState): Promise<void> {
  const { deps, transcript } = input;
  const lastUser = lastUserIndex(transcript.roots);
  const history = transcript.roots
    .slice(1, lastUser)
    .filter((root) => root.json.providerOptions?.emulator?.injected !== true)
    .map((root) => ({ role: root.json.role, text: rootText(root.json) }));
  const previousResults: ScenarioToolResult[] = transcript.roots
    .slice(lastUser + 1)
    .filter((root) => root.json.role === "tool")
    .map((root) => ({ toolCallId: root.json.id ?? "", ok: true, summary: rootText(root.json) }));
  const context: ScenarioContext = {
    userText: state.turn.userMessage.text,
    turn: state.turnNumber,
    history,
    model: { id: input.model.model.id, thinks: input.model.thinks, maxMode: input.model.maxMode },
    requestContextBytes: input.contextBytes,
    workspace: state.toolEnv.workspace,
    skills: (input.requestContext?.agentSkills ?? []).map((skill) => ({
      path: skill.fullPath,
      description: skill.description,
    })),
    advertisedTools: (input.requestContext?.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      providerIdentifier: tool.providerIdentifier,
      toolName: tool.toolName,
    })),
    completedSteps: state.toolSteps,
    previousResults,
    text: (text, chunkChars) => emitText(state, text, chunkChars),
    chunks: (chunks) => emitChunks(state, chunks),
    think: (text) => emitThinking(state, text),
    tools: async (specs) =>
      (await runToolStep(state, specs)).map((result) => ({
        toolCallId: result.toolCallId,
        ok: result.ok,
        summary: result.summary,
      })),
    sleep: (ms) => deps.io.sleep(ms),
    fault: (spec, limit, point) => {
      if (!takeFiring(input, limit)) return Promise.resolve();
      if (point !== undefined) {
        state.deferredFault = { spec, point: point.at, delayMs: point.delayMs };
        return Promise.resolve();
      }
      return applyFault(input, spec);
    },
    lateCheckpoint: (at, limit) => {
      if (takeFiring(input, limit)) state.lateCheckpoint = at;
      return Promise.resolve();
    },
    withholdCheckpoint: (limit) => {
      if (takeFiring(input, limit)) state.withholdSettled = true;
      return Promise.resolve();
    },
    report: (name, value) => deps.io.variant(name, value),
  };
  await (deps.options.scenario ?? directiveScenario)(context);
}

/**
 * Whether a limited fault fires on this Run (and counts it). Counted per conversation
 * group: a reseeded or rebuilt conversation of the same session does not fire it again.
 */
function takeFiring(
  input: TurnInput,
  limit: { readonly key: string; readonly times: number } | undefined,
): boolean {
  if (limit === undefined) return true;
  const firings = input.deps.conversations.ensure(input.faultScope).faultFirings;
  const fired = firings.get(limit.key) ?? 0;
  if (fired >= limit.times) return false;
  firings.set(limit.key, fired + 1);
  return true;
}

async function applyFault(
  input: TurnInput,
  spec: Parameters<ScenarioContext["fault"]>[0],
): Promise<void> {
  const io = input.deps.io;
  if (spec.kind === "http-status" || spec.kind === "wrong-region") {
    throw new RunFailure({
      code: "invalid_argument",
      message: `Fault ${JSON.stringify(spec.kind)} cannot happen mid-Run`,
    });
  }
  if (spec.kind === "blob-miss") {
    io.record.faults.push("blob-miss");
    await input.blobs.get([new Uint8Array(32).fill(0xee)]);
    throw new RunFailure({ code: "internal", message: "Blob not found" });
  }
  io.writer.arm(spec, "afterFrames" in spec ? spec.afterFrames ?? 0 : 0);
}
