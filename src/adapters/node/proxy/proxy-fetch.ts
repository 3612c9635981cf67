/**
 * A `fetch` for the Node entry that honours `HTTPS_PROXY` / `NO_PROXY`: requests whose
 * origin the proxy rules cover go over `node:https` through a CONNECT tunnel (connections
 * kept alive across requests, as fetch's own pool does); every other request goes to the
 * runtime's fetch. Node's fetch ignores the proxy variables (Bun's and Deno's read them
 * themselves, so this is used on Node only).
 *
 * @module
 */
import https from "node:https";
import type tls from "node:tls";
import type { Duplex } from "node:stream";
import { CursorError } from "../../../core/cursor-error.ts";
import { proxyFor, type ProxyRoute } from "../../../transport/proxy-rules.ts";
import { openTunnel, tlsOverTunnel } from "./proxy-tunnel.ts";

/** Limit for the proxy's answer to CONNECT. */
const TUNNEL_TIMEOUT_MS = 15_000;

/**
 * A fetch that sends the requests the proxy variables cover through the proxy.
 *
 * @param env The environment (`HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy`).
 * @param direct The fetch for every other request.
 * @param tlsOptions Extra TLS options for the destination (e.g. `ca` for a test certificate).
 * @returns The fetch.
 *
 * @example
 * ```ts
 * import { createProxyFetch } from "./proxy-fetch.ts";
 *
 * const proxied = createProxyFetch({ HTTPS_PROXY: "http://127.0.0.1:3128" }, fetch);
 * console.assert(typeof proxied === "function");
 * ```
 */
export function createProxyFetch(
  env: Readonly<Record<string, string | undefined>>,
  direct: typeof fetch,
  tlsOptions: tls.ConnectionOptions = {},
): typeof fetch {
  const agents = new Map<string, https.Agent>();
  const agentFor = (route: ProxyRoute) => {
    const key = `${route.host}:${route.port}:${route.authorization ?? ""}`;
    let agent = agents.get(key);
    if (agent === undefined) {
      agent = tunnellingAgent(route, tlsOptions);
      agents.set(key, agent);
    }
    return agent;
  };
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request?.url ?? String(input));
    const route = proxyFor(url, env);
    if (route === undefined) return await direct(input, init);
    const body = init?.body ?? (request ? new Uint8Array(await request.arrayBuffer()) : null);
    return await send(url, {
      method: init?.method ?? request?.method ?? "GET",
      headers: new Headers(init?.headers ?? request?.headers),
      body: bodyBytes(body),
      signal: init?.signal ?? request?.signal ?? undefined,
    }, agentFor(route));
  };
}

function tunnellingAgent(route: ProxyRoute, tlsOptions: tls.ConnectionOptions): https.Agent {
  const agent = new https.Agent({ keepAlive: true });
  // `createConnection` may answer through its callback: the tunnel opens first.
  (agent as unknown as {
    createConnection(
      options: { host?: string; port?: number | string; servername?: string },
      done: (error: Error | null, socket?: Duplex) => void,
    ): undefined;
  }).createConnection = (options, done) => {
    const host = options.host ?? "localhost";
    openTunnel(route, host, Number(options.port ?? 443), TUNNEL_TIMEOUT_MS).then(
      (tunnel) =>
        done(null, tlsOverTunnel(tunnel, host, { ...tlsOptions, ALPNProtocols: ["http/1.1"] })),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
    return undefined;
  };
  return agent;
}

function bodyBytes(body: unknown): Uint8Array | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new CursorError("internal", "The proxied fetch sends only string and byte bodies");
}

interface Outgoing {
  readonly method: string;
  readonly headers: Headers;
  readonly body: Uint8Array | undefined;
  readonly signal: AbortSignal | undefined;
}

function send(url: URL, outgoing: Outgoing, agent: https.Agent): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (outgoing.signal?.aborted) {
      reject(outgoing.signal.reason);
      return;
    }
    const headers: Record<string, string> = {};
    outgoing.headers.forEach((value, name) => (headers[name] = value));
    if (outgoing.body !== undefined) headers["content-length"] = String(outgoing.body.length);
    const request = https.request(url, { method: outgoing.method, headers, agent }, (answer) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          let done = false;
          const finish = (error?: unknown) => {
            if (done) return;
            done = true;
            if (error === undefined) controller.close();
            else controller.error(error);
          };
          answer.on("data", (chunk: Uint8Array) => {
            if (done) return;
            controller.enqueue(new Uint8Array(chunk));
            if ((controller.desiredSize ?? 1) <= 0) answer.pause();
          });
          answer.once("end", () => finish());
          answer.once("error", (error) => finish(error));
          answer.once("aborted", () => finish(new Error("The response was cut off")));
          answer.once("close", () => {
            if (!answer.complete) finish(new Error("The response was cut off"));
          });
        },
        pull: () => void answer.resume(),
        cancel: () => void answer.destroy(),
      });
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        if (Array.isArray(value)) { for (const item of value) responseHeaders.append(name, item); }
        else if (value !== undefined) responseHeaders.set(name, value);
      }
      const status = answer.statusCode ?? 502;
      const nullBody = status === 204 || status === 304 || outgoing.method === "HEAD";
      resolve(new Response(nullBody ? null : body, { status, headers: responseHeaders }));
    });
    const onAbort = () => request.destroy(outgoing.signal?.reason ?? new Error("Aborted"));
    outgoing.signal?.addEventListener("abort", onAbort, { once: true });
    request.once("close", () => outgoing.signal?.removeEventListener("abort", onAbort));
    request.once("error", reject);
    request.end(outgoing.body);
  });
}
