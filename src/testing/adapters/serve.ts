/**
 * `startCursorEmulator`: the emulator on loopback. The fetch handler is served by
 * `Deno.serve` on Deno, `Bun.serve` on Bun and `node:http` on Node; the bidi `Run` by a
 * `node:http2` server (h2c, on its own port). With TLS material, one `node:http2` TLS
 * server (ALPN h2 and http/1.1) serves everything on a single https URL.
 *
 * @module
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { buildEmulator, type CursorEmulatorCore } from "../emulator/emulator.ts";
import type { EmulatorOptions } from "../emulator/config/options.ts";
import { type Http2Listener, listenHttp2, type TlsOptions } from "./http2-server.ts";
import { type FetchHandler, serveWithFetch } from "./node-fetch-bridge.ts";
import {
  type NetworkOptions,
  type NetworkRelay,
  type NetworkStats,
  startNetworkRelay,
} from "./network-relay.ts";

/**
 * Options of {@link startCursorEmulator}.
 *
 * @example
 * ```ts
 * import type { StartEmulatorOptions } from "../mod.ts";
 *
 * const options: StartEmulatorOptions = { port: 0, http2: true, strict: true, replyDeadlineMs: 5000 };
 * console.assert(options.http2 === true);
 * ```
 */
export interface StartEmulatorOptions extends EmulatorOptions {
  /** Host to bind (default `127.0.0.1`). */
  readonly hostname?: string;
  /** Port of the main URL (default 0: any free port). */
  readonly port?: number;
  /** Serve the bidi `Run` over HTTP/2 (default `true`); `{ port }` picks its port. */
  readonly http2?: boolean | { readonly port?: number };
  /** Serve everything over TLS (ALPN h2 + http/1.1) on one https URL. */
  readonly tls?: TlsOptions;
  /** Which server runs the fetch handler in cleartext (default: the runtime's own). */
  readonly server?: "auto" | "node";
  /**
   * Serve through an emulated network: a relay in front of each listener delays every
   * chunk by `latencyMs` each way and counts connections and bytes (`network()`).
   */
  readonly network?: NetworkOptions;
}

/**
 * A running emulator.
 *
 * @example
 * ```ts
 * import { type CursorEmulator, startCursorEmulator } from "../mod.ts";
 *
 * const emulator: CursorEmulator = await startCursorEmulator();
 * try {
 *   console.assert(emulator.url.startsWith("http://127.0.0.1:"));
 *   console.assert(emulator.http2Url !== undefined);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface CursorEmulator extends CursorEmulatorCore {
  /** Base URL of every route (api2-style and agent routes, RunSSE included). */
  readonly url: string;
  /** URL of the HTTP/2 server (bidi `Run`); equals `url` with TLS; `undefined` when disabled. */
  readonly http2Url: string | undefined;
  /** Which server runs the fetch handler: `deno`, `bun`, `node` or `node-http2-tls`. */
  readonly server: string;
  /** Traffic so far, summed over the listeners, with the `network` option; else `undefined`. */
  network(): NetworkStats | undefined;
}

interface Listener {
  readonly url: string;
  readonly kind: string;
  close(): Promise<void>;
}

interface DenoServeLike {
  serve(
    options: { port: number; hostname: string; onListen?: (address: { port: number }) => void },
    handler: FetchHandler,
  ): { finished: Promise<void>; shutdown(): Promise<void>; addr: { port: number } };
}

interface BunServeLike {
  serve(options: { port: number; hostname: string; idleTimeout?: number; fetch: FetchHandler }): {
    port: number;
    stop(closeActiveConnections?: boolean): unknown;
  };
}

function runtime(): { deno?: DenoServeLike; bun?: BunServeLike } {
  const global = globalThis as { Deno?: DenoServeLike; Bun?: BunServeLike };
  return {
    ...(global.Deno?.serve ? { deno: global.Deno } : {}),
    ...(global.Bun?.serve ? { bun: global.Bun } : {}),
  };
}

function originOf(hostname: string, port: number): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return `http://${host}:${port}`;
}

async function listenFetch(
  handler: FetchHandler,
  hostname: string,
  port: number,
  maxBodyBytes: number,
  choice: "auto" | "node",
): Promise<Listener> {
  const { deno, bun } = runtime();
  if (choice === "auto" && deno !== undefined) {
    const server = deno.serve({ port, hostname, onListen: () => {} }, handler);
    return {
      url: originOf(hostname, server.addr.port),
      kind: "deno",
      close: () => server.shutdown(),
    };
  }
  if (choice === "auto" && bun !== undefined) {
    const server = bun.serve({ port, hostname, idleTimeout: 255, fetch: handler });
    return {
      url: originOf(hostname, server.port),
      kind: "bun",
      close: async () => void (await server.stop(true)),
    };
  }
  return await listenNode(handler, hostname, port, maxBodyBytes);
}

