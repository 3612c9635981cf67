/**
 * A typed, flat view of `agent.v1.AgentServerMessage` for the session layer.
 *
 * {@link classifyServerMessage} walks the nested oneofs of one decoded server
 * message and returns a discriminated union ({@link ServerMessageView}) that a
 * caller can `switch (view.kind)` over exhaustively. Any unset or unknown oneof
 * case at a level that decides the kind becomes `{ kind: "unknown" }`, which
 * also says whether the server is waiting for an answer.
 *
 * The module is pure: no I/O, no timers, no module-level mutable state.
 *
 * @module
 */

import type { Message } from "@bufbuild/protobuf";
import type { ConversationStateStructure } from "../gen/agent/v1/conversation_state_pb.ts";
import type { ExecServerControlMessage, ExecServerMessage } from "../gen/agent/v1/exec_pb.ts";
import type { InteractionQuery } from "../gen/agent/v1/interaction_query_pb.ts";
import type {
  ContextInjectionState,
  InteractionUpdate,
  ShellOutputDeltaUpdate,
  ThinkingStyle,
  ToolCallDelta,
  ToolCallDeltaUpdate,
  TurnEndedUpdate,
} from "../gen/agent/v1/interaction_update_pb.ts";
import type { KvServerMessage } from "../gen/agent/v1/kv_pb.ts";
import type { AgentServerMessage, TtftBreakdown } from "../gen/agent/v1/server_message_pb.ts";
import type { ToolCall } from "../gen/agent/v1/tool_call_pb.ts";
import type { UserMessage } from "../gen/agent/v1/user_message_pb.ts";

/** A generated oneof value narrowed to the cases that are actually set. */
type SetCase<Oneof extends { case: string | undefined }> = Exclude<Oneof, { case: undefined }>;

/**
 * The request inside an `ExecServerMessage`: the generated oneof with its case
 * set, e.g. `{ case: "readArgs", value: ReadArgs }`.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ReadArgsSchema } from "../gen/agent/v1/exec_file_pb.ts";
 * import type { ExecRequest } from "./server-message.ts";
 *
 * const request: ExecRequest = {
 *   case: "readArgs",
 *   value: create(ReadArgsSchema, { path: "/ws/a.ts" }),
 * };
 * if (request.value.path !== "/ws/a.ts") throw new Error("Expected the path \"/ws/a.ts\"");
 * ```
 */
export type ExecRequest = SetCase<ExecServerMessage["message"]>;

/**
 * The question inside an `InteractionQuery`, with its case set, e.g.
 * `{ case: "webSearchRequestQuery", value: WebSearchRequestQuery }`.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { WebSearchRequestQuerySchema } from "../gen/agent/v1/interaction_query_pb.ts";
 * import type { InteractionQueryRequest } from "./server-message.ts";
 *
 * const query: InteractionQueryRequest = {
 *   case: "webSearchRequestQuery",
 *   value: create(WebSearchRequestQuerySchema),
 * };
 * if (query.value.args !== undefined) throw new Error("Expected no arguments");
 * ```
 */
export type InteractionQueryRequest = SetCase<InteractionQuery["query"]>;

/**
 * The typed variant of a `ToolCall` (e.g. `{ case: "mcpToolCall", value }`).
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { McpToolCallSchema } from "../gen/agent/v1/tool_call_pb.ts";
 * import type { ToolCallVariant } from "./server-message.ts";
 *
 * const variant: ToolCallVariant = { case: "mcpToolCall", value: create(McpToolCallSchema) };
 * if (variant.value.args !== undefined) throw new Error("Expected no arguments");
 * ```
 */
export type ToolCallVariant = SetCase<ToolCall["tool"]>;

/**
 * Incremental output of a running tool call, with its case set.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { EditToolCallDeltaSchema } from "../gen/agent/v1/interaction_update_pb.ts";
 * import type { ToolCallDeltaVariant } from "./server-message.ts";
 *
 * const delta: ToolCallDeltaVariant = {
 *   case: "editToolCallDelta",
 *   value: create(EditToolCallDeltaSchema, { streamContentDelta: "x" }),
 * };
 * if (delta.value.streamContentDelta !== "x") throw new Error("Expected the delta \"x\"");
 * ```
 */
export type ToolCallDeltaVariant = SetCase<ToolCallDelta["delta"]>;

