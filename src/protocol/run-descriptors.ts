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
import { AgentServerMessageSchema } from "../gen/agent/v1/server_message_pb.ts";
import { builtDescriptor } from "./lazy-descriptors.ts";

/**
 * Builds the descriptors of every message a Run sends or receives (the client and server
 * messages and all the files they import), if they are not built yet. Where descriptors
 * are built at import (the sources, `--eager-descriptors`) this only reads a property.
 *
 * @example
 * ```ts
 * import { buildRunDescriptors } from "./run-descriptors.ts";
 *
 * buildRunDescriptors();
 * buildRunDescriptors(); // built once: the second call does nothing
 * ```
 */
export function buildRunDescriptors(): void {
  builtDescriptor(AgentClientMessageSchema);
  builtDescriptor(AgentServerMessageSchema);
}