async function listenNode(
  handler: FetchHandler,
  hostname: string,
  port: number,
  maxBodyBytes: number,
): Promise<Listener> {
  let origin = "";
  const server = http.createServer((request, response) => {
    serveWithFetch(handler, request, response, { origin, maxBodyBytes }).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, () => resolve());
  });
  origin = originOf(hostname, (server.address() as AddressInfo).port);
  return {
    url: origin,
    kind: "node",
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Puts the emulated network in front of a listener, when asked: its URL becomes the relay's. */
async function throughNetwork<L extends Listener | Http2Listener>(
  listener: L,
  hostname: string,
  network: NetworkOptions | undefined,
  relays: NetworkRelay[],
): Promise<L> {
  if (network === undefined) return listener;
  const url = new URL(listener.url);
  const relay = await startNetworkRelay(
    { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port) },
    { hostname, ...network },
  );
  relays.push(relay);
  url.port = String(relay.port);
  return {
    ...listener,
    url: url.origin,
    close: async () => {
      await relay.close();
      await listener.close();
    },
  };
}

function sumStats(relays: readonly NetworkRelay[]): NetworkStats {
  const total = { connections: 0, closed: 0, closedInUse: 0, bytesUp: 0, bytesDown: 0 };
  for (const relay of relays) {
    const stats = relay.stats();
    total.connections += stats.connections;
    total.closed += stats.closed;
    total.closedInUse += stats.closedInUse;
    total.bytesUp += stats.bytesUp;
    total.bytesDown += stats.bytesDown;
  }
  return total;
}

/**
 * Starts an emulator on loopback.
 *
 * @param options Emulator and server options.
 * @returns The running emulator; call `close()` when done.
 *
 * @example Start, issue a token, list the models, close
 * ```ts
 * import { startCursorEmulator } from "../mod.ts";
 *
 * const emulator = await startCursorEmulator();
 * try {
 *   const { accessToken } = await emulator.auth.issueTokens();
 *   const response = await fetch(`${emulator.url}/aiserver.v1.AiService/AvailableModels`, {
 *     method: "POST",
 *     headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
 *     body: "{}",
 *   });
 *   console.assert(response.status === 200);
 *   await response.body?.cancel();
 *   console.assert(emulator.violations().length === 0);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export async function startCursorEmulator(
  options: StartEmulatorOptions = {},
): Promise<CursorEmulator> {
  const internals = await buildEmulator(options);
  const emulator = internals.emulator;
  const hostname = options.hostname ?? "127.0.0.1";
  const maxBodyBytes = (options.maxMessageBytes ?? 16 * 1024 * 1024) * 2 + 65_536;
  const listeners: (Listener | Http2Listener)[] = [];
  const relays: NetworkRelay[] = [];
  const network = options.network === undefined ? () => undefined : () => sumStats(relays);
  // With a network the relay takes the asked-for port; the listener behind it any free one.
  const portOf = (port: number | undefined) => options.network === undefined ? port ?? 0 : 0;
  const relayed = <L extends Listener | Http2Listener>(listener: L) => {
    listeners.push(listener);
    return throughNetwork(listener, hostname, options.network, relays).then((outer) => {
      listeners[listeners.indexOf(listener)] = outer;
      return outer;
    });
  };
  try {
    if (options.tls !== undefined) {
      const secure = await relayed(
        await listenHttp2(internals, {
          hostname,
          port: portOf(options.port),
          tls: options.tls,
          maxBodyBytes,
        }),
      );
      internals.setUrls({ url: secure.url, http2Url: secure.url });
      return finish(emulator, listeners, secure.url, secure.url, "node-http2-tls", network);
    }
    const main = await relayed(
      await listenFetch(
        emulator.fetch,
        hostname,
        portOf(options.port),
        maxBodyBytes,
        options.server ?? "auto",
      ),
    );
    let http2Url: string | undefined;
    if (options.http2 !== false) {
      const port = typeof options.http2 === "object" ? options.http2.port : undefined;
      const h2c = await relayed(
        await listenHttp2(internals, { hostname, port: portOf(port), maxBodyBytes }),
      );
      http2Url = h2c.url;
    }
    internals.setUrls({ url: main.url, ...(http2Url === undefined ? {} : { http2Url }) });
    return finish(emulator, listeners, main.url, http2Url, main.kind, network);
  } catch (error) {
    await Promise.all(listeners.map((listener) => listener.close()));
    await emulator.close();
    throw error;
  }
}

function finish(
  emulator: CursorEmulatorCore,
  listeners: readonly (Listener | Http2Listener)[],
  url: string,
  http2Url: string | undefined,
  server: string,
  network: () => NetworkStats | undefined,
): CursorEmulator {
  let closing: Promise<void> | undefined;
  return {
    ...emulator,
    url,
    http2Url,
    server,
    network,
    close() {
      closing ??= (async () => {
        await emulator.close();
        await Promise.all(listeners.map((listener) => listener.close()));
      })();
      return closing;
    },
  };
}
