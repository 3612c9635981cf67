/**
 * Connect unary calls with a JSON body over fetch (`GetServerConfig`, `AvailableModels`).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { startDeadline } from "../core/deadline.ts";
import { failedReaching } from "../core/network-cause.ts";
import { errorFromResponse } from "./http-error.ts";

/** A unary call. */
export interface UnaryCall {
  /** Full URL of the RPC. */
  readonly url: string;
  /** Headers (auth and friends); content type is added here. */
  readonly headers: Record<string, string>;
  /** The fetch to use. */
  readonly fetch: typeof fetch;
  /** Deadline for the whole call; default 5 s. */
  readonly timeoutMs?: number;
  /** Caller's abort signal. */
  readonly signal?: AbortSignal;
}

/** Default unary deadline: 5 s. */
const DEFAULT_UNARY_TIMEOUT_MS = 5_000;

/**
 * Calls a unary RPC with a JSON body and returns the parsed JSON response.
 *
 * @param call URL, headers, fetch, deadline.
 * @param body The request as proto3 JSON.
 * @returns The parsed response.
 * @throws {CursorError} classified from the status, the Connect error or the failure.
 */
export async function callUnaryJson(call: UnaryCall, body: unknown): Promise<unknown> {
  const response = await send(call, "application/json", JSON.stringify(body));
  const text = new TextDecoder().decode(await readBody(response, call.url));
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new CursorError("protocol", `Cannot parse the JSON answer of ${rpcName(call.url)}`, {
      cause,
    });
  }
}

async function send(call: UnaryCall, contentType: string, body: BodyInit): Promise<Response> {
  const timeoutMs = call.timeoutMs ?? DEFAULT_UNARY_TIMEOUT_MS;
  const deadline = startDeadline(timeoutMs, () => timeoutError(call.url, timeoutMs), call.signal);
  const headers = withoutStreamingHeaders(call.headers);
  let response: Response;
  try {
    response = await deadline.race(call.fetch(call.url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": contentType,
        ...(contentType === "application/json" ? { accept: "application/json" } : {}),
      },
      body,
      signal: deadline.signal,
    }));
  } catch (cause) {
    throw failure(cause, call.url, timeoutMs);
  } finally {
    deadline.clear();
  }
  if (response.status !== 200) throw await errorFromResponse(response, rpcName(call.url));
  return response;
}

function timeoutError(url: string, timeoutMs: number): CursorError {
  return new CursorError(
    "timeout",
    `${rpcName(url)} did not answer within ${timeoutMs} ms (host ${hostOf(url)})`,
    {
      retryable: true,
      replaySafe: true,
    },
  );
}

async function readBody(response: Response, url: string): Promise<ArrayBuffer> {
  try {
    return await response.arrayBuffer();
  } catch (cause) {
    throw failure(cause, url, 0);
  }
}

function failure(cause: unknown, url: string, timeoutMs: number): CursorError {
  const error = CursorError.from(cause);
  if (
    error.code === "timeout" || (error.code === "canceled" && timeoutMs > 0 && isTimeout(cause))
  ) {
    return new CursorError(
      "timeout",
      `${rpcName(url)} did not answer within ${timeoutMs} ms (host ${hostOf(url)})`,
      {
        retryable: true,
        replaySafe: true,
        cause,
      },
    );
  }
  if (error.code === "network") {
    return new CursorError(
      "network",
      `${rpcName(url)} ${failedReaching(url, cause)}: ${error.message}`,
      {
        replaySafe: true,
        cause,
      },
    );
  }
  return error;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function isTimeout(cause: unknown): boolean {
  return typeof cause === "object" && cause !== null &&
    (cause as { name?: unknown }).name === "TimeoutError";
}

function withoutStreamingHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (
      lower === "content-type" || lower === "x-cursor-streaming" || lower.startsWith("connect-")
    ) continue;
    out[name] = value;
  }
  return out;
}

/** The RPC's short name (`AgentService/RunSSE`) from its URL, for messages. */
export function rpcName(url: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, "");
  const parts = path.split("/").filter(Boolean);
  const method = parts.pop() ?? path;
  const service = (parts.pop() ?? "").split(".").pop() ?? "";
  return service ? `${service}/${method}` : method;
}
