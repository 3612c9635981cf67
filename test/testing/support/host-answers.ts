/**
 * The fake host behind the minimal client: answers execs (see `host-exec.ts`) and
 * interaction queries (see `host-queries.ts`), and can deliberately break rules for
 * strict-mode tests.
 *
 * @module
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { AgentClientMessageSchema } from "../../../src/gen/agent/v1/client_message_pb.ts";
import type { ExecServerMessage } from "../../../src/gen/agent/v1/exec_pb.ts";
import type { AgentServerMessage } from "../../../src/gen/agent/v1/server_message_pb.ts";
import type { RequestContext } from "../../../src/gen/agent/v1/request_context_pb.ts";
import type { HostState } from "./host.ts";
import { execMessage, streamClose, toolReplies } from "./host-exec.ts";

/** A client message, as an init shape. */
export type ClientInit = MessageInitShape<typeof AgentClientMessageSchema>;
/** Sends one client message. */
export type Send = (message: ClientInit) => Promise<unknown>;

export { answerQuery } from "./host-queries.ts";

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
  /** Throw instead of answering tool execs. */
  readonly throwExecs?: boolean;
  /** Stop reading and close the Run when this returns true (before answering the message). */
  readonly stopWhen?: (message: AgentServerMessage) => boolean;
}

/** Answers one exec request. */
export async function answerExec(
  exec: ExecServerMessage,
  state: HostState,
  context: RequestContext,
  send: Send,
  behaviour: HostBehaviour,
): Promise<void> {
  if (exec.message.case === "requestContextArgs") {
    const result = { result: { case: "success" as const, value: { requestContext: context } } };
    await send(execMessage(exec.id, { case: "requestContextResult", value: result }));
    if (behaviour.closeRequestContext === true) await send(streamClose(exec.id));
    return;
  }
  if (behaviour.ignoreExecs === true) return;
  const id = exec.id + (behaviour.execIdOffset ?? 0);
  if (behaviour.closeBeforeResult === true) await send(streamClose(id));
  if (behaviour.throwExecs === true) {
    const thrown = { message: { case: "throw" as const, value: { id, error: "host refused" } } };
    await send({ message: { case: "execClientControlMessage", value: thrown } });
  } else {
    for (const reply of toolReplies(id, exec, state, behaviour)) {
      await send(reply);
      if (behaviour.duplicateResults === true) await send(reply);
    }
  }
  if (behaviour.omitStreamClose !== true && behaviour.closeBeforeResult !== true) {
    await send(streamClose(id));
  }
}
