/**
 * The state of the turn a Run is producing, shared by the model steps and the turn
 * set-up: transcript, blobs, the open model call, usage accounting and checkpoint
 * publishing.
 *
 * @module
 */
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import {
  type ConversationStateStructure,
  ConversationStateStructureSchema,
  type ConversationStep,
  ConversationStepSchema,
} from "../../../../gen/agent/v1/conversation_state_pb.ts";
import { AgentServerMessageSchema } from "../../../../gen/agent/v1/server_message_pb.ts";
import type { InteractionUpdateSchema } from "../../../../gen/agent/v1/interaction_update_pb.ts";
import type { RequestContext } from "../../../../gen/agent/v1/request_context_pb.ts";
import { bytesToHex, sha256 } from "../../../../core/bytes.ts";
import type { BlobChannel } from "../../io/blob-channel.ts";
import type { ConversationBlobs } from "../../conversation/blob-cache.ts";
import type { ResolvedModel } from "../../catalog/catalog.ts";
import type {
  CheckpointKind,
  ConversationEntry,
  Conversations,
} from "../../conversation/conversations.ts";
import type { RunIo } from "../../io/run-io.ts";
import type { ToolEnv } from "../tools/tool-run.ts";
import type { FaultSpec } from "../../faults/faults.ts";
import type { ToolFaultPoint } from "../plan/fault-directive.ts";
import {
  buildCheckpoint,
  rootBytes,
  type RootJson,
  type Transcript,
  turnBytes,
  type TurnEntry,
} from "../../conversation/transcript.ts";
import { estimateTokens } from "../../conversation/prompt-cache.ts";

/** The model call currently producing output. */
export interface OpenCall {
  readonly stepId: number;
  readonly startedAt: number;
  text: string;
  thinking: string;
  thinkingMs: number;
  /** Index into the Run record's modelCalls. */
  readonly recordIndex: number;
}

/**
 * How a too-long conversation fails (the emulator's `contextOverflow` option).
 *
 * @example
 * ```ts
 * import { createEmulator, type ContextOverflowError } from "../../../mod.ts";
 *
 * const contextOverflow: ContextOverflowError = "max-tokens";
 * const emulator = await createEmulator({ contextOverflow });
 * await emulator.close();
 * ```
 */
export type ContextOverflowError = "conversation-too-long" | "max-tokens";

/** Everything a turn needs. */
export interface TurnState {
  readonly io: RunIo;
  readonly blobs: BlobChannel<ConversationBlobs>;
  readonly transcript: Transcript;
  readonly turn: TurnEntry;
  /** 1-based number of this turn in the conversation. */
  readonly turnNumber: number;
  readonly toolEnv: ToolEnv;
  readonly model: ResolvedModel;
  readonly contextBytes: Uint8Array;
  readonly requestContext: RequestContext | undefined;
  readonly conversations: Conversations;
  readonly conversationId: string;
  readonly conversation: ConversationEntry;
  readonly startedMs: number;
  /** Number of roots that a perfectly continuing client had cached before this Run. */
  readonly idealRootCount: number;
  /** Whether anything could have been cached before this Run (not a conversation's first turn). */
  readonly hasHistory: boolean;
  /** Characters per text delta. */
  readonly chunkChars: number;
  /** Whether the final answer's blob is SET before `turn_ended` (else after it). */
  readonly finalAnswerBeforeTurnEnded: boolean;
  /** How a prompt over the model's context window fails. */
  readonly contextOverflow: ContextOverflowError;
  /** The open model call, if any. */
  call: OpenCall | undefined;
  /** Model steps with tool calls completed in this turn (including earlier Runs of it). */
  toolSteps: number;
  /** Step counter of this Run (`step_started.step_id`). */
  stepIds: number;
  /** Prompt of the previous model call of this Run. */
  previousPrompt: Uint8Array | undefined;
  /** The last published checkpoint, for the final repeat. */
  lastCheckpoint: ConversationStateStructure | undefined;
  /** A fault waiting for a point of the next tool step (`::fault … at=`). */
  deferredFault?:
    | { readonly spec: FaultSpec; readonly point: ToolFaultPoint; readonly delayMs: number }
    | undefined;
  /** Where the next tool step publishes its pre-result checkpoint again (`late-checkpoint`). */
  lateCheckpoint?: "exec" | "tool-result" | undefined;
  /** The next tool step saves no settled checkpoint (`no-checkpoint`). */
  withholdSettled?: boolean | undefined;
}

