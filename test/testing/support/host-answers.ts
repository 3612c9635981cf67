/**
 * The fake host behind the minimal client: answers execs (see `host-exec.ts`) and
 * interaction queries (see `host-queries.ts`), and can deliberately break rules for
 * strict-mode tests.
 *
 * @module
 */
import type { ExecServerMessage } from "../../../src/gen/agent/v1/exec_pb.ts";
import type { RequestContext } from "../../../src/gen/agent/v1/request_context_pb.ts";
import { execMessage, streamClose, toolReplies } from "./host-exec.ts";
import type { HostBehaviour, HostState, Send } from "./host-types.ts";

export type { ClientInit, HostBehaviour, Send } from "./host-types.ts";

export { answerQuery } from "./host-queries.ts";

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
