/**
 * One Run from its `run_request` to its end: validation (conversation state, model),
 * the `request_context` probe, loading the conversation (fresh or rebuilt from the
 * client's blobs), the turn (new user message, or a resume that re-issues a staged tool
 * batch), the model, and the success tail.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../gen/agent/v1/server_message_pb.ts";
import type { AgentRunRequest } from "../../gen/agent/v1/run_request_pb.ts";
import type { ConversationHistory } from "../../gen/agent/v1/conversation_action_pb.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../gen/agent/v1/request_context_pb.ts";
import { bytesToHex, sha256 } from "../../core/bytes.ts";
import { BlobChannel } from "./blob-channel.ts";
import { type ResolvedModel, resolveModel } from "./catalog.ts";
import { detail, RunFailure } from "./connect-http.ts";
import type { RunIo } from "./run-io.ts";
import { decodeState, rebuildTranscript, sameContext, seedTranscript } from "./state-load.ts";
import type { Transcript } from "./transcript.ts";
import { type EngineDeps, runTurn, type TurnInput } from "./turn-setup.ts";

/**
 * Runs a Run.
 *
 * @param deps The emulator and session.
 * @param request The decoded run request.
 * @param rawState The exact bytes of `conversation_state` as the client sent them.
 * @throws {RunFailure} to end the Run with a Connect error.
 */
export async function runEngine(
  deps: EngineDeps,
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
    action?.case !== "startPlanAction"
  ) {
    throw new RunFailure({
      code: "unimplemented",
      message: `Action ${JSON.stringify(io.record.action)} is not emulated`,
    });
  }
  const actionContext = action.value.requestContext;
  const context = await probeRequestContext(io, actionContext);
  const blobs = new BlobChannel(io, request.preFetchedBlobs);
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
    state: rawState === undefined || rawState.length === 0 ? undefined : decodeState(rawState),
  };
  await runTurn(
    input,
    action.case === "resumeAction" ? { kind: "resume" } : {
      kind: "message",
      userMessage: action.value.userMessage,
    },
  );
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function pickModel(deps: EngineDeps, request: AgentRunRequest): ResolvedModel {
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
async function probeRequestContext(
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
  io.record.requestContextSha256 = bytesToHex(await sha256(bytes));
  io.record.requestContextBytes = bytes.length;
  io.variant("requestContextMatchesAction", sameContext(fromAction, bytes));
  return { message, bytes };
}

async function loadTranscript(
  deps: EngineDeps,
  blobs: BlobChannel,
  rawState: Uint8Array | undefined,
  context: RequestContext | undefined,
  history: ConversationHistory | undefined,
): Promise<Transcript> {
  const { io } = deps;
  if (rawState === undefined || rawState.length === 0) {
    return await seedTranscript(blobs, context, history);
  }
  io.record.checkpointSupplied = true;
  const issued = deps.conversations.findIssued(bytesToHex(await sha256(rawState)));
  io.variant("checkpointKind", issued?.kind ?? "not-issued");
  const state = decodeState(rawState);
  if (issued === undefined && state.turns.length > 0) {
    io.violation(
      "checkpoint-not-issued",
      "conversation_state is not a checkpoint this emulator issued",
    );
  }
  const transcript = await rebuildTranscript(io, blobs, state);
  for (const root of transcript.roots) if (root.id.length === 32) blobs.markKnown(root.id);
  if (transcript.roots.length === 0) return await seedTranscript(blobs, context, history);
  return transcript;
}

async function blobMiss(io: RunIo, blobs: BlobChannel): Promise<void> {
  io.record.faults.push("blob-miss");
  const id = await sha256(`missing-${io.runId}-${crypto.randomUUID()}`);
  await blobs.get([id]);
  throw new RunFailure({ code: "internal", message: "Blob not found" });
}