/** Sends an `interaction_update`. */
export async function sendUpdate(
  state: TurnState,
  update: NonNullable<MessageInitShape<typeof InteractionUpdateSchema>["message"]>,
): Promise<void> {
  await state.io.writer.send(create(AgentServerMessageSchema, {
    message: { case: "interactionUpdate", value: { message: update } },
  }));
}

/** Stores a ConversationStep as a blob (queued) and adds it to the turn. */
export async function addStep(
  state: TurnState,
  step: MessageInitShape<typeof ConversationStepSchema>,
): Promise<ConversationStep> {
  const message = create(ConversationStepSchema, step);
  const id = await state.blobs.put(toBinary(ConversationStepSchema, message));
  state.turn.steps.push({ id, step: message });
  return message;
}

/** Stores the turn's current structure (queued) and points the turn at it. */
export async function storeTurn(state: TurnState): Promise<void> {
  state.turn.blobId = await state.blobs.put(turnBytes(state.turn));
}

/** Appends a JSON root (queued for SET). */
export async function addRoot(state: TurnState, json: RootJson): Promise<void> {
  const bytes = rootBytes(json);
  const id = await state.blobs.put(bytes);
  state.transcript.roots.push({ id, bytes, json });
}

/** Builds the JSON root of a model call's assistant message. */
export function assistantRoot(
  call: OpenCall | undefined,
  toolCalls: readonly { toolCallId: string; toolName: string; args: unknown }[],
  step: number | undefined,
): RootJson {
  const content: unknown[] = [];
  if (call !== undefined && call.thinking !== "") {
    content.push({ type: "reasoning", text: call.thinking });
  }
  if (call !== undefined && call.text !== "") content.push({ type: "text", text: call.text });
  for (const toolCall of toolCalls) content.push({ type: "tool-call", ...toolCall });
  return {
    role: "assistant",
    content,
    id: "1",
    ...(step === undefined ? {} : { providerOptions: { emulator: { step } } }),
  };
}

/** Flushes queued blobs, then publishes a checkpoint (and remembers its hash). */
export async function publishCheckpoint(
  state: TurnState,
  pending: readonly string[],
  kind: CheckpointKind,
): Promise<void> {
  await state.blobs.flush();
  const record = state.io.record;
  const lastCall = record.modelCalls[record.modelCalls.length - 1];
  const used = (lastCall?.promptTokens ?? 0) + (lastCall?.outputTokens ?? 0);
  const checkpoint = buildCheckpoint(state.transcript, pending, {
    usedTokens: Math.min(used, state.model.contextTokens),
    maxTokens: state.model.contextTokens,
    systemBytes: state.transcript.roots[0]?.bytes.length ?? 0,
    context: state.requestContext,
  }, state.startedMs);
  await sendCheckpoint(state, checkpoint, kind);
}

/** Sends a checkpoint as-is and records it as issued. */
export async function sendCheckpoint(
  state: TurnState,
  checkpoint: ConversationStateStructure,
  kind: CheckpointKind,
): Promise<void> {
  const hash = bytesToHex(await sha256(toBinary(ConversationStateStructureSchema, checkpoint)));
  state.conversations.issue(state.conversationId, hash, kind);
  if (kind === "final") state.blobs.server?.settle(hash, state.transcript);
  state.lastCheckpoint = checkpoint;
  state.io.record.checkpoints++;
  await state.io.writer.send(create(AgentServerMessageSchema, {
    message: { case: "conversationCheckpointUpdate", value: checkpoint },
  }));
}

/** Adds output to the open call's record (and the Run's counters). */
export function countOutput(state: TurnState, text: string, reasoning: boolean): number {
  const tokens = estimateTokens(new TextEncoder().encode(text).length);
  const call = state.io.record.modelCalls[state.call?.recordIndex ?? -1];
  if (call !== undefined) call.outputTokens += tokens;
  state.io.record.counters.output += tokens;
  if (reasoning) state.io.record.counters.reasoning += tokens;
  return tokens;
}
