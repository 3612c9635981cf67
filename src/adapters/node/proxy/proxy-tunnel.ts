/**
 * A CONNECT tunnel through an HTTP proxy, and TLS over it: the socket both proxied
 * transports run on (HTTPS for SSE, HTTP/2 with ALPN `h2`). A proxy that refuses the
 * tunnel, wants credentials, or does not answer becomes a `CursorError` naming the proxy
 * without its credentials; nothing of a request was sent then, so it is replay-safe.
 *
 * @module
 */
import net from "node:net";
import tls from "node:tls";
import { CursorError } from "../../../core/cursor-error.ts";
import type { ProxyRoute } from "../../../transport/proxy-rules.ts";

/** Largest CONNECT answer head read before giving up. */
const MAX_HEAD_BYTES = 16_384;

/**
 * Opens a tunnel to `host:port` through the proxy.
 *
 * @param route The proxy.
 * @param host The destination host.
 * @param port The destination port.
 * @param timeoutMs Limit for the proxy's answer.
 * @returns The raw tunnel socket (bytes to and from the destination).
 * @throws {CursorError} `network` when the proxy refuses or cannot be reached; `timeout`.
 */
export function openTunnel(
  route: ProxyRoute,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<net.Socket> {
  const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const failure = (detail: string, cause?: unknown) =>
    new CursorError(
      "network",
      `Proxy ${JSON.stringify(route.display)} did not open a tunnel to ${target}: ${detail}`,
      { retryable: true, replaySafe: true, cause },
    );
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: route.host, port: route.port });
    socket.setNoDelay(true);
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new CursorError(
          "timeout",
          `Proxy ${JSON.stringify(route.display)} did not answer within ${timeoutMs} ms`,
          { retryable: true, replaySafe: true },
        ),
      );
    }, timeoutMs);
    const settle = (error: CursorError | undefined) => {
      clearTimeout(timer);
      socket.off("data", onData);
      if (error) {
        socket.destroy();
        reject(error);
      } else resolve(socket);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) settle(failure("an oversized answer"));
        return;
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString())?.[1]);
      const rest = head.subarray(end + 4);
      if (status === 200) {
        if (rest.length > 0) socket.unshift(rest);
        settle(undefined);
        return;
      }
      settle(failure(refusal(status, route)));
    };
    socket.on("data", onData);
    socket.once("error", (error) => settle(failure(error.message, error)));
    socket.once("close", () => settle(failure("the proxy closed the connection")));
    socket.once("connect", () => {
      const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
      if (route.authorization) lines.push(`Proxy-Authorization: ${route.authorization}`);
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
  });
}

function refusal(status: number, route: ProxyRoute): string {
  if (status === 407) {
    return route.authorization === undefined
      ? "it needs credentials (HTTP 407): put them in HTTPS_PROXY as http://user:password@host:port"
      : "it refused the credentials in HTTPS_PROXY (HTTP 407)";
  }
  return Number.isFinite(status)
    ? `it answered HTTP ${status}`
    : "it answered something else than HTTP";
}

/**
 * TLS to `servername` over a tunnel, as `tls.connect` would make it directly.
 *
 * @param tunnel The tunnel socket.
 * @param servername The destination host (SNI and certificate check).
 * @param options ALPN and any extra TLS options (e.g. `ca`).
 * @returns The TLS socket (connecting).
 */
export function tlsOverTunnel(
  tunnel: net.Socket,
  servername: string,
  options: tls.ConnectionOptions,
): tls.TLSSocket {
  return tls.connect({
    ...options,
    socket: tunnel,
    ...(net.isIP(servername) === 0 ? { servername } : {}),
    host: servername,
  });
}
