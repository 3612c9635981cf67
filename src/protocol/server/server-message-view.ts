/**
 * The typed, flat view of `agent.v1.AgentServerMessage` that
 * `classifyServerMessage` (in `server-message.ts`) produces: {@link ServerMessageView}, a
 * discriminated union a caller can `switch (view.kind)` over exhaustively, and
 * the narrowed oneof types its kinds carry.
 *
 * @module
 */

import type { ConversationStateStructure } from "../../gen/agent/v1/conversation_state_pb.ts";
import type { ExecServerMessage } from "../../gen/agent/v1/exec_pb.ts";
import type { InteractionQuery } from "../../gen/agent/v1/interaction_query_pb.ts";
import type {
  ContextInjectionState,
  ShellOutputDeltaUpdate,
  ThinkingStyle,
  ToolCallDelta,
} from "../../gen/agent/v1/interaction_update_pb.ts";
import type { TtftBreakdown } from "../../gen/agent/v1/server_message_pb.ts";
import type { ToolCall } from "../../gen/agent/v1/tool_call_pb.ts";
import type { UserMessage } from "../../gen/agent/v1/user_message_pb.ts";

/** A generated oneof value narrowed to the cases that are actually set. */
type SetCase<Oneof extends { case: string | undefined }> = Exclude<Oneof, { case: undefined }>;

/**
 * The request inside an `ExecServerMessage`: the generated oneof with its case
 * set, e.g. `{ case: "readArgs", value: ReadArgs }`.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ReadArgsSchema } from "../../gen/agent/v1/exec_file_pb.ts";
 * import type { ExecRequest } from "./server-message-view.ts";
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
 * import { WebSearchRequestQuerySchema } from "../../gen/agent/v1/interaction_query_pb.ts";
 * import type { InteractionQueryRequest } from "./server-message-view.ts";
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
 * import { McpToolCallSchema } from "../../gen/agent/v1/tool_call_pb.ts";
 * import type { ToolCallVariant } from "./server-message-view.ts";
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
 * import { EditToolCallDeltaSchema } from "../../gen/agent/v1/interaction_update_pb.ts";
 * import type { ToolCallDeltaVariant } from "./server-message-view.ts";
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
 * import { ShellStreamStdoutSchema } from "../../gen/agent/v1/exec_shell_pb.ts";
 * import type { ShellOutputEvent } from "./server-message-view.ts";
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
 * import type { TurnCounters } from "./server-message-view.ts";
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
 * import type { UnknownLocation } from "./server-message-view.ts";
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
 * import type { AwaitedReply } from "./server-message-view.ts";
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
 * import { AgentServerMessageSchema } from "../../gen/agent/v1/server_message_pb.ts";
 * import { classifyServerMessage } from "./server-message.ts";
 * import type { ServerMessageView } from "./server-message-view.ts";
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
