/**
 * The HTTP/2 sessions of a transport: one per origin, reused while it lives, and known to
 * be usable only once the server's SETTINGS arrived. A Run waits for that before it opens
 * its stream, so a connection that cannot be made (refused, an HTTP/1.1-only server or
 * proxy, ALPN without `h2`, a GOAWAY before SETTINGS) fails before anything of the Run
 * was written.
 *
 * @module
 */
import http2 from "node:http2";
import { CursorError } from "../../../core/cursor-error.ts";
import type { ProxyRoute } from "../../../transport/proxy-rules.ts";
import { openTunnel, tlsOverTunnel } from "../proxy/proxy-tunnel.ts";

/** The sessions of one transport. */
export interface SessionPool {
  /**
   * The origin's session once the server answered the HTTP/2 handshake.
   *
   * @throws {CursorError} `network` (replay-safe: nothing of a Run was sent) when no HTTP/2
   *   connection could be made; `timeout` after `timeoutMs`; `canceled` on `signal`.
   */
  ready(origin: string, timeoutMs: number, signal?: AbortSignal): Promise<http2.ClientHttp2Session>;
  /** Closes every session. */
  close(): void;
}

interface PooledSession {
  /** The session; `undefined` while a proxy tunnel is still being opened for it. */
  session(): http2.ClientHttp2Session | undefined;
  /** Settles when the server's SETTINGS arrive or the connection fails first. */
  readonly handshake: Promise<void>;
}

/** The proxy (`HTTPS_PROXY` / `NO_PROXY`) an origin's sessions go through, if any. */
export type ProxyLookup = (origin: string) => ProxyRoute | undefined;

/**
 * Creates an empty pool.
 *
 * @param connectOptions Options for `http2.connect` (e.g. `ca` for a test certificate).
 * @returns The pool.
 */
export function createSessionPool(
  connectOptions: http2.SecureClientSessionOptions = {},
  proxy: ProxyLookup = () => undefined,
): SessionPool {
  const sessions = new Map<string, PooledSession>();
  const usable = (entry: PooledSession | undefined) => {
    const session = entry?.session();
    return entry !== undefined &&
      (session === undefined || (!session.closed && !session.destroyed));
  };
  const pooled = (origin: string): PooledSession => {
    const existing = sessions.get(origin);
    if (existing && usable(existing)) return existing;
    const forget = () => {
      if (sessions.get(origin) === created) sessions.delete(origin);
    };
    const route = proxy(origin);
    const created = route === undefined
      ? direct(origin, connectOptions, forget)
      : throughProxy(origin, route, connectOptions, forget);
    sessions.set(origin, created);
    return created;
  };
  return {
    async ready(origin, timeoutMs, signal) {
      if (signal?.aborted) throw new CursorError("canceled", "Request was canceled");
      const entry = pooled(origin);
      try {
        await withDeadline(entry.handshake, origin, timeoutMs, signal);
      } catch (error) {
        // A connection whose handshake failed or timed out is dropped at once: the client
        // reads nothing more from a server that does not speak HTTP/2 (Bun's client can
        // throw uncaught on such bytes, ADR 182). A Run's own cancel leaves it to others.
        if (!(error instanceof CursorError && error.code === "canceled")) {
          if (sessions.get(origin) === entry) sessions.delete(origin);
          entry.session()?.destroy();
        }
        throw error;
      }
      const session = entry.session();
      if (session === undefined) throw connectFailure(origin, new Error("no session"));
      return session;
    },
    close() {
      for (const entry of sessions.values()) entry.session()?.close();
      sessions.clear();
    },
  };
}

function direct(
  origin: string,
  connectOptions: http2.SecureClientSessionOptions,
  forget: () => void,
): PooledSession {
  let session: http2.ClientHttp2Session;
  try {
    session = http2.connect(origin, connectOptions);
  } catch (error) {
    // A malformed origin or option throws before any socket exists.
    throw connectFailure(origin, error);
  }
  const handshake = watchHandshake(origin, session, forget);
  return { session: () => session, handshake };
}

/** A session over a CONNECT tunnel: the tunnel first, then TLS with ALPN `h2` inside it. */
function throughProxy(
  origin: string,
  route: ProxyRoute,
  connectOptions: http2.SecureClientSessionOptions,
  forget: () => void,
): PooledSession {
  const url = new URL(origin);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let session: http2.ClientHttp2Session | undefined;
  const handshake = openTunnel(route, host, Number(url.port || 443), 15_000).then(
    (tunnel) => {
      try {
        session = http2.connect(origin, {
          ...connectOptions,
          createConnection: () =>
            tlsOverTunnel(tunnel, host, { ...connectOptions, ALPNProtocols: ["h2"] }),
        });
      } catch (error) {
        tunnel.destroy();
        throw connectFailure(origin, error);
      }
      return watchHandshake(origin, session, forget);
    },
    (error: unknown) => {
      forget();
      throw error;
    },
  );
  handshake.catch(() => {});
  return { session: () => session, handshake };
}

function watchHandshake(
  origin: string,
  session: http2.ClientHttp2Session,
  forget: () => void,
): Promise<void> {
  session.on("error", forget);
  session.on("close", forget);
  session.on("goaway", forget);
  session.unref();
  const handshake = new Promise<void>((resolve, reject) => {
    session.once("remoteSettings", () => resolve());
    session.once("error", (error) => reject(connectFailure(origin, error)));
    session.once("goaway", (code) => {
      reject(
        connectFailure(origin, new Error(`the server sent GOAWAY (HTTP/2 error code ${code})`)),
      );
    });
    session.once("close", () => {
      reject(connectFailure(origin, new Error("the connection closed during the handshake")));
    });
  });
  handshake.catch(() => {});
  return handshake;
}

function connectFailure(origin: string, error: unknown): CursorError {
  const detail = error instanceof Error ? error.message : String(error);
  return new CursorError(
    "network",
    `Cannot open an HTTP/2 connection to ${origin}: ${detail}`,
    { retryable: true, replaySafe: true, cause: error },
  );
}

async function withDeadline(
  handshake: Promise<void>,
  origin: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const limits = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new CursorError(
          "timeout",
          `No HTTP/2 connection to ${origin} within ${timeoutMs} ms`,
          { retryable: true, replaySafe: true },
        ),
      );
    }, timeoutMs);
    onAbort = () => reject(new CursorError("canceled", "Request was canceled"));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([handshake, limits]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
