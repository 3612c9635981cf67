/**
 * Building the descriptors of a Run's messages at a chosen moment. The npm build builds
 * protocol descriptors on first use (`lazy-descriptors.ts`); over the agent schema that is
 * tens of milliseconds of CPU, and the first use is the first turn's run request, on the
 * way to the network. A caller that has to wait for something else first (the first
 * request context waits for `git`) builds them during that wait instead (ADR 199).
 *
 * @module
 */
import { AgentClientMessageSchema } from "../gen/agent/v1/client_message_pb.ts";
import { file_agent_v1_exec } from "../gen/agent/v1/exec_pb.ts";
import { AgentServerMessageSchema } from "../gen/agent/v1/server_message_pb.ts";
import { builtDescriptor } from "./lazy-descriptors.ts";

/**
 * Builds the descriptors of every message a Run sends or receives (the client and server
 * messages and all the files they import), if they are not built yet, in two halves of
 * about the same cost with `pause()` between them, so that I/O the caller is waiting for
 * can take its next step in between. Where descriptors are built at import (the sources,
 * `--eager-descriptors`) this only reads properties.
 *
 * @param pause Resolves when the caller's pending I/O callbacks have run.
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
  // The exec files (and what they import) are about half of the agent schema.
  builtDescriptor(file_agent_v1_exec);
  await pause();
  builtDescriptor(AgentClientMessageSchema);
  builtDescriptor(AgentServerMessageSchema);
}
