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
import { CursorError } from "../../core/cursor-error.ts";

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
  readonly session: http2.ClientHttp2Session;
  /** Settles when the server's SETTINGS arrive or the connection fails first. */
  readonly handshake: Promise<void>;
}

/**
 * Creates an empty pool.
 *
 * @param connectOptions Options for `http2.connect` (e.g. `ca` for a test certificate).
 * @returns The pool.
 */
export function createSessionPool(
  connectOptions: http2.SecureClientSessionOptions = {},
): SessionPool {
  const sessions = new Map<string, PooledSession>();
  const pooled = (origin: string): PooledSession => {
    const existing = sessions.get(origin);
    if (existing && !existing.session.closed && !existing.session.destroyed) return existing;
    const created = connect(origin, connectOptions, () => {
      if (sessions.get(origin) === created) sessions.delete(origin);
    });
    sessions.set(origin, created);
    return created;
  };
  return {
    async ready(origin, timeoutMs, signal) {
      if (signal?.aborted) throw new CursorError("canceled", "Request was canceled");
      const entry = pooled(origin);
      await withDeadline(entry.handshake, origin, timeoutMs, signal);
      return entry.session;
    },
    close() {
      for (const entry of sessions.values()) entry.session.close();
      sessions.clear();
    },
  };
}

function connect(
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
  return { session, handshake };
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
