/**
 * One-line descriptions of agent messages for the log and the transcript:
 * a kind (`interaction_update.text_delta`) and a short summary.
 *
 * @module
 */
import type { AgentClientMessage } from "../../../gen/agent/v1/client_message_pb.ts";
import type { AgentServerMessage } from "../../../gen/agent/v1/server_message_pb.ts";
import type { ExecClientMessage } from "../../../gen/agent/v1/exec_pb.ts";
import type { InteractionUpdate } from "../../../gen/agent/v1/interaction_update_pb.ts";
import { bytesToHex } from "../../../core/bytes.ts";
import { clip } from "./log.ts";

/** A kind and a summary. */
export interface Description {
  readonly kind: string;
  readonly summary: string;
}

/** Converts a camelCase case name to the snake_case field name. */
export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function shortId(id: Uint8Array): string {
  return id.length === 32 ? bytesToHex(id).slice(0, 12) : clip(new TextDecoder().decode(id), 24);
}

/**
 * Describes a server message.
 *
 * @param message The message.
 * @returns Kind and summary.
 */
export function describeServerMessage(message: AgentServerMessage): Description {
  const top = message.message;
  switch (top.case) {
    case "interactionUpdate":
      return describeUpdate(top.value);
    case "execServerMessage":
      return {
        kind: `exec_server_message.${snake(top.value.message.case ?? "unset")}`,
        summary: `id=${top.value.id}`,
      };
    case "kvServerMessage": {
      const inner = top.value.message;
      const id = inner.case === undefined ? "" : ` blob=${shortId(inner.value.blobId)}`;
      return {
        kind: `kv_server_message.${snake(inner.case ?? "unset")}`,
        summary: `id=${top.value.id}${id}`,
      };
    }
    case "conversationCheckpointUpdate": {
      const state = top.value;
      return {
        kind: "conversation_checkpoint_update",
        summary: `roots=${state.rootPromptMessagesJson.length} turns=${state.turns.length} ` +
          `pending=${state.pendingToolCalls.length} used=${state.tokenDetails?.usedTokens ?? 0}`,
      };
    }
    case "execServerControlMessage":
      return {
        kind: "exec_server_control_message.abort",
        summary: `id=${top.value.message.value?.id ?? 0}`,
      };
    case "interactionQuery":
      return {
        kind: `interaction_query.${snake(top.value.query.case ?? "unset")}`,
        summary: `id=${top.value.id}`,
      };
    case undefined:
      return {
        kind: "unknown",
        summary: `unknown fields ${message.$unknown?.map((f) => f.no).join(",") ?? ""}`,
      };
  }
}

function describeUpdate(update: InteractionUpdate): Description {
  const inner = update.message;
  const kind = `interaction_update.${snake(inner.case ?? "unset")}`;
  switch (inner.case) {
    case "textDelta":
    case "thinkingDelta":
      return { kind, summary: clip(inner.value.text) };
    case "toolCallStarted":
    case "toolCallCompleted":
    case "partialToolCall":
      return {
        kind,
        summary: `${inner.value.callId} ${snake(inner.value.toolCall?.tool.case ?? "")}`,
      };
    case "turnEnded": {
      const v = inner.value;
      return {
        kind,
        summary: `in=${v.inputTokens} out=${v.outputTokens} cache_read=${v.cacheReadTokens} ` +
          `cache_write=${v.cacheWriteTokens} reasoning=${v.reasoningTokens}`,
      };
    }
    case "stepStarted":
    case "stepCompleted":
      return { kind, summary: `step ${inner.value.stepId}` };
    default:
      return { kind, summary: "" };
  }
}

/**
 * Describes a client message.
 *
 * @param message The message.
 * @returns Kind and summary.
 */
export function describeClientMessage(message: AgentClientMessage): Description {
  const top = message.message;
  switch (top.case) {
    case "runRequest": {
      const action = top.value.action?.action;
      const text = action?.case === "userMessageAction"
        ? clip(action.value.userMessage?.text ?? "")
        : "";
      return {
        kind: "run_request",
        summary: `${snake(action?.case ?? "no_action")} conversation=${
          top.value.conversationId ?? ""
        } ${text}`,
      };
    }
    case "execClientMessage":
      return {
        kind: `exec_client_message.${snake(top.value.message.case ?? "unset")}`,
        summary: `id=${top.value.id}${shellEvent(top.value)}`,
      };
    case "kvClientMessage":
      return {
        kind: `kv_client_message.${snake(top.value.message.case ?? "unset")}`,
        summary: `id=${top.value.id}`,
      };
    case "execClientControlMessage":
      return {
        kind: `exec_client_control_message.${snake(top.value.message.case ?? "unset")}`,
        summary: `id=${top.value.message.value?.id ?? 0}`,
      };
    case "interactionResponse":
      return {
        kind: `interaction_response.${snake(top.value.result.case ?? "unset")}`,
        summary: `id=${top.value.id}`,
      };
    case "conversationAction":
      return {
        kind: `conversation_action.${snake(top.value.action.case ?? "unset")}`,
        summary: "",
      };
    case "clientHeartbeat":
      return { kind: "client_heartbeat", summary: "" };
    case "prewarmRequest":
      return { kind: "prewarm_request", summary: "" };
    case undefined:
      return {
        kind: "unknown",
        summary: `unknown fields ${message.$unknown?.map((f) => f.no).join(",") ?? ""}`,
      };
  }
}

function shellEvent(message: ExecClientMessage): string {
  if (message.message.case !== "shellStream") return "";
  return ` ${message.message.value.event.case ?? "unset"}`;
}
