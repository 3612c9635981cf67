/**
 * The model's calls on the client: one exec request and its outcome, one interaction
 * query and its response, each recorded on the Run.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../../../gen/agent/v1/server_message_pb.ts";
import type { ExecServerMessageSchema } from "../../../../gen/agent/v1/exec_pb.ts";
import {
  InteractionQuerySchema,
  type InteractionResponse,
} from "../../../../gen/agent/v1/interaction_query_pb.ts";
import type { McpToolDefinition } from "../../../../gen/agent/v1/mcp_pb.ts";
import { interactionAnswerProblem } from "./interaction-shape.ts";
import { imageTypeOf } from "./image-bytes.ts";
import type { ExecOutcome } from "../../io/exec-replies.ts";
import type { ExecRecord } from "../../observe/records.ts";
import type { RunIo } from "../../io/run-io.ts";
import type { ConversationEntry } from "../../conversation/conversations.ts";

/** What tools need from the Run. */
export interface ToolEnv {
  readonly io: RunIo;
  readonly workspace: string;
  readonly tools: readonly McpToolDefinition[];
  readonly modelId: string;
  readonly conversationId: string;
  /** Routes shell output of an exec id to a listener (for `tool_call_delta`). */
  watchShell(execId: number, listener: (stream: "stdout" | "stderr", data: string) => void): void;
  /** Waits for an async ask-question answer delivered by a conversation action. */
  asyncAnswer(toolCallId: string): Promise<string>;
  /** The conversation's remembered state (its mode changes on an approved switch). */
  readonly conversation: ConversationEntry;
  /** Remembers a plan the client accepted, under the `plan_uri` it answered with. */
  acceptPlan(uri: string, plan: { readonly name: string; readonly plan: string }): void;
  /** Called once an exec request went out (a `::fault … at=exec` fires here). */
  onExecSent?: (() => void) | undefined;
}

/** The `message` oneof of an exec request. */
export type ExecRequest = NonNullable<MessageInitShape<typeof ExecServerMessageSchema>["message"]>;
/** The `query` oneof of an interaction query. */
export type QueryRequest = NonNullable<MessageInitShape<typeof InteractionQuerySchema>["query"]>;

/** Sends one exec and waits for its outcome (terminal result and stream_close). */
export async function execOnClient(
  env: ToolEnv,
  toolCallId: string,
  request: ExecRequest,
  onShell?: (stream: "stdout" | "stderr", data: string) => void,
): Promise<ExecOutcome> {
  const requestCase = request.case ?? "unset";
  const { id, done } = env.io.replies.exec(requestCase, true);
  const record: ExecRecord = {
    id,
    requestCase,
    toolCallId,
    resultCase: undefined,
    thrown: undefined,
    streamClosed: false,
    durationMs: undefined,
  };
  env.io.record.execs.push(record);
  if (onShell !== undefined) env.watchShell(id, onShell);
  await env.io.writer.send(create(AgentServerMessageSchema, {
    message: { case: "execServerMessage", value: { id, message: request } },
  }));
  env.onExecSent?.();
  const outcome = await done;
  record.resultCase = outcome.shell?.terminal ?? outcome.result?.case;
  record.thrown = outcome.thrown;
  record.streamClosed = outcome.streamClosed;
  record.durationMs = outcome.durationMs;
  checkToolImages(env, outcome);
  return outcome;
}

/** Largest image Cursor takes with a tool result: 20 MiB. */
const MAX_TOOL_IMAGE_BYTES = 20 * 1024 * 1024;

/** An MCP image item must be an image of the type it names, within Cursor's bound. */
function checkToolImages(env: ToolEnv, outcome: ExecOutcome): void {
  const result = outcome.result;
  if (result?.case !== "mcpResult" || result.value.result.case !== "success") return;
  for (const item of result.value.result.value.content) {
    if (item.content.case !== "image") continue;
    const { data, mimeType } = item.content.value;
    const actual = imageTypeOf(data);
    if (actual === undefined || actual !== mimeType || data.length > MAX_TOOL_IMAGE_BYTES) {
      env.io.violation(
        "tool-image-invalid",
        `MCP image content of ${data.length} bytes is ${actual ?? "no image"}, sent as ${
          JSON.stringify(mimeType)
        }`,
      );
    }
  }
}

/** Sends one interaction query and waits for its response. */
export async function queryClient(
  env: ToolEnv,
  toolCallId: string,
  query: QueryRequest,
): Promise<InteractionResponse> {
  const { id, done } = env.io.replies.query(
    query.case ?? "unset",
    (response) => interactionAnswerProblem(create(InteractionQuerySchema, { id, query }), response),
  );
  const record = {
    id,
    queryCase: query.case ?? "unset",
    toolCallId,
    resultCase: undefined as string | undefined,
  };
  env.io.record.interactions.push(record);
  await env.io.writer.send(create(AgentServerMessageSchema, {
    message: { case: "interactionQuery", value: { id, query } },
  }));
  const response = await done;
  record.resultCase = response.result.case;
  return response;
}
