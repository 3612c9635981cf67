/**
 * Drives one whole turn over the minimal client: sends the run request, heartbeats,
 * answers the request-context probe, KV, execs (an in-memory file system and a fake
 * shell) and interaction queries, and collects text, thinking, checkpoints, usage and
 * the end of stream. Knobs select protocol variants and deliberate violations.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { AgentClientMessageSchema } from "../../../src/gen/agent/v1/client_message_pb.ts";
import type { AgentServerMessage } from "../../../src/gen/agent/v1/server_message_pb.ts";
import { AgentRunRequestSchema } from "../../../src/gen/agent/v1/run_request_pb.ts";
import {
  type ConversationStateStructure,
  ConversationStateStructureSchema,
} from "../../../src/gen/agent/v1/conversation_state_pb.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../../src/gen/agent/v1/request_context_pb.ts";
import type { TurnEndedUpdate } from "../../../src/gen/agent/v1/interaction_update_pb.ts";
import type { ConversationHistorySchema } from "../../../src/gen/agent/v1/conversation_action_pb.ts";
import { fromBinary } from "@bufbuild/protobuf";
import { encodeRunRequestMessage } from "../../../src/protocol/run-request-bytes.ts";
import { rawFieldBytes } from "../../../src/protocol/raw-field.ts";
import type { EndStream } from "../../../src/protocol/end-stream.ts";
import { bytesToHex } from "../../../src/core/bytes.ts";
import {
  type ClientFrame,
  type ClientTarget,
  openRun,
  type RawRun,
  type SendOptions,
} from "./minimal-client.ts";
import { answerExec, answerQuery, type HostBehaviour } from "./host-answers.ts";
import type { HostState } from "./host-types.ts";

export type { HostState } from "./host-types.ts";

type ClientInit = MessageInitShape<typeof AgentClientMessageSchema>;

/** A new host state with a small workspace under /ws. */
export function newHostState(
  files: Record<string, string> = { "/ws/README.md": "# Demo\nhello\n" },
): HostState {
  return { blobs: new Map(), files: new Map(Object.entries(files)) };
}

/** A request context with one advertised MCP tool. */
export function requestContext(change?: (context: RequestContext) => void): RequestContext {
  const context = create(RequestContextSchema, {
    env: {
      osVersion: "linux 6.1",
      workspacePaths: ["/ws"],
      shell: "/bin/bash",
      timeZone: "UTC",
      projectFolder: "/home/u/.cursor/projects/ws",
      processWorkingDirectory: "/ws",
    },
    tools: [{
      name: "opencode-bash",
      description: "Run a command",
      inputSchema: create(ValueSchema, { kind: { case: "structValue", value: { fields: {} } } }),
      providerIdentifier: "opencode",
      toolName: "bash",
    }],
    rules: [{
      fullPath: "/ws/AGENTS.md",
      content: "Be brief.",
      type: { type: { case: "global", value: {} } },
    }],
    webSearchEnabled: false,
    webFetchEnabled: false,
  });
  change?.(context);
  return context;
}

/** One turn to drive. */
export interface TurnSpec {
  readonly text?: string;
  readonly conversationId?: string;
  /** Checkpoint bytes to continue from (exact bytes). */
  readonly checkpoint?: Uint8Array;
  readonly action?: "message" | "resume";
  readonly modelId?: string;
  readonly parameters?: Record<string, string>;
  readonly maxMode?: boolean;
  readonly context?: RequestContext;
  readonly requestId?: string;
  /** Overrides the run request entirely. */
  readonly rawRunRequest?: Uint8Array;
  /** Blobs pushed up front in `pre_fetched_blobs`. */
  readonly preFetchedBlobs?: readonly { readonly id: Uint8Array; readonly value: Uint8Array }[];
  /** An inline `conversation_history` on the user message action. */
  readonly history?: MessageInitShape<typeof ConversationHistorySchema>;
}

/** What a turn produced. */
export interface TurnOutcome {
  readonly run: RawRun;
  text: string;
  thinking: string;
  turnEnded: TurnEndedUpdate | undefined;
  /** Raw bytes of each checkpoint received, in order. */
  readonly checkpoints: Uint8Array[];
  readonly frames: AgentServerMessage[];
  end: EndStream | undefined;
  closed: boolean;
  undecodable: number;
  readonly kinds: string[];
  /** Arrival time (ms) of each decoded frame. */
  readonly times: number[];
  /** Why the body ended without an end-of-stream, when it did. */
  closeError: unknown;
}

/** The last checkpoint as a message. */
export function lastCheckpoint(outcome: TurnOutcome): ConversationStateStructure | undefined {
  const bytes = outcome.checkpoints[outcome.checkpoints.length - 1];
  return bytes === undefined ? undefined : fromBinary(ConversationStateStructureSchema, bytes);
}