/**
 * One event of a server-side shell (stdout, stderr, exit or start).
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ShellStreamStdoutSchema } from "../gen/agent/v1/exec_shell_pb.ts";
 * import type { ShellOutputEvent } from "./server-message.ts";
 *
 * const event: ShellOutputEvent = {
 *   case: "stdout",
 *   value: create(ShellStreamStdoutSchema, { data: "hi\n" }),
 * };
 * if (event.value.data !== "hi\n") throw new Error("Expected the output \"hi\\n\"");
 * ```
 */
export type ShellOutputEvent = SetCase<ShellOutputDeltaUpdate["event"]>;

/**
 * Usage totals of a whole Run, from `TurnEndedUpdate`. `undefined` means the
 * server did not send the counter. `inputTokens` includes cache reads and
 * writes; `outputTokens` includes reasoning tokens.
 *
 * @example
 * ```ts
 * import type { TurnCounters } from "./server-message.ts";
 *
 * const counters: TurnCounters = {
 *   inputTokens: 120,
 *   outputTokens: 30,
 *   cacheReadTokens: 100,
 *   cacheWriteTokens: 0,
 *   reasoningTokens: undefined,
 * };
 * const cached = (counters.cacheReadTokens ?? 0) + (counters.cacheWriteTokens ?? 0);
 * if (cached !== 100) throw new Error(`Expected 100 cached tokens, got "${cached}"`);
 * ```
 */
export interface TurnCounters {
  readonly inputTokens: number | undefined;
  readonly outputTokens: number | undefined;
  readonly cacheReadTokens: number | undefined;
  readonly cacheWriteTokens: number | undefined;
  readonly reasoningTokens: number | undefined;
}

/**
 * The oneof that had no known case set, named `Message.oneof`.
 *
 * @example
 * ```ts
 * import type { UnknownLocation } from "./server-message.ts";
 *
 * const where: UnknownLocation = "ExecServerMessage.message";
 * if (!where.startsWith("ExecServerMessage")) throw new Error(`Unexpected location "${where}"`);
 * ```
 */
export type UnknownLocation =
  | "AgentServerMessage.message"
  | "InteractionUpdate.message"
  | "ExecServerMessage.message"
  | "ExecServerControlMessage.message"
  | "KvServerMessage.message"
  | "InteractionQuery.query"
  | "ToolCallDelta.delta"
  | "ShellOutputDeltaUpdate.event";

/**
 * A request the server blocks on until the client answers `id` on `channel`.
 * For `exec`, refuse an unknown request with
 * `exec_client_control_message.throw{id}` followed by `stream_close{id}`; `kv`
 * and `interaction` have no generic refusal, so the Run cannot continue.
 *
 * @example
 * ```ts
 * import type { AwaitedReply } from "./server-message.ts";
 *
 * const awaited: AwaitedReply = { channel: "exec", id: 3 };
 * if (awaited.channel !== "exec") throw new Error(`Unexpected channel "${awaited.channel}"`);
 * ```
 */
export interface AwaitedReply {
  readonly channel: "exec" | "kv" | "interaction";
  readonly id: number;
}

/**
 * What one `AgentServerMessage` means, flattened for a `switch (view.kind)`.
 *
 * Tool-call kinds keep their kind when the `ToolCall` variant is unknown
 * (`tool` is then `undefined`): the call is still correlated by `callId`.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AgentServerMessageSchema } from "../gen/agent/v1/server_message_pb.ts";
 * import { classifyServerMessage, type ServerMessageView } from "./server-message.ts";
 *
 * function describe(view: ServerMessageView): string {
 *   switch (view.kind) {
 *     case "text-delta":
 *       return `text ${view.text}`;
 *     case "heartbeat":
 *       return "heartbeat";
 *     default:
 *       return view.kind;
 *   }
 * }
 *
 * const message = create(AgentServerMessageSchema, {
 *   message: {
 *     case: "interactionUpdate",
 *     value: { message: { case: "textDelta", value: { text: "Hi" } } },
 *   },
 * });
 * const described = describe(classifyServerMessage(message));
 * if (described !== "text Hi") throw new Error(`Unexpected description "${described}"`);
 * ```
 */
