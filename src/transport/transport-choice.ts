/**
 * HTTP/2 with SSE behind it: Runs go over HTTP/2 while the server allows it and a
 * connection can be made; otherwise they open over SSE. A failed HTTP/2 connection is
 * remembered for a while, so later Runs do not pay the attempt each time. Only a Run the
 * server never started moves to SSE: one the HTTP/2 transport could not open (nothing of
 * it was sent), or one the agent host refused as a whole with HTTP 464 before its first
 * frame. A Run that fails otherwise keeps its transport and is left to recovery. With
 * `cleartextHttp2: false` (the `"auto"` setting) an `http:` origin is not tried over
 * HTTP/2 at all: Cursor serves only TLS, and an h2c attempt at an HTTP/1.1 server can
 * throw uncaught inside Bun's `node:http2` (ADR 182).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import type { DebugLogger } from "../core/logger.ts";
import type { AgentRunStream, AgentTransport, OpenRunOptions } from "./agent-transport.ts";
import type { ServerConfig } from "./server-config.ts";
import { reopenableRun } from "./refused-run.ts";

/** How long a failed HTTP/2 connection keeps Runs on SSE before HTTP/2 is tried again. */
export const HTTP2_RETRY_AFTER_MS = 5 * 60_000;

/** Options for {@link createTransportChoice}. */
export interface TransportChoiceOptions {
  /** The preferred transport; its `openRun` rejects only when nothing of the Run was sent. */
  readonly http2: AgentTransport;
  /** The transport every Run can use. */
  readonly sse: AgentTransport;
  /** The server's configuration, once looked up (none with an explicit agent origin). */
  readonly serverConfig: () => ServerConfig | undefined;
  /** Where the transport switches are told. */
  readonly logger: DebugLogger;
  /** The clock (epoch ms). */
  readonly now: () => number;
  /** How long a failed connection keeps Runs on SSE; default {@link HTTP2_RETRY_AFTER_MS}. */
  readonly retryAfterMs?: number;
  /** Whether an `http:` origin is tried over cleartext HTTP/2 (h2c); default true. */
  readonly cleartextHttp2?: boolean;
}

/**
 * A transport that prefers HTTP/2 and falls back to SSE. Its `kind` is the transport the
 * next Run will try first.
 *
 * @param options Both transports, the server configuration, the logger and the clock.
 * @returns The transport.
 *
 * @example
 * ```ts
 * import { createTransportChoice } from "./transport-choice.ts";
 * import { createMemoryLogger } from "../core/logger.ts";
 *
 * const refused = { kind: "http2" as const, openRun: () => Promise.reject(new Error("ECONNREFUSED")) };
 * const sse = { kind: "sse" as const, openRun: () => Promise.reject(new Error("offline")) };
 * const { logger, lines } = createMemoryLogger();
 * const transport = createTransportChoice({ http2: refused, sse, serverConfig: () => undefined, logger, now: Date.now });
 * console.assert(transport.kind === "http2");
 * await transport.openRun({ agentBaseURL: "https://agent.example", headers: {}, requestId: "r1" }).catch(() => {});
 * console.assert(transport.kind === "sse");
 * console.assert(lines[0]?.startsWith("transport fallback: to=sse reason=http2-unavailable"));
 * ```
 */
export function createTransportChoice(options: TransportChoiceOptions): AgentTransport {
  const retryAfterMs = options.retryAfterMs ?? HTTP2_RETRY_AFTER_MS;
  let failedUntil = 0;
  let toldDisabled = false;
  const disabledByServer = (): boolean => {
    const config = options.serverConfig();
    if (config?.http2 !== "disabled") return false;
    if (!toldDisabled) {
      toldDisabled = true;
      tell(options.logger, {
        kind: "transport-fallback",
        to: "sse",
        reason: "server-config",
        http2Config: config.http2Config ?? "unset",
      });
    }
    return true;
  };
  const http2Unavailable = () => options.now() < failedUntil;
  /**
   * Whether the last Run's origin is one HTTP/2 is not tried on (cleartext, when so set):
   * not a fallback, so no `transport fallback:` line; the Run lines after the first name
   * `transport=sse` (the first is written before the origin is known).
   */
  let onCleartext = false;
  const cleartextOnly = (origin: string): boolean => {
    onCleartext = options.cleartextHttp2 === false && /^http:/i.test(origin);
    return onCleartext;
  };
  return {
    get kind() {
      return onCleartext || options.serverConfig()?.http2 === "disabled" || http2Unavailable()
        ? "sse"
        : "http2";
    },
    async openRun(run: OpenRunOptions): Promise<AgentRunStream> {
      if (disabledByServer() || cleartextOnly(run.agentBaseURL) || http2Unavailable()) {
        return await options.sse.openRun(run);
      }
      const fallBack = (reason: "http2-unavailable" | "http2-refused", failure: CursorError) => {
        failedUntil = options.now() + retryAfterMs;
        tell(options.logger, {
          kind: "transport-fallback",
          to: "sse",
          reason,
          code: failure.code,
          retryAfterMs,
          error: failure.message,
        });
        return options.sse.openRun(run);
      };
      let http2: AgentRunStream;
      try {
        http2 = await options.http2.openRun(run);
      } catch (error) {
        const failure = CursorError.from(error);
        if (run.signal?.aborted || failure.code === "canceled") throw failure;
        return await fallBack("http2-unavailable", failure);
      }
      return reopenableRun(http2, (refusal) => fallBack("http2-refused", refusal));
    },
  };
}

/** The `transport fallback:` line (`key=value` fields, like every debug line). */
type FallbackEvent =
  & { readonly kind: "transport-fallback"; readonly to: "sse" }
  & (
    | { readonly reason: "server-config"; readonly http2Config: string }
    | {
      readonly reason: "http2-unavailable" | "http2-refused";
      readonly code: string;
      readonly retryAfterMs: number;
      readonly error: string;
    }
  );

function tell(logger: DebugLogger, event: FallbackEvent): void {
  if (!logger.enabled) return;
  const text = event.reason === "server-config"
    ? `transport fallback: to=sse reason=server-config http2Config=${event.http2Config}`
    : `transport fallback: to=sse reason=${event.reason} code=${event.code} retryAfterMs=${event.retryAfterMs} error=${
      JSON.stringify(event.error)
    }`;
  if (logger.record) logger.record(event, text);
  else logger.line(text);
}
