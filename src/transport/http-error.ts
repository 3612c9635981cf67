/**
 * Turns a non-200 HTTP response from Cursor into a {@link CursorError}: a Connect JSON
 * error body when there is one, else the status alone.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { classifyFailure } from "../protocol/classify.ts";
import { connectErrorFromJson } from "../protocol/end-stream.ts";
import { decodeErrorDetail } from "../protocol/error-detail.ts";

/** The load balancer's answer to a `Run` over HTTP/1.1 (TRANSPORT-AUTH.md §2). */
const INCOMPATIBLE_PROTOCOL = 464;

/** Most bytes of an error body that are read. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads an error response (bounded) and classifies it.
 *
 * @param response The HTTP response whose status is not 200.
 * @param what What was being called, for the message (e.g. `RunSSE`).
 * @returns The classified error; never throws.
 */
export async function errorFromResponse(response: Response, what: string): Promise<CursorError> {
  const text = await readBounded(response);
  const retryAfterHeader = response.headers.get("retry-after");
  if (text !== undefined) {
    try {
      const json: unknown = JSON.parse(text);
      if (typeof json === "object" && json !== null && ("code" in json || "error" in json)) {
        const value = "error" in json ? (json as { error: unknown }).error : json;
        const error = connectErrorFromJson(value, decodeErrorDetail, response.status);
        return new CursorError(
          error.code,
          `${what} failed with HTTP ${response.status}: ${error.message}`,
          {
            retryable: error.retryable,
            replaySafe: error.replaySafe,
            httpStatus: response.status,
            connectCode: error.connectCode,
            detail: error.detail,
            retryAfterMs: retryAfterMs(retryAfterHeader) ?? error.retryAfterMs,
            cause: error,
          },
        );
      }
    } catch {
      // not JSON: classify by status below
    }
  }
  if (response.status === INCOMPATIBLE_PROTOCOL) {
    return new CursorError(
      "config",
      `${what} failed with HTTP 464: the agent host refused the Run as HTTP/1.1 (incompatible protocol): set agentBaseURL to a host that serves the HTTP/2 Run, or use transport "sse"`,
      { retryable: false, replaySafe: true, httpStatus: response.status },
    );
  }
  const classification = classifyFailure({ httpStatus: response.status, message: text ?? "" });
  const retryAfter = retryAfterMs(retryAfterHeader);
  return new CursorError(
    classification.code,
    `${what} failed with HTTP ${response.status}${
      response.statusText ? ` ${response.statusText}` : ""
    }`,
    {
      retryable: classification.retryable,
      replaySafe: classification.replaySafe,
      httpStatus: response.status,
      retryAfterMs: retryAfter,
    },
  );
}

async function readBounded(response: Response): Promise<string | undefined> {
  if (!response.body) return undefined;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < MAX_ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } catch {
    return undefined;
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes.subarray(0, MAX_ERROR_BODY_BYTES));
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 30_000) : undefined;
}