export type ServerMessageView =
  | { readonly kind: "text-delta"; readonly text: string; readonly isServerNotice: boolean }
  | {
    readonly kind: "thinking-delta";
    readonly text: string;
    readonly thinkingStyle: ThinkingStyle | undefined;
  }
  | { readonly kind: "thinking-completed"; readonly thinkingDurationMs: number }
  | {
    readonly kind: "tool-call-partial";
    readonly callId: string;
    readonly modelCallId: string;
    readonly argsTextDelta: string;
    readonly toolCall: ToolCall | undefined;
    readonly tool: ToolCallVariant | undefined;
  }
  | {
    readonly kind: "tool-call-started";
    readonly callId: string;
    readonly modelCallId: string;
    readonly toolCall: ToolCall | undefined;
    readonly tool: ToolCallVariant | undefined;
  }
  | {
    readonly kind: "tool-call-delta";
    readonly callId: string;
    readonly modelCallId: string;
    readonly delta: ToolCallDeltaVariant;
  }
  | {
    readonly kind: "tool-call-completed";
    readonly callId: string;
    readonly modelCallId: string;
    readonly toolCall: ToolCall | undefined;
    readonly tool: ToolCallVariant | undefined;
  }
  | { readonly kind: "token-delta"; readonly tokens: number }
  | { readonly kind: "step-started"; readonly stepId: number }
  | { readonly kind: "step-completed"; readonly stepId: number; readonly stepDurationMs: number }
  | { readonly kind: "user-message-appended"; readonly userMessage: UserMessage | undefined }
  | { readonly kind: "summary-started" }
  | { readonly kind: "summary"; readonly summary: string }
  | { readonly kind: "summary-completed"; readonly hookMessage: string | undefined }
  | { readonly kind: "shell-output-delta"; readonly event: ShellOutputEvent }
  | { readonly kind: "heartbeat" }
  | { readonly kind: "turn-ended"; readonly counters: TurnCounters }
  | { readonly kind: "prompt-suggestion"; readonly suggestion: string }
  | {
    readonly kind: "post-request-prompt";
    readonly title: string;
    readonly message: string;
    readonly buttonLabel: string;
    readonly buttonUrl: string;
  }
  | { readonly kind: "active-branch-change"; readonly path: string; readonly branchName: string }
  | { readonly kind: "feedback-request" }
  | { readonly kind: "response-comparison" }
  | {
    readonly kind: "context-injection-state";
    readonly injectionId: string;
    /** The `ContextInjectionState` case (`queued`, `delivered`, ...), if the server set one. */
    readonly state: NonNullable<ContextInjectionState["state"]["case"]> | undefined;
  }
  | { readonly kind: "routed-model"; readonly displayName: string }
  | {
    readonly kind: "exec-request";
    readonly id: number;
    readonly execId: string;
    readonly request: ExecRequest;
    /** The whole exec message (span context included), for whoever answers it. */
    readonly message: ExecServerMessage;
  }
  | { readonly kind: "exec-abort"; readonly id: number }
  | { readonly kind: "kv-get-blob"; readonly id: number; readonly blobId: Uint8Array }
  | {
    readonly kind: "kv-set-blob";
    readonly id: number;
    readonly blobId: Uint8Array;
    readonly blobData: Uint8Array;
  }
  | { readonly kind: "checkpoint"; readonly state: ConversationStateStructure }
  | {
    readonly kind: "interaction-query";
    readonly id: number;
    readonly query: InteractionQueryRequest;
    /** The whole query message, for whoever answers it. */
    readonly message: InteractionQuery;
  }
  | { readonly kind: "ttft-breakdown"; readonly breakdown: TtftBreakdown }
  | {
    readonly kind: "unknown";
    readonly where: UnknownLocation;
    readonly detail: string;
    readonly unknownFieldNumbers: readonly number[];
    readonly awaitedReply: AwaitedReply | undefined;
  };

