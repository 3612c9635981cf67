/**
 * The HTTP/2 transport, loaded on its first Run. `node:http2` (with `node:net`, `node:tls`
 * and `node:stream` behind it) is the costliest built-in module the Node entry needs:
 * measured about 35 ms of CPU to load on Bun. Deferring it keeps that out of the
 * package's import, so an OpenCode start that never runs a Cursor turn never pays it.
 *
 * @module
 */
import type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
} from "../../../transport/agent-transport.ts";
import type { Http2TransportOptions } from "./http2-transport.ts";

/**
 * An HTTP/2 transport whose module (and `node:http2`) loads when the first Run opens.
 *
 * @param options As for `createHttp2Transport`.
 * @returns A transport of kind `http2`.
 *
 * @example
 * ```ts
 * import { createDeferredHttp2Transport } from "./deferred-http2-transport.ts";
 *
 * const transport = createDeferredHttp2Transport({ readIdleMs: 30_000 });
 * console.assert(transport.kind === "http2");
 * ```
 */
export function createDeferredHttp2Transport(options: Http2TransportOptions = {}): AgentTransport {
  let loaded: Promise<AgentTransport> | undefined;
  const transport = (): Promise<
    AgentTransport
  > => (loaded ??= import("./http2-transport.ts").then((module) =>
    module.createHttp2Transport(options)
  ));
  return {
    kind: "http2",
    async openRun(run: OpenRunOptions): Promise<AgentRunStream> {
      return (await transport()).openRun(run);
    },
  };
}
