/**
 * Types shared by the fake host's answer modules (kept apart so they import no module
 * that imports them).
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AgentClientMessageSchema } from "../../../src/gen/agent/v1/client_message_pb.ts";
import type { AgentServerMessage } from "../../../src/gen/agent/v1/server_message_pb.ts";

/** A client message, as an init shape. */
export type ClientInit = MessageInitShape<typeof AgentClientMessageSchema>;
/** Sends one client message. */
export type Send = (message: ClientInit) => Promise<unknown>;
/** Variants and deliberate misbehaviour. */
export interface HostBehaviour {
  /** Client heartbeat period; 0 disables (default 5000). */
  readonly heartbeatMs?: number;
  readonly frameTimeoutMs?: number;
  /** SSE append encoding. */
  readonly appendEncoding?: "hex" | "binary" | "upper" | "json";
  /** Shell terminal variant (default `exit`). */
  readonly shellTerminal?: "exit" | "exit+shell_result" | "shell_result";
  /** Send stream_close after request_context_result. */
  readonly closeRequestContext?: boolean;
  /** Never send stream_close after tool results. */
  readonly omitStreamClose?: boolean;
  /** Send stream_close before the result. */
  readonly closeBeforeResult?: boolean;
  /** Send every exec result twice. */
  readonly duplicateResults?: boolean;
  /** Answer execs with the wrong result case. */
  readonly wrongResultCase?: boolean;
  /** Answer exec ids shifted by this much. */
  readonly execIdOffset?: number;
  /** Ignore exec requests entirely. */
  readonly ignoreExecs?: boolean;
  /** Ignore KV requests. */
  readonly skipKv?: boolean;
  /** Answer every get_blob as a miss. */
  readonly forgetBlobs?: boolean;
  /** Answer get_blob with bytes that do not match the id. */
  readonly corruptBlobs?: boolean;
  /** How a blob miss is reported. */
  readonly blobMissShape?: "empty" | "error";
  /** Answer ask-question queries asynchronously. */
  readonly asyncAsk?: boolean;
  /** Reject interaction queries. */
  readonly rejectQueries?: boolean;
  /** Answer ask-question queries with a malformed shape. */
  readonly malformedAnswers?: "unasked-question" | "unknown-option" | "no-result";

  /** Throw instead of answering tool execs. */
  readonly throwExecs?: boolean;
  /** Stop reading and close the Run when this returns true (before answering the message). */
  readonly stopWhen?: (message: AgentServerMessage) => boolean;
}

/** The client's persistent state across turns. */
export interface HostState {
  /** Blob store (hex id → bytes), kept across Runs. */
  readonly blobs: Map<string, Uint8Array>;
  /** The in-memory workspace (absolute path → content). */
  readonly files: Map<string, string>;
}
