/**
 * Sets up the turn of a Run — a new user message, or the resumption of the last turn
 * (re-issuing its staged tool batch) — then runs the scenario and the success tail.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import type { ConversationStateStructure } from "../../gen/agent/v1/conversation_state_pb.ts";
import { AgentMode } from "../../gen/agent/v1/common_pb.ts";
import { type UserMessage, UserMessageSchema } from "../../gen/agent/v1/user_message_pb.ts";
import type { RequestContext } from "../../gen/agent/v1/request_context_pb.ts";
import type { BlobChannel } from "./blob-channel.ts";
import type { ResolvedModel } from "./catalog.ts";
import { RunFailure } from "./connect-http.ts";
import type { ToolSpec } from "./directives.ts";
import type { Conversations } from "./conversations.ts";
import type { FaultSpec } from "./faults.ts";
import type { ResolvedOptions } from "./options.ts";
import type { RunIo } from "./run-io.ts";
import { emitChunks, emitText, emitThinking } from "./model-call.ts";
import { directiveScenario, type ScenarioContext, type ScenarioToolResult } from "./scenario.ts";
import { runToolStep } from "./tool-step.ts";
import type { ToolEnv } from "./tool-run.ts";
import {
  isUserRoot,
  rootBytes,
  type RootMessage,
  rootText,
  type Transcript,
  type TurnEntry,
} from "./transcript.ts";
import type { TurnState } from "./turn-state.ts";
import { finishTurn } from "./turn-tail.ts";

/** What the engine needs from the emulator and the session. */
export interface EngineDeps {
  readonly io: RunIo;
  readonly options: ResolvedOptions;
  readonly conversations: Conversations;
  /** Faults taken for this Run at its start. */
  readonly faults: readonly FaultSpec[];
  readonly watchShell: (
    execId: number,
    listener: (stream: "stdout" | "stderr", data: string) => void,
  ) => void;
  readonly asyncAnswer: (toolCallId: string) => Promise<string>;
}

/** What the engine hands over. */
export interface TurnInput {
  readonly deps: EngineDeps;
  readonly blobs: BlobChannel;
  readonly transcript: Transcript;
  readonly model: ResolvedModel;
  readonly conversationId: string;
  readonly requestContext: RequestContext | undefined;
  readonly contextBytes: Uint8Array;
  readonly requestId: string;
  /** The decoded checkpoint the client supplied, if any. */
  readonly state: ConversationStateStructure | undefined;
}

/** A new message or a resume. */
export type TurnKind =
  | { readonly kind: "message"; readonly userMessage: UserMessage | undefined }
  | { readonly kind: "resume" };

interface Pending {
  readonly step: number;
  readonly ids: string[];
  readonly specs: ToolSpec[];
}

/** Runs the turn to its end. */
export async function runTurn(input: TurnInput, kind: TurnKind): Promise<void> {
  const { deps, transcript } = input;
  const io = deps.io;
  const conversation = deps.conversations.ensure(input.conversationId);
  const lastUser = lastUserIndex(transcript.roots);
  const finalLast = isFinalAssistant(transcript.roots[transcript.roots.length - 1]);
  let turn: TurnEntry;
  let idealRootCount: number;
  let completedSteps = 0;
  let pending: Pending | undefined;
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
  io.record.turn = transcript.turns.length;
  const state = turnState(input, turn, conversation, idealRootCount, hasHistory, completedSteps);
  await input.blobs.flush();
  if (pending !== undefined) {
    state.toolSteps = pending.step;
    await runToolStep(state, pending.specs, pending.ids);
  } else if (kind.kind === "resume" && finalLast) {
    await emitText(state, "Nothing to resume: the turn already finished.");
  }
  if (!(kind.kind === "resume" && finalLast)) await runScenario(input, state);
  await finishTurn(state);
  conversation.runs++;
}

async function newTurn(input: TurnInput, message: UserMessage | undefined): Promise<TurnEntry> {
  const userMessage = create(UserMessageSchema, message ?? {});
  if (userMessage.mode === AgentMode.UNSPECIFIED) userMessage.mode = AgentMode.AGENT;
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
    fault: (spec) => applyFault(input, spec),
  };
  await (deps.options.scenario ?? directiveScenario)(context);
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

function lastUserIndex(roots: readonly RootMessage[]): number {
  for (let index = roots.length - 1; index > 0; index--) {
    const root = roots[index];
    if (root !== undefined && isUserRoot(root)) return index;
  }
  return roots.length;
}

function isFinalAssistant(root: RootMessage | undefined): boolean {
  if (root?.json.role !== "assistant" || !Array.isArray(root.json.content)) return false;
  return !root.json.content.some((part: unknown) =>
    typeof part === "object" && part !== null && (part as { type?: unknown }).type === "tool-call"
  );
}

function countToolSteps(roots: readonly RootMessage[]): number {
  const steps = new Set<number>();
  for (const root of roots) {
    const step = root.json.providerOptions?.emulator?.step;
    if (root.json.role === "assistant" && step !== undefined) steps.add(step);
  }
  return steps.size;
}

function parsePending(state: ConversationStateStructure | undefined): Pending | undefined {
  const calls = (state?.pendingToolCalls ?? []).map((text) => {
    try {
      const json = JSON.parse(text) as {
        toolCallId?: unknown;
        providerOptions?: { emulator?: { step?: unknown; spec?: unknown } };
      };
      const spec = json.providerOptions?.emulator?.spec;
      const step = json.providerOptions?.emulator?.step;
      if (
        typeof json.toolCallId !== "string" || typeof step !== "number" ||
        typeof spec !== "object" || spec === null
      ) {
        return undefined;
      }
      return { id: json.toolCallId, step, spec: spec as ToolSpec };
    } catch {
      return undefined;
    }
  });
  const valid = calls.filter((call) => call !== undefined);
  if (valid.length === 0 || valid.length !== calls.length) return undefined;
  return {
    step: valid[0]?.step ?? 0,
    ids: valid.map((call) => call.id),
    specs: valid.map((call) => call.spec),
  };
}