/**
 * Classifies one decoded `AgentServerMessage`.
 *
 * A message whose oneof is unset but which carries `ttft_breakdown` becomes
 * `ttft-breakdown`; `ttft_breakdown` riding along with another case is ignored.
 *
 * @param message A decoded server message.
 * @returns The flat view of the message.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { AgentServerMessageSchema } from "../gen/agent/v1/server_message_pb.ts";
 * import { classifyServerMessage } from "./server-message.ts";
 *
 * const message = create(AgentServerMessageSchema, {
 *   message: {
 *     case: "kvServerMessage",
 *     value: {
 *       id: 4,
 *       message: { case: "getBlobArgs", value: { blobId: new Uint8Array([1, 2]) } },
 *     },
 *   },
 * });
 * const view = classifyServerMessage(message);
 * if (view.kind !== "kv-get-blob" || view.id !== 4) {
 *   throw new Error(`Unexpected view "${view.kind}"`);
 * }
 *
 * const empty = classifyServerMessage(create(AgentServerMessageSchema));
 * if (empty.kind !== "unknown") throw new Error(`Unexpected view "${empty.kind}"`);
 * ```
 */
export function classifyServerMessage(message: AgentServerMessage): ServerMessageView {
  const envelope = message.message;
  switch (envelope.case) {
    case "interactionUpdate":
      return classifyInteractionUpdate(envelope.value);
    case "execServerMessage":
      return classifyExecServerMessage(envelope.value);
    case "conversationCheckpointUpdate":
      return { kind: "checkpoint", state: envelope.value };
    case "kvServerMessage":
      return classifyKvServerMessage(envelope.value);
    case "execServerControlMessage":
      return classifyExecServerControlMessage(envelope.value);
    case "interactionQuery":
      return classifyInteractionQuery(envelope.value);
    case undefined:
      if (message.ttftBreakdown !== undefined) {
        return { kind: "ttft-breakdown", breakdown: message.ttftBreakdown };
      }
      return unknownCase("AgentServerMessage.message", message, undefined);
  }
}

function classifyInteractionUpdate(update: InteractionUpdate): ServerMessageView {
  const event = update.message;
  switch (event.case) {
    case "textDelta":
      return {
        kind: "text-delta",
        text: event.value.text,
        isServerNotice: event.value.isServerNotice,
      };
    case "thinkingDelta":
      return {
        kind: "thinking-delta",
        text: event.value.text,
        thinkingStyle: event.value.thinkingStyle,
      };
    case "thinkingCompleted":
      return { kind: "thinking-completed", thinkingDurationMs: event.value.thinkingDurationMs };
    case "partialToolCall":
      return {
        kind: "tool-call-partial",
        callId: event.value.callId,
        modelCallId: event.value.modelCallId,
        argsTextDelta: event.value.argsTextDelta,
        toolCall: event.value.toolCall,
        tool: toolVariantOf(event.value.toolCall),
      };
    case "toolCallStarted":
      return {
        kind: "tool-call-started",
        callId: event.value.callId,
        modelCallId: event.value.modelCallId,
        toolCall: event.value.toolCall,
        tool: toolVariantOf(event.value.toolCall),
      };
    case "toolCallDelta":
      return classifyToolCallDelta(event.value);
    case "toolCallCompleted":
      return {
        kind: "tool-call-completed",
        callId: event.value.callId,
        modelCallId: event.value.modelCallId,
        toolCall: event.value.toolCall,
        tool: toolVariantOf(event.value.toolCall),
      };
    case "tokenDelta":
      return { kind: "token-delta", tokens: event.value.tokens };
    case "stepStarted":
      return { kind: "step-started", stepId: Number(event.value.stepId) };
    case "stepCompleted":
      return {
        kind: "step-completed",
        stepId: Number(event.value.stepId),
        stepDurationMs: Number(event.value.stepDurationMs),
      };
    case "userMessageAppended":
      return { kind: "user-message-appended", userMessage: event.value.userMessage };
    case "summaryStarted":
      return { kind: "summary-started" };
    case "summary":
      return { kind: "summary", summary: event.value.summary };
    case "summaryCompleted":
      return { kind: "summary-completed", hookMessage: event.value.hookMessage };
    case "shellOutputDelta":
      return classifyShellOutputDelta(event.value);
    case "heartbeat":
      return { kind: "heartbeat" };
    case "turnEnded":
      return { kind: "turn-ended", counters: countersOf(event.value) };
    case "promptSuggestion":
      return { kind: "prompt-suggestion", suggestion: event.value.suggestion };
    case "postRequestPrompt":
      return {
        kind: "post-request-prompt",
        title: event.value.title,
        message: event.value.message,
        buttonLabel: event.value.buttonLabel,
        buttonUrl: event.value.buttonUrl,
      };
    case "activeBranchChange":
      return {
        kind: "active-branch-change",
        path: event.value.path,
        branchName: event.value.branchName,
      };
    case "feedbackRequest":
      return { kind: "feedback-request" };
    case "responseComparison":
      return { kind: "response-comparison" };
    case "contextInjectionState":
      return {
        kind: "context-injection-state",
        injectionId: event.value.injectionId,
        state: event.value.state?.state.case,
      };
    case "routedModel":
      return { kind: "routed-model", displayName: event.value.displayName };
    case undefined:
      return unknownCase("InteractionUpdate.message", update, undefined);
  }
}

