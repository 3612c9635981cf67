/**
 * What the Run driver does with each server message: the one place that turns a
 * classified {@link ServerMessageView} into protocol answers (KV blobs, the
 * request-context probe, declined queries, refused unknown execs) and {@link RunEvent}s.
 * The switch is exhaustive: a new view kind does not compile until it is handled here.
 *
 * @module
 */
import { fromBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { bytesToHex } from "../core/bytes.ts";
import { CursorError } from "../core/cursor-error.ts";
import type { DebugLogger } from "../core/logger.ts";
import type { AgentClientMessageSchema } from "../gen/agent/v1/client_message_pb.ts";
import { type TodoItem, TodoItemSchema } from "../gen/agent/v1/common_pb.ts";
import type { KvClientMessageSchema } from "../gen/agent/v1/kv_pb.ts";
import type { RequestContext } from "../gen/agent/v1/request_context_pb.ts";
import type { ToolCall } from "../gen/agent/v1/tool_call_pb.ts";
import { rawFieldBytes } from "../protocol/raw-field.ts";
import type {
  ServerMessageView,
  TurnCounters as WireCounters,
} from "../protocol/server/server-message-view.ts";
import type { BlobStore } from "./blobs/blob-store.ts";
import { declineInteraction, isHostAnswered } from "./query-routing.ts";
import type { RunEvent, TurnCounters } from "./run-events.ts";
import type { DisplayFailure, RunActivity } from "./run-activity.ts";

/** A client message as a `create()` init shape. */
export type ClientMessageInit = MessageInitShape<typeof AgentClientMessageSchema>;

/** What dispatching needs from the Run. */
export interface DispatchTarget {
  readonly activity: RunActivity;
  readonly blobs: BlobStore;
  readonly requestContext: RequestContext;
  readonly logger: DebugLogger;
  /** Sends an answer without waiting for its delivery (order kept). */
  answer(init: ClientMessageInit): void;
}

/**
 * Handles one classified server message.
 *
 * @param view The classified message.
 * @param bytes The message's encoded bytes (a checkpoint is passed on byte-exact).
 * @param run The Run's state and answer channel.
 * @returns The events for the provider (often none).
 * @throws {CursorError} `protocol` for a KV or interaction request of an unknown kind:
 *   the server waits for an answer no client can give, so the Run cannot go on.
 */
export function dispatchServerMessage(
  view: ServerMessageView,
  bytes: Uint8Array,
  run: DispatchTarget,
): RunEvent[] {
  switch (view.kind) {
    case "text-delta":
    case "thinking-delta":
    case "thinking-completed":
    case "turn-ended":
    case "step-started":
    case "step-completed":
      return streamEvents(view, run.activity);
    case "tool-call-started":
    case "tool-call-completed":
      return toolDisplayEvents(view, run);
    case "checkpoint":
      return checkpointEvents(view, bytes, run);
    case "kv-set-blob":
    case "kv-get-blob":
      return answerKv(view, run);
    case "exec-request":
      return execEvents(view, run);
    case "exec-abort":
      run.activity.visibleOutput = true;
      return [{ type: "exec-abort", id: view.id }];
    case "interaction-query":
      noteInteraction(run.activity, view.query.case);
      return declineQuery(view, run);
    case "unknown":
      return unknownMessage(view, run);
    // Display-only or bookkeeping updates this client does not show.
    case "tool-call-partial":
    case "tool-call-delta":
    case "token-delta":
    case "user-message-appended":
    case "summary-started":
    case "summary":
    case "summary-completed":
    case "shell-output-delta":
    case "heartbeat":
    case "prompt-suggestion":
    case "post-request-prompt":
    case "active-branch-change":
    case "feedback-request":
    case "response-comparison":
    case "context-injection-state":
    case "routed-model":
    case "ttft-breakdown":
      return [];
    default:
      return unreachable(view);
  }
}

/** A view of one of the given kinds. */
type ViewOf<K extends ServerMessageView["kind"]> = Extract<ServerMessageView, { kind: K }>;

function streamEvents(
  view: ViewOf<
    | "text-delta"
    | "thinking-delta"
    | "thinking-completed"
    | "turn-ended"
    | "step-started"
    | "step-completed"
  >,
  activity: RunActivity,
): RunEvent[] {
  switch (view.kind) {
    case "text-delta":
      activity.visibleOutput = true;
      return [{ type: "text-delta", text: view.text, serverNotice: view.isServerNotice }];
    case "thinking-delta":
      activity.visibleOutput = true;
      return [{ type: "thinking-delta", text: view.text }];
    case "thinking-completed":
      return [{ type: "thinking-completed", durationMs: view.thinkingDurationMs }];
    case "turn-ended":
      return [{ type: "turn-ended", counters: turnCounters(view.counters) }];
    case "step-started":
      activity.stepsStarted++;
      return [{ type: "step", phase: "started", stepId: BigInt(view.stepId) }];
    case "step-completed":
      activity.stepsCompleted++;
      return [{ type: "step", phase: "completed", stepId: BigInt(view.stepId) }];
  }
}

function toolDisplayEvents(
  view: ViewOf<"tool-call-started" | "tool-call-completed">,
  run: DispatchTarget,
): RunEvent[] {
  const activity = run.activity;
  noteInteraction(activity, view.tool?.case);
  if (view.kind === "tool-call-started") {
    activity.displayToolCalls++;
    activity.visibleOutput = true;
    return [toolDisplay("started", view.callId, view.tool?.case, view.toolCall)];
  }
  const failure = displayFailure(view.callId, view.toolCall);
  if (failure !== undefined && run.logger.enabled) activity.displayFailures.push(failure);
  return [toolDisplay("completed", view.callId, view.tool?.case, view.toolCall)];
}

function checkpointEvents(
  view: ViewOf<"checkpoint">,
  bytes: Uint8Array,
  run: DispatchTarget,
): RunEvent[] {
  run.activity.checkpointUpdates++;
  if (view.state.tokenDetails) run.activity.tokenDetailUpdates++;
  return [{
    type: "checkpoint",
    bytes: rawFieldBytes(bytes, 3) ?? new Uint8Array(0),
    tokenDetails: view.state.tokenDetails,
    todos: todosOf(run.blobs, view.state.todos),
  }];
}

function answerKv(view: ViewOf<"kv-set-blob" | "kv-get-blob">, run: DispatchTarget): RunEvent[] {
  if (view.kind === "kv-set-blob") {
    run.activity.kvSets++;
    run.blobs.set(bytesToHex(view.blobId), view.blobData);
    run.answer(kvAnswer(view.id, { case: "setBlobResult", value: {} }));
    return [];
  }
  run.activity.kvGets++;
  const data = lookupBlob(run, view.blobId);
  run.answer(kvAnswer(
    view.id,
    {
      case: "getBlobResult",
      value: data ? { blobData: data } : { error: { message: "Blob not found" } },
    },
  ));
  return [];
}

function execEvents(view: ViewOf<"exec-request">, run: DispatchTarget): RunEvent[] {
  run.activity.execRequests++;
  if (view.request.case === "requestContextArgs") {
    run.answer(requestContextAnswer(view.id, run.requestContext));
    return [];
  }
  run.activity.visibleOutput = true;
  return [{ type: "exec", exec: view.message }];
}

function unreachable(view: never): never {
  throw new CursorError(
    "internal",
    `Unhandled server message kind ${JSON.stringify((view as { kind?: unknown }).kind)}`,
  );
}

function toolDisplay(
  phase: "started" | "completed",
  callId: string,
  tool: string | undefined,
  toolCall: ToolCall | undefined,
): RunEvent {
  return { type: "tool-display", phase, callId, tool: String(tool), toolCall };
}

/** Marks a CreatePlan or SwitchMode call (display or interaction query) in the Run. */
function noteInteraction(activity: RunActivity, kind: string | undefined): void {
  if (kind === "createPlanToolCall" || kind === "createPlanRequestQuery") {
    activity.createPlanInRun = true;
  }
  if (kind === "switchModeToolCall" || kind === "switchModeRequestQuery") {
    activity.switchModeInRun = true;
  }
}

/** The error of a completed call's typed result (`result.result` of case `error`), if any. */
function displayFailure(callId: string, call: ToolCall | undefined): DisplayFailure | undefined {
  const tool = call?.tool;
  if (tool?.value === undefined || !("result" in tool.value)) return undefined;
  const result: object | undefined = tool.value.result;
  const oneof = result !== undefined && "result" in result
    ? result.result as { case?: unknown; value?: unknown } | undefined
    : undefined;
  if (oneof?.case !== "error") return undefined;
  const value = oneof.value as { error?: unknown; errorMessage?: unknown } | undefined;
  const text = typeof value?.error === "string"
    ? value.error
    : typeof value?.errorMessage === "string"
    ? value.errorMessage
    : "";
  const error = text === "" ? "(no detail)" : text;
  if (tool.case !== "mcpToolCall") return { callId, tool: tool.case, error };
  const args = tool.value.args;
  return {
    callId,
    tool: tool.case,
    error,
    mcp: {
      name: args?.name ?? "",
      providerIdentifier: args?.providerIdentifier ?? "",
      toolName: args?.toolName ?? "",
    },
  };
}

type KvAnswer = NonNullable<MessageInitShape<typeof KvClientMessageSchema>["message"]>;

function kvAnswer(id: number, message: KvAnswer): ClientMessageInit {
  return { message: { case: "kvClientMessage", value: { id, message } } };
}

function requestContextAnswer(id: number, requestContext: RequestContext): ClientMessageInit {
  return {
    message: {
      case: "execClientMessage",
      value: {
        id,
        message: {
          case: "requestContextResult",
          value: { result: { case: "success", value: { requestContext } } },
        },
      },
    },
  };
}

function declineQuery(
  view: Extract<ServerMessageView, { kind: "interaction-query" }>,
  run: DispatchTarget,
): RunEvent[] {
  run.activity.visibleOutput = true;
  if (isHostAnswered(view.message)) return [{ type: "interaction", query: view.message }];
  const answer = declineInteraction(
    view.message,
    "This client answers no interactive requests in this turn",
  );
  if (answer === undefined) {
    throw new CursorError(
      "protocol",
      `Cursor asked interaction query ${
        JSON.stringify(view.query.case)
      }, which this client cannot answer`,
      { retryable: false, replaySafe: false },
    );
  }
  run.answer({ message: { case: "interactionResponse", value: answer } });
  return [{ type: "warning", message: `Declined interaction query ${view.query.case}` }];
}

/**
 * An unknown kind: logged; an exec is refused with an exec `throw` so the server moves on;
 * a KV or interaction request (no generic refusal exists) fails the Run instead of hanging it.
 */
function unknownMessage(
  view: Extract<ServerMessageView, { kind: "unknown" }>,
  run: DispatchTarget,
): RunEvent[] {
  run.logger.line(`run: unknown server message: ${view.detail}`);
  const awaited = view.awaitedReply;
  if (awaited === undefined) {
    if (view.where === "AgentServerMessage.message") run.activity.visibleOutput = true;
    return [{ type: "warning", message: `Skipped a server message: ${view.detail}` }];
  }
  if (awaited.channel === "exec") {
    run.activity.execRequests++;
    run.answer({
      message: {
        case: "execClientControlMessage",
        value: {
          message: {
            case: "throw",
            value: {
              id: awaited.id,
              error: `This client does not know this request (${view.detail})`,
            },
          },
        },
      },
    });
    return [{ type: "warning", message: `Refused an exec request: ${view.detail}` }];
  }
  throw new CursorError(
    "protocol",
    `Cursor sent a ${awaited.channel} request of an unknown kind (id ${awaited.id}) that this client cannot answer: ${view.detail}`,
    { retryable: false, replaySafe: !run.activity.visibleOutput },
  );
}

/** A stored blob; an id that is not a 32-byte hash is inline content echoed back. */
function lookupBlob(run: DispatchTarget, id: Uint8Array): Uint8Array | undefined {
  const stored = run.blobs.get(bytesToHex(id));
  if (stored !== undefined) return stored;
  if (id.length !== 32) {
    run.logger.line("kv: get_blob found=false echoed=true");
    return id;
  }
  run.logger.line(`kv: get_blob found=false echoed=false id=${bytesToHex(id).slice(0, 16)}`);
  return undefined;
}

/** The todo items a checkpoint references, decoded from their blobs (all or nothing). */
function todosOf(blobs: BlobStore, ids: readonly Uint8Array[]): TodoItem[] | undefined {
  if (ids.length === 0) return undefined;
  const items: TodoItem[] = [];
  for (const id of ids) {
    const blob = blobs.get(bytesToHex(id));
    if (blob === undefined) return undefined;
    try {
      items.push(fromBinary(TodoItemSchema, blob));
    } catch {
      return undefined;
    }
  }
  return items;
}

function turnCounters(wire: WireCounters): TurnCounters {
  const present: TurnCounters["present"][number][] = [];
  const read = (value: number | undefined, name: TurnCounters["present"][number]): number => {
    if (value === undefined) return 0;
    present.push(name);
    return value;
  };
  return {
    inputTokens: read(wire.inputTokens, "input"),
    outputTokens: read(wire.outputTokens, "output"),
    cacheReadTokens: read(wire.cacheReadTokens, "cacheRead"),
    cacheWriteTokens: read(wire.cacheWriteTokens, "cacheWrite"),
    reasoningTokens: read(wire.reasoningTokens, "reasoning"),
    present,
  };
}
