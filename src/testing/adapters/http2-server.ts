/**
 * The emulator over `node:http2`: cleartext (h2c) or TLS with ALPN `h2` and `http/1.1`.
 * The bidi `Run` is served here (HTTP/1.1 to it answers 464, like the real load
 * balancer); every other path goes to the fetch handler. GOAWAY and RST_STREAM faults
 * act on the real HTTP/2 session and stream.
 *
 * @module
 */
import http2, {
  type Http2SecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from "node:http2";
import type { AddressInfo } from "node:net";
import type { EmulatorInternals } from "../emulator/emulator.ts";
import { RUN_PATH } from "../emulator/http/fetch-handler.ts";
import type { AbortKind, RunSink } from "../emulator/io/run-writer.ts";
import { drained, serveWithFetch, toHeaders, writeResponse } from "./node-fetch-bridge.ts";

/**
 * TLS material for an HTTPS emulator.
 *
 * @example
 * ```ts
 * import type { TlsOptions } from "../mod.ts";
 *
 * const tls: TlsOptions = { cert: "-----BEGIN CERTIFICATE-----…", key: "-----BEGIN PRIVATE KEY-----…" };
 * console.assert(typeof tls.cert === "string");
 * ```
 */
export interface TlsOptions {
  /** PEM certificate (chain). */
  readonly cert: string | Uint8Array;
  /** PEM private key. */
  readonly key: string | Uint8Array;
}

/** A listening HTTP/2 server. */
export interface Http2Listener {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the HTTP/2 server.
 *
 * @param emulator The emulator core.
 * @param options Where to listen; TLS material for https.
 * @returns The listener.
 */
export async function listenHttp2(
  emulator: EmulatorInternals,
  options: {
    readonly hostname: string;
    readonly port: number;
    readonly tls?: TlsOptions;
    readonly maxBodyBytes: number;
  },
): Promise<Http2Listener> {
  const scheme = options.tls === undefined ? "http" : "https";
  let origin = "";
  const onRequest = (request: Http2ServerRequest, response: Http2ServerResponse) => {
    handle(emulator, request, response, origin, options.maxBodyBytes).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  };
  const server: Http2Server | Http2SecureServer = options.tls === undefined
    ? http2.createServer({}, onRequest)
    : http2.createSecureServer({
      cert: toBuffer(options.tls.cert),
      key: toBuffer(options.tls.key),
      allowHTTP1: true,
      ALPNProtocols: ["h2", "http/1.1"],
    }, onRequest);
  server.setTimeout(0);
  // Nagle's algorithm would hold a response's second small write (the body after the
  // head, a frame after a frame) until the client's delayed ACK, ~40 ms.
  server.on("connection", (socket: { setNoDelay?(noDelay: boolean): unknown }) => {
    socket.setNoDelay?.(true);
  });
  server.on("secureConnection", (socket: { setNoDelay?(noDelay: boolean): unknown }) => {
    socket.setNoDelay?.(true);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
    session.on("error", () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  origin = `${scheme}://${host}:${address.port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

function toBuffer(value: string | Uint8Array): Buffer {
  return typeof value === "string" ? Buffer.from(value) : Buffer.from(value);
}

async function handle(
  emulator: EmulatorInternals,
  request: Http2ServerRequest,
  response: Http2ServerResponse,
  origin: string,
  maxBodyBytes: number,
): Promise<void> {
  const path = new URL(request.url ?? "/", origin).pathname;
  if (path !== RUN_PATH) {
    return await serveWithFetch(emulator.emulator.fetch, request, response, {
      origin,
      maxBodyBytes,
    });
  }
  if (request.httpVersion !== "2.0") {
    response.writeHead(464, { "content-type": "text/plain" });
    response.end(new TextEncoder().encode("Bidi streaming requires HTTP/2"));
    return;
  }
  await handleRun(emulator, request, response);
}

async function handleRun(
  emulator: EmulatorInternals,
  request: Http2ServerRequest,
  response: Http2ServerResponse,
): Promise<void> {
  const sink = http2Sink(request, response);
  const opened = await emulator.openBidiRun(toHeaders(request.headers), sink);
  if (opened.kind === "response") {
    await writeResponse(opened.response, response, new AbortController().signal);
    return;
  }
  if (opened.kind === "empty") {
    response.writeHead(200, { "content-type": "application/connect+proto" });
    response.end();
    return;
  }
  const feeder = opened.feeder;
  response.writeHead(200, { "content-type": "application/connect+proto" });
  request.on("data", (chunk: Buffer) => feeder.push(new Uint8Array(chunk)));
  request.on("end", () => feeder.end());
  response.on("close", () => feeder.close("HTTP/2 stream closed"));
  request.on("error", () => feeder.close("HTTP/2 stream error"));
}

function http2Sink(request: Http2ServerRequest, response: Http2ServerResponse): RunSink {
  const stream = request.stream;
  const closed = new Promise<void>((resolve) => response.once("close", () => resolve()));
  // The last write, settled once the socket took it. Writes do not wait for it: frames
  // written back to back leave together (several to a TLS record), as a server's burst does
  // and as the HTTP/1.1 side's do; only backpressure waits. A fault waits for it, so the
  // frames before a fault reach the client before it.
  let queued: Promise<void> = Promise.resolve();
  const afterQueued = (act: () => void) => void Promise.race([queued, closed]).then(act);
  return {
    async write(bytes) {
      if (response.destroyed || stream.closed) throw new Error("HTTP/2 stream is closed");
      let ready = true;
      queued = new Promise<void>((resolve) => {
        ready = response.write(bytes, () => resolve());
      });
      if (!ready) await drained(response);
    },
    end() {
      if (!response.destroyed) response.end();
    },
    abort(kind) {
      afterQueued(() => abortStream(stream, kind));
    },
  };
}

function abortStream(stream: Http2ServerRequest["stream"], kind: AbortKind): void {
  switch (kind) {
    case "rst-stream":
      stream.close(http2.constants.NGHTTP2_CANCEL);
      return;
    case "goaway": {
      const session = stream.session;
      session?.goaway(http2.constants.NGHTTP2_INTERNAL_ERROR, 0);
      setTimeout(() => session?.destroy(), 20);
      return;
    }
    case "goaway-graceful":
      // A server draining for a deploy: no new streams, and this one gets nothing more.
      stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR);
      return;
    default:
      stream.session?.destroy();
  }
}
