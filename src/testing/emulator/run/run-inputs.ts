/**
 * Reading what a Run starts from: the requested model, the request context (probed with
 * `request_context_args`), and the conversation loaded from the client's checkpoint and
 * blobs (or seeded fresh).
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../../gen/agent/v1/server_message_pb.ts";
import type { AgentRunRequest } from "../../../gen/agent/v1/run_request_pb.ts";
import type { ConversationHistory } from "../../../gen/agent/v1/conversation_action_pb.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../../gen/agent/v1/request_context_pb.ts";
import { bytesToHex, sha256 } from "../../../core/bytes.ts";
import type { BlobChannel } from "../io/blob-channel.ts";
import { type ResolvedModel, resolveModel } from "../catalog/catalog.ts";
import { detail, RunFailure } from "../wire/connect-http.ts";
import type { Conversations } from "../conversation/conversations.ts";
import type { ConversationBlobs, ServerBlobCache } from "../conversation/blob-cache.ts";
import type { ConversationStateStructure } from "../../../gen/agent/v1/conversation_state_pb.ts";
import type { FaultSpec } from "../faults/faults.ts";
import type { ResolvedOptions } from "../config/options.ts";
import type { RunIo } from "../io/run-io.ts";
import {
  decodeState,
  rebuildTranscript,
  sameContext,
  seedTranscript,
} from "../conversation/load-state.ts";
import type { Transcript } from "../conversation/transcript.ts";

/** What a Run's engine needs from the emulator and the session. */
export interface RunDeps {
  readonly io: RunIo;
  readonly options: ResolvedOptions;
  readonly conversations: Conversations;
  /** The server's blobs between Runs; `undefined` for a cold server. */
  readonly blobCache: ServerBlobCache | undefined;
  /** Faults taken for this Run at its start. */
  readonly faults: readonly FaultSpec[];
  readonly watchShell: (
    execId: number,
    listener: (stream: "stdout" | "stderr", data: string) => void,
  ) => void;
  readonly asyncAnswer: (toolCallId: string) => Promise<string>;
}

/** `userMessageAction` → `user_message_action`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Resolves the requested model (or ends the Run with `not_found`). */
export function pickModel(deps: RunDeps, request: AgentRunRequest): ResolvedModel {
  const { io } = deps;
  const requested = request.requestedModel;
  const legacy = request.modelDetails;
  io.variant(
    "modelSelection",
    requested !== undefined ? "requested_model" : legacy !== undefined ? "model_details" : "none",
  );
  const modelId = requested?.modelId || legacy?.modelId || "";
  const parameters: Record<string, string> = {};
  for (const parameter of requested?.parameters ?? []) parameters[parameter.id] = parameter.value;
  const resolved = resolveModel(
    deps.options.models,
    modelId,
    parameters,
    requested?.maxMode ?? legacy?.maxMode ?? false,
  );
  io.record.modelId = modelId;
  io.record.parameters = parameters;
  if (resolved === undefined) {
    throw new RunFailure({
      code: "not_found",
      message: `Model ${JSON.stringify(modelId)} not found`,
      detail: detail(
        "ERROR_BAD_MODEL_NAME",
        "AI Model Not Found",
        `Model ${JSON.stringify(modelId)} is not available`,
        false,
      ),
    });
  }
  io.record.maxMode = resolved.maxMode;
  io.variant("parametersMatchVariant", resolved.matchesVariant);
  return resolved;
}

