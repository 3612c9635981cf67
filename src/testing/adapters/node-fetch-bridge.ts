/**
 * Serves a web-standard fetch handler from `node:http` (and the HTTP/2 compatibility
 * API): request bodies are buffered (bounded), response bodies streamed with
 * backpressure, a client disconnect cancels the response stream, and an errored response
 * stream (a "drop" fault) destroys the connection.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";

/** A web-standard handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

type NodeRequest = IncomingMessage | Http2ServerRequest;

/** What both `ServerResponse` and `Http2ServerResponse` offer. */
export interface NodeResponse {
  writeHead(status: number, headers?: Record<string, string>): unknown;
  write(chunk: Uint8Array, callback?: () => void): boolean;
  end(): unknown;
  destroy(): unknown;
  on(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/** Converts Node headers to web Headers (dropping HTTP/2 pseudo-headers). */
export function toHeaders(raw: NodeRequest["headers"]): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith(":") || value === undefined) continue;
    if (Array.isArray(value)) { for (const item of value) headers.append(name, item); }
    else headers.set(name, String(value));
  }
  return headers;
}

async function readAll(request: NodeRequest, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request) {
    const bytes = typeof chunk === "string"
      ? new TextEncoder().encode(chunk)
      : new Uint8Array(chunk);
    total += bytes.length;
    if (total > limit) return undefined;
    chunks.push(bytes);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * Handles one Node request with a fetch handler.
 *
 * @param handler The fetch handler.
 * @param request The Node request.
 * @param response The Node response.
 * @param options The origin used to build absolute URLs, and the largest body accepted.
 */
export async function serveWithFetch(
  handler: FetchHandler,
  request: NodeRequest,
  response: NodeResponse,
  options: { readonly origin: string; readonly maxBodyBytes: number },
): Promise<void> {
  const abort = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) abort.abort();
  });
  const method = request.method ?? "GET";
  const body = method === "GET" || method === "HEAD"
    ? undefined
    : await readAll(request, options.maxBodyBytes);
  if (body === undefined && method !== "GET" && method !== "HEAD") {
    const json = JSON.stringify({
      code: "resource_exhausted",
      message: `Request body exceeds ${options.maxBodyBytes} bytes`,
    });
    response.writeHead(429, { "content-type": "application/json" });
    response.write(new TextEncoder().encode(json));
    response.end();
    return;
  }
  const url = new URL(request.url ?? "/", options.origin);
  const init: RequestInit = { method, headers: toHeaders(request.headers), signal: abort.signal };
  if (body !== undefined) init.body = new Uint8Array(body);
  const answer = await handler(new Request(url, init));
  await writeResponse(answer, response, abort.signal);
}

/**
 * Writes a web Response to a Node response, streaming its body.
 *
 * @param answer The response.
 * @param response The Node response.
 * @param closed Aborts when the client went away.
 */
export async function writeResponse(
  answer: Response,
  response: NodeResponse,
  closed: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => (headers[name] = value));
  if (answer.body === null) {
    response.writeHead(answer.status, headers);
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  closed.addEventListener("abort", () => reader.cancel().catch(() => {}));
  let flushed: Promise<void> = Promise.resolve();
  // The head goes out with the first bytes of the body, in one write: a head alone is a
  // segment of its own, and over HTTP/1.1 a second small one waits for its ACK.
  let first: ReadableStreamReadResult<Uint8Array> | undefined;
  try {
    first = await reader.read();
  } catch {
    first = undefined;
  }
  response.writeHead(answer.status, headers);
  if (first === undefined) {
    response.destroy();
    return;
  }
  try {
    for (;;) {
      const { done, value } = first ?? await reader.read();
      first = undefined;
      if (done) break;
      let ready = true;
      flushed = new Promise<void>((resolve) => {
        ready = response.write(value, () => resolve());
      });
      if (!ready) await drained(response);
    }
    await flushed;
    response.end();
  } catch {
    await flushed;
    response.destroy();
  }
}

/** Waits for `drain` (or `close`) on a Node response. */
export function drained(response: NodeResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}