/** Builds the first message of a Run. */
export function runRequestBytes(spec: TurnSpec, context: RequestContext): Uint8Array {
  const action = spec.action === "resume" ? { case: "resumeAction" as const, value: {} } : {
    case: "userMessageAction" as const,
    value: {
      userMessage: { text: spec.text ?? "", messageId: crypto.randomUUID(), mode: 1 },
      requestContext: context,
      ...(spec.history === undefined ? {} : { conversationHistory: spec.history }),
    },
  };
  const request = create(AgentRunRequestSchema, {
    action: { action },
    requestedModel: {
      modelId: spec.modelId ?? "composer-1",
      maxMode: spec.maxMode ?? false,
      parameters: Object.entries(spec.parameters ?? {}).map(([id, value]) => ({ id, value })),
    },
    conversationId: spec.conversationId ?? crypto.randomUUID(),
    preFetchedBlobs: [...(spec.preFetchedBlobs ?? [])],
  });
  return encodeRunRequestMessage(request, spec.checkpoint ?? new Uint8Array(0));
}

/**
 * Drives one turn to its end.
 *
 * @param target Where to connect.
 * @param state The client's blob store and files.
 * @param spec The turn.
 * @param behaviour Variants and deliberate violations.
 */
export async function driveTurn(
  target: ClientTarget,
  state: HostState,
  spec: TurnSpec,
  behaviour: HostBehaviour = {},
): Promise<TurnOutcome> {
  const run = openRun(target, spec.requestId);
  const context = spec.context ?? requestContext();
  const send = (message: ClientInit | Uint8Array, options?: SendOptions) =>
    run.send(message instanceof Uint8Array ? message : create(AgentClientMessageSchema, message), {
      ...(behaviour.appendEncoding === undefined ? {} : { encoding: behaviour.appendEncoding }),
      ...options,
    });
  await send(spec.rawRunRequest ?? runRequestBytes(spec, context));
  const heartbeat = behaviour.heartbeatMs === 0 ? undefined : setInterval(() => {
    send({ message: { case: "clientHeartbeat", value: {} } }).catch(() => {});
  }, behaviour.heartbeatMs ?? 5000);
  const outcome: TurnOutcome = {
    run,
    text: "",
    thinking: "",
    turnEnded: undefined,
    checkpoints: [],
    frames: [],
    end: undefined,
    closed: false,
    undecodable: 0,
    kinds: [],
    times: [],
    closeError: undefined,
  };
  try {
    for (;;) {
      const frame = await run.next(behaviour.frameTimeoutMs ?? 8000);
      if (!(await handleFrame(frame, outcome, state, context, send, behaviour))) break;
    }
  } finally {
    clearInterval(heartbeat);
    run.close();
  }
  return outcome;
}

async function handleFrame(
  frame: ClientFrame,
  outcome: TurnOutcome,
  state: HostState,
  context: RequestContext,
  send: (message: ClientInit) => Promise<unknown>,
  behaviour: HostBehaviour,
): Promise<boolean> {
  if (frame.kind === "end") {
    outcome.end = frame.end;
    return false;
  }
  if (frame.kind === "closed") {
    outcome.closed = true;
    outcome.closeError = frame.error;
    return false;
  }
  if (frame.kind === "undecodable") {
    outcome.undecodable++;
    return true;
  }
  const message = frame.message;
  outcome.frames.push(message);
  outcome.times.push(Date.now());
  if (behaviour.stopWhen?.(message) === true) return false;
  const top = message.message;
  outcome.kinds.push(
    top.case === "interactionUpdate" ? top.value.message.case ?? "unset" : top.case ?? "unknown",
  );
  switch (top.case) {
    case "interactionUpdate": {
      const update = top.value.message;
      if (update.case === "textDelta") outcome.text += update.value.text;
      if (update.case === "thinkingDelta") outcome.thinking += update.value.text;
      if (update.case === "turnEnded") outcome.turnEnded = update.value;
      return true;
    }
    case "conversationCheckpointUpdate":
      outcome.checkpoints.push(rawFieldBytes(frame.bytes, 3) ?? new Uint8Array(0));
      return true;
    case "kvServerMessage":
      await answerKv(top.value, state, send, behaviour);
      return true;
    case "execServerMessage":
      await answerExec(top.value, state, context, send, behaviour);
      return true;
    case "interactionQuery":
      await answerQuery(top.value, send, behaviour);
      return true;
    default:
      return true;
  }
}

async function answerKv(
  kv: Extract<AgentServerMessage["message"], { case: "kvServerMessage" }>["value"],
  state: HostState,
  send: (message: ClientInit) => Promise<unknown>,
  behaviour: HostBehaviour,
): Promise<void> {
  const request = kv.message;
  if (behaviour.skipKv === true) return;
  if (request.case === "setBlobArgs") {
    state.blobs.set(bytesToHex(request.value.blobId), request.value.blobData);
    await send({
      message: {
        case: "kvClientMessage",
        value: { id: kv.id, message: { case: "setBlobResult", value: {} } },
      },
    });
  } else if (request.case === "getBlobArgs") {
    const data = behaviour.forgetBlobs === true
      ? undefined
      : state.blobs.get(bytesToHex(request.value.blobId));
    const value = data === undefined
      ? (behaviour.blobMissShape === "error" ? { error: { message: "not found" } } : {})
      : { blobData: behaviour.corruptBlobs === true ? new Uint8Array([1, 2, 3]) : data };
    await send({
      message: {
        case: "kvClientMessage",
        value: { id: kv.id, message: { case: "getBlobResult", value } },
      },
    });
  }
}