/** Sends `request_context_args` (exec id 0) and waits for the client's context. */
export async function probeRequestContext(
  io: RunIo,
  fromAction: RequestContext | undefined,
): Promise<{ message: RequestContext | undefined; bytes: Uint8Array }> {
  const { id, done } = io.replies.exec("requestContextArgs", false);
  io.record.execs.push({
    id,
    requestCase: "requestContextArgs",
    toolCallId: "",
    resultCase: undefined,
    thrown: undefined,
    streamClosed: false,
    durationMs: undefined,
  });
  await io.writer.send(create(AgentServerMessageSchema, {
    message: {
      case: "execServerMessage",
      value: { id, message: { case: "requestContextArgs", value: {} } },
    },
  }));
  const outcome = await done;
  const execRecord = io.record.execs.find((exec) => exec.id === id);
  if (execRecord !== undefined) {
    execRecord.resultCase = outcome.result?.case;
    execRecord.durationMs = outcome.durationMs;
  }
  const result = outcome.result?.case === "requestContextResult"
    ? outcome.result.value.result
    : undefined;
  const message = result?.case === "success" ? result.value.requestContext : fromAction;
  const bytes = message === undefined ? new Uint8Array(0) : toBinary(RequestContextSchema, message);
  checkAgentSkills(io, message);
  io.record.requestContextSha256 = bytesToHex(await sha256(bytes));
  io.record.requestContextBytes = bytes.length;
  io.variant("requestContextMatchesAction", sameContext(fromAction, bytes));
  if (
    message?.commitAttributionMessage !== undefined || message?.prAttributionMessage !== undefined
  ) {
    io.variant("attributionMessages", true);
  }
  if (message?.env?.smartModeClassifierAutoModeEnabled !== undefined) {
    io.variant("smartModeClassifier", true);
  }
  return { message, bytes };
}

/** The conversation as the client's checkpoint and blobs describe it (or seeded fresh). */
export async function loadTranscript(
  deps: RunDeps,
  blobs: BlobChannel<ConversationBlobs>,
  rawState: Uint8Array | undefined,
  context: RequestContext | undefined,
  history: ConversationHistory | undefined,
): Promise<Transcript> {
  const { io } = deps;
  if (rawState === undefined || rawState.length === 0) {
    return await seedTranscript(blobs, context, history);
  }
  io.record.checkpointSupplied = true;
  const stateHex = bytesToHex(await sha256(rawState));
  const issued = deps.conversations.findIssued(stateHex);
  io.variant("checkpointKind", issued?.kind ?? "not-issued");
  const state = decodeState(rawState);
  if (issued === undefined && state.turns.length > 0) {
    io.violation(
      "checkpoint-not-issued",
      "conversation_state is not a checkpoint this emulator issued",
    );
  }
  const settled = blobs.server?.settled(stateHex);
  if (settled !== undefined) noteSettled(io, blobs, state, settled);
  const transcript = settled ?? await rebuildTranscript(io, blobs, state);
  for (const root of transcript.roots) if (root.id.length === 32) blobs.markKnown(root.id);
  if (transcript.roots.length === 0) return await seedTranscript(blobs, context, history);
  return transcript;
}

/** A warm server's own copy of the conversation: every blob it references was a cache hit. */
function noteSettled(
  io: RunIo,
  blobs: BlobChannel<ConversationBlobs>,
  state: ConversationStateStructure,
  transcript: Transcript,
): void {
  let held = transcript.roots.filter((root) => root.id.length === 32).length;
  for (const turn of transcript.turns) held += 2 + turn.steps.length;
  blobs.noteHeld(held);
  if (state.rootPromptMessagesJson.length > 0) {
    const inline = state.rootPromptMessagesJson.some((entry) => entry.length !== 32);
    io.variant("rootEntries", inline ? "mixed" : "blob-ids");
  }
}

/** The `blob-miss` fault: asks for a blob nobody has, then fails the Run. */
export async function blobMiss(io: RunIo, blobs: BlobChannel): Promise<void> {
  io.record.faults.push("blob-miss");
  const id = await sha256(`missing-${io.runId}-${crypto.randomUUID()}`);
  await blobs.get([id]);
  throw new RunFailure({ code: "internal", message: "Blob not found" });
}

/** Cursor lists a skill by its `SKILL.md` path and description; the slice must say it is complete. */
function checkAgentSkills(io: RunIo, context: RequestContext | undefined): void {
  const skills = context?.agentSkills ?? [];
  if (skills.length === 0) return;
  const bad = skills.find((skill) =>
    !/^(\/|[A-Za-z]:[\\/])/.test(skill.fullPath) || skill.description.trim() === ""
  );
  if (bad !== undefined) {
    io.violation(
      "agent-skill-invalid",
      `agent_skills entry ${
        JSON.stringify(bad.fullPath)
      } needs an absolute full_path and a description`,
    );
  } else if (context?.agentSkillsInfoComplete !== true) {
    io.violation("agent-skill-invalid", "agent_skills sent without agent_skills_info_complete");
  }
}
