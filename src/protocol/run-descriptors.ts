/**
 * Building the descriptors of a Run's messages at a chosen moment. The npm build builds
 * protocol descriptors on first use (`lazy-descriptors.ts`); over the agent schema that is
 * tens of milliseconds of CPU, and the first use is the first turn's run request, on the
 * way to the network. A caller that has to wait for something else first (the first
 * request context waits for `git`) builds them during that wait instead (ADR 199).
 *
 * @module
 */
import type { DescFile } from "@bufbuild/protobuf";
import { file_agent_v1_client_message } from "../gen/agent/v1/client_message_pb.ts";
import { file_agent_v1_common } from "../gen/agent/v1/common_pb.ts";
import { file_agent_v1_conversation_action } from "../gen/agent/v1/conversation_action_pb.ts";
import { file_agent_v1_conversation_state } from "../gen/agent/v1/conversation_state_pb.ts";
import { file_agent_v1_exec } from "../gen/agent/v1/exec_pb.ts";
import { file_agent_v1_exec_agent } from "../gen/agent/v1/exec_agent_pb.ts";
import { file_agent_v1_exec_file } from "../gen/agent/v1/exec_file_pb.ts";
import { file_agent_v1_exec_mcp } from "../gen/agent/v1/exec_mcp_pb.ts";
import { file_agent_v1_exec_misc } from "../gen/agent/v1/exec_misc_pb.ts";
import { file_agent_v1_exec_shell } from "../gen/agent/v1/exec_shell_pb.ts";
import { file_agent_v1_interaction_query } from "../gen/agent/v1/interaction_query_pb.ts";
import { file_agent_v1_interaction_update } from "../gen/agent/v1/interaction_update_pb.ts";
import { file_agent_v1_kv } from "../gen/agent/v1/kv_pb.ts";
import { file_agent_v1_mcp } from "../gen/agent/v1/mcp_pb.ts";
import { file_agent_v1_model } from "../gen/agent/v1/model_pb.ts";
import { file_agent_v1_request_context } from "../gen/agent/v1/request_context_pb.ts";
import { file_agent_v1_run_request } from "../gen/agent/v1/run_request_pb.ts";
import { file_agent_v1_server_message } from "../gen/agent/v1/server_message_pb.ts";
import { file_agent_v1_tool_call } from "../gen/agent/v1/tool_call_pb.ts";
import { file_agent_v1_user_message } from "../gen/agent/v1/user_message_pb.ts";
import { builtDescriptor } from "./lazy-descriptors.ts";

/**
 * The agent schema's files, each after the files it imports, ending with the client and
 * server messages: everything a Run sends or receives.
 */
const RUN_FILES: readonly DescFile[] = [
  file_agent_v1_common,
  file_agent_v1_mcp,
  file_agent_v1_request_context,
  file_agent_v1_exec_agent,
  file_agent_v1_exec_misc,
  file_agent_v1_exec_shell,
  file_agent_v1_exec_file,
  file_agent_v1_exec_mcp,
  file_agent_v1_exec,
  file_agent_v1_interaction_query,
  file_agent_v1_kv,
  file_agent_v1_user_message,
  file_agent_v1_tool_call,
  file_agent_v1_conversation_state,
  file_agent_v1_conversation_action,
  file_agent_v1_model,
  file_agent_v1_run_request,
  file_agent_v1_client_message,
  file_agent_v1_interaction_update,
  file_agent_v1_server_message,
];

/**
 * Builds the descriptors of every message a Run sends or receives, if they are not built
 * yet, one file at a time with `pause()` after each, so that I/O the caller is waiting for
 * takes its next step as soon as it can (git's second command starts when its first
 * ends). Where descriptors are built at import (the sources, `--eager-descriptors`) this
 * only reads properties and pauses.
 *
 * @param pause Resolves once pending I/O callbacks have had their turn.
 * @returns Settles once all are built.
 *
 * @example
 * ```ts
 * import { buildRunDescriptors } from "./run-descriptors.ts";
 *
 * await buildRunDescriptors(() => new Promise((resolve) => setTimeout(resolve, 0)));
 * ```
 */
export async function buildRunDescriptors(pause: () => Promise<void>): Promise<void> {
  for (const file of RUN_FILES) {
    builtDescriptor(file);
    await pause();
  }
}