function classifyToolCallDelta(update: ToolCallDeltaUpdate): ServerMessageView {
  const delta = update.toolCallDelta?.delta;
  if (delta === undefined || delta.case === undefined) {
    return unknownCase("ToolCallDelta.delta", update.toolCallDelta ?? update, undefined);
  }
  return {
    kind: "tool-call-delta",
    callId: update.callId,
    modelCallId: update.modelCallId,
    delta,
  };
}

function classifyShellOutputDelta(update: ShellOutputDeltaUpdate): ServerMessageView {
  const event = update.event;
  if (event.case === undefined) {
    return unknownCase("ShellOutputDeltaUpdate.event", update, undefined);
  }
  return { kind: "shell-output-delta", event };
}

function classifyExecServerMessage(exec: ExecServerMessage): ServerMessageView {
  const request = exec.message;
  if (request.case === undefined) {
    return unknownCase("ExecServerMessage.message", exec, { channel: "exec", id: exec.id });
  }
  return { kind: "exec-request", id: exec.id, execId: exec.execId, request, message: exec };
}

function classifyExecServerControlMessage(control: ExecServerControlMessage): ServerMessageView {
  const command = control.message;
  switch (command.case) {
    case "abort":
      return { kind: "exec-abort", id: command.value.id };
    case undefined:
      return unknownCase("ExecServerControlMessage.message", control, undefined);
  }
}

function classifyKvServerMessage(kv: KvServerMessage): ServerMessageView {
  const request = kv.message;
  switch (request.case) {
    case "getBlobArgs":
      return { kind: "kv-get-blob", id: kv.id, blobId: request.value.blobId };
    case "setBlobArgs":
      return {
        kind: "kv-set-blob",
        id: kv.id,
        blobId: request.value.blobId,
        blobData: request.value.blobData,
      };
    case undefined:
      return unknownCase("KvServerMessage.message", kv, { channel: "kv", id: kv.id });
  }
}

function classifyInteractionQuery(query: InteractionQuery): ServerMessageView {
  const question = query.query;
  if (question.case === undefined) {
    return unknownCase("InteractionQuery.query", query, { channel: "interaction", id: query.id });
  }
  return { kind: "interaction-query", id: query.id, query: question, message: query };
}

function toolVariantOf(toolCall: ToolCall | undefined): ToolCallVariant | undefined {
  const tool = toolCall?.tool;
  if (tool === undefined || tool.case === undefined) return undefined;
  return tool;
}

function countersOf(update: TurnEndedUpdate): TurnCounters {
  return {
    inputTokens: optionalNumber(update.inputTokens),
    outputTokens: optionalNumber(update.outputTokens),
    cacheReadTokens: optionalNumber(update.cacheReadTokens),
    cacheWriteTokens: optionalNumber(update.cacheWriteTokens),
    reasoningTokens: optionalNumber(update.reasoningTokens),
  };
}

function optionalNumber(value: bigint | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function unknownCase(
  where: UnknownLocation,
  message: Message,
  awaitedReply: AwaitedReply | undefined,
): ServerMessageView {
  const unknownFieldNumbers = fieldNumbersOf(message);
  return {
    kind: "unknown",
    where,
    detail: describeUnknown(where, unknownFieldNumbers),
    unknownFieldNumbers,
    awaitedReply,
  };
}

function fieldNumbersOf(message: Message): number[] {
  const numbers = (message.$unknown ?? []).map((field) => field.no);
  return [...new Set(numbers)].sort((a, b) => a - b);
}

function describeUnknown(where: UnknownLocation, fieldNumbers: readonly number[]): string {
  if (fieldNumbers.length === 0) return `No case of "${where}" is set`;
  return `No known case of "${where}" is set; unknown field numbers: ${fieldNumbers.join(", ")}`;
}
