/**
 * The provider boundary for errors, shared by both backends: a {@link CursorError}
 * becomes the AI SDK's `APICallError`, with `isRetryable` from the classification, the
 * server's retry delay as `retry-after-ms` / `retry-after` response headers (where the
 * AI SDK's retry loop reads it), and a message a person can act on (how to sign in
 * again, that a quota ran out). A canceled call becomes an `AbortError`, so the AI
 * SDK's `isAbortError()` treats it as the caller's own abort.
 *
 * @module
 */
import { APICallError } from "@ai-sdk/provider";
import { CursorError, redactSecrets } from "../core/cursor-error.ts";

/** What the call was, for the error's `url` and `requestBodyValues`. */
export interface ApiCallContext {
  /** The URL of the RPC or a `cursor-agent:` pseudo URL for the CLI backend. */
  readonly url: string;
  /** A summary of the request (never prompts with secrets, never tokens). */
  readonly requestBodyValues?: unknown;
  /** How to sign in where the provider runs (for `unauthenticated`). */
  readonly signInAdvice?: string | undefined;
}

/** The sign-in advice when the entry gives none: the settings every runtime has. */
export const DEFAULT_SIGN_IN_ADVICE =
  "Sign in to Cursor again: pass apiKey (an API key from cursor.com/settings) or accessToken to createCursor()";

const ADVICE: Partial<Record<CursorError["code"], string>> = {
  permission_denied:
    "Your Cursor account is not allowed to do this; check your plan or team settings",
  usage_limit:
    "Your Cursor usage limit is reached; it resets on your plan's schedule or can be raised in Cursor's dashboard",
  outdated_client:
    "Cursor rejected this client version; set CURSOR_CLIENT_VERSION to a current `cli-…` version",
  bad_model: "Pick a model from the current Cursor model list (refresh it if it is stale)",
  context_overflow:
    "The conversation exceeds the context window of this model; compact it or pick a longer-context model",
};

/**
 * Texts OpenCode 1.18.33 retries an `APICallError` on, whatever its `isRetryable` says
 * (its `SessionRetry.retryable`, ADR 066), plus the words its fallback for other errors
 * reads (`exhausted`, `unavailable`, `too_many_requests`). A failure that must not be
 * retried may not contain any of them.
 */
const HOST_RETRY_TEXT: readonly RegExp[] = [
  /429|500|502|503|504|524/i,
  /rate increased too quickly|rate limit|rate-limit|rate_limit|too many requests/i,
  /overloaded|service unavailable|service_unavailable|service-unavailable|internal error|internal_error|internal server error|server error|server_error|server-error|provider returned error|provider_returned_error|provider-returned-error/i,
  /terminated|fetch failed|failed to fetch|network[-_\s]error|upstream connect|connection error|connection refused|connection lost|socket connection was closed|socket hang up|reset before headers|getaddrinfo|enotfound|eai_again|econnrefused|econnreset|etimedout/i,
  /^timeout$|\b(?:request|response|connection|network|stream|read) (?:timeout|timed out|time out)\b/i,
  /try your request again|retry your request|resource exhausted|resource_exhausted/i,
  /\btry again (?:later|in\b)|\b(?:currently|temporarily) at capacity\b/i,
  /exhausted|unavailable|too_many_requests/i,
];

/** Plain rewordings of retry words, tried before giving up on the server's text. */
const REWORDINGS: readonly (readonly [RegExp, string])[] = [
  // An id whose digits happen to hold "500" or "429" would read as a status code: shortened.
  [/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "$1…"],
  [/resource[ _]exhausted/gi, "quota reached"],
  [/exhausted/gi, "used up"],
  [/\b(?:service[ _-])?unavailable/gi, "not available"],
  [/too[ _]many[ _]requests/gi, "request cap reached"],
  [/rate[ _-]?limit(?:ed)?/gi, "usage cap"],
  [/\btry again\b/gi, "continue"],
  [/\bHTTP (?:429|5\d\d)\b/g, "an HTTP refusal"],
  [/internal[ _]error|(?:internal )?server[ _-]error/gi, "server fault"],
  [/overloaded/gi, "busy"],
];

/** True when OpenCode would retry a failure whose message is `text` (ADR 066). */
function looksRetryableToHost(text: string): boolean {
  return HOST_RETRY_TEXT.some((pattern) => pattern.test(text));
}

/** The message, then the advice as its own sentence (no doubled period). */
function withAdvice(message: string, advice: string | undefined): string {
  if (!advice) return message;
  return `${message.replace(/[.\s]+$/, "")}. ${advice}`;
}

/**
 * The message of a failure that must not be retried, reworded so OpenCode does not
 * retry it on its own: retry words are replaced; when the server's text still reads
 * as retryable, only the code and the advice are shown (the full text stays in `cause`).
 */
function finalMessage(error: CursorError, advice: string | undefined): string {
  const full = withAdvice(error.message, advice);
  if (!looksRetryableToHost(full)) return full;
  let reworded = full;
  for (const [pattern, replacement] of REWORDINGS) {
    reworded = reworded.replace(pattern, replacement);
  }
  if (!looksRetryableToHost(reworded)) return reworded;
  return `Cursor refused the request and retrying will not help${advice ? `. ${advice}` : ""}`;
}

/**
 * The HTTP status shown to the host: 413 for a context overflow (OpenCode compacts on
 * it), none for a final failure that arrived with a 5xx (OpenCode retries every 5xx).
 */
function hostStatus(error: CursorError): number | undefined {
  if (error.code === "context_overflow") return 413;
  if (!error.retryable && error.httpStatus !== undefined && error.httpStatus >= 500) {
    return undefined;
  }
  return error.httpStatus;
}

/**
 * Converts any failure into what the AI SDK expects from a provider: an `AbortError`
 * for a canceled call, an `APICallError` for everything else. Errors already converted
 * pass through unchanged, so the boundary can be crossed twice safely. Any other abort
 * (a `DOMException` from a fetch) is classified like every failure: `canceled`.
 *
 * @param reason Whatever was thrown; it is classified through {@link CursorError.from}.
 * @param context The call it belongs to.
 * @param options `aborted`: the caller's abort signal has fired, so any failure is an abort.
 * @returns An `APICallError` or an `AbortError` whose `cause` is the {@link CursorError}.
 *
 * @example A canceled call is an abort to the AI SDK
 * ```ts
 * import { CursorError } from "../core/cursor-error.ts";
 * import { toProviderError } from "./api-call-error.ts";
 *
 * const error = toProviderError(new CursorError("canceled", "Request was canceled"), {
 *   url: "https://api2.cursor.sh/agent.v1.AgentService/RunSSE",
 * });
 * console.assert(error.name === "AbortError" && error.cause instanceof CursorError);
 * ```
 */
export function toProviderError(
  reason: unknown,
  context: ApiCallContext,
  options: { readonly aborted?: boolean } = {},
): Error {
  if (isConverted(reason)) return reason;
  const error = CursorError.from(reason);
  if (error.code === "canceled") return abortError(error);
  if (options.aborted) {
    // Whatever failed after the caller aborted (a fetch rejecting with the signal's
    // `TimeoutError` reason, a closed Run) failed because of the abort.
    return abortError(new CursorError("canceled", "Request was canceled", { cause: reason }));
  }
  return toApiCallError(error, context);
}

/**
 * An `Error` named `AbortError` (what `isAbortError()` of the AI SDK accepts) that keeps
 * the classified failure as its cause.
 *
 * @param cause The canceled call's {@link CursorError}.
 * @returns The abort error.
 */
export function abortError(cause: CursorError): Error {
  const error = new Error(cause.message, { cause });
  error.name = "AbortError";
  return error;
}

/** Already through the boundary: an `APICallError`, or an abort error made by {@link abortError}. */
function isConverted(reason: unknown): reason is Error {
  return APICallError.isInstance(reason) ||
    (reason instanceof Error && reason.name === "AbortError" &&
      reason.cause instanceof CursorError && reason.cause.code === "canceled");
}

/**
 * Converts any failure into the AI SDK's `APICallError`.
 *
 * @param reason Whatever was thrown; it is classified through {@link CursorError.from}.
 * @param context The call it belongs to.
 * @returns An `APICallError` whose `cause` is the {@link CursorError}; a server-given
 *   retry delay is also in `responseHeaders` (`retry-after-ms`, `retry-after`).
 *
 * @example
 * ```ts
 * import { CursorError } from "../core/cursor-error.ts";
 * import { toApiCallError } from "./api-call-error.ts";
 *
 * const error = toApiCallError(new CursorError("rate_limited", "Too many requests"), {
 *   url: "https://api2.cursor.sh/agent.v1.AgentService/RunSSE",
 * });
 * console.assert(error.isRetryable);
 * ```
 */
export function toApiCallError(reason: unknown, context: ApiCallContext): APICallError {
  const error = CursorError.from(reason);
  const advice = error.code === "unauthenticated"
    ? context.signInAdvice ?? DEFAULT_SIGN_IN_ADVICE
    : ADVICE[error.code];
  const message = redactSecrets(
    error.retryable ? withAdvice(error.message, advice) : finalMessage(error, advice),
  );
  const statusCode = hostStatus(error);
  return new APICallError({
    message,
    url: context.url,
    requestBodyValues: context.requestBodyValues ?? {},
    ...(statusCode === undefined ? {} : { statusCode }),
    isRetryable: error.retryable,
    ...(error.retryAfterMs === undefined
      ? {}
      : { responseHeaders: retryHeaders(error.retryAfterMs) }),
    cause: error,
    data: {
      code: error.code,
      replaySafe: error.replaySafe,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      ...(error.connectCode === undefined ? {} : { connectCode: error.connectCode }),
      ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
      ...(error.detail === undefined ? {} : { detail: error.detail.error }),
    },
  });
}

/** The retry delay as the headers the AI SDK's retry loop reads. */
function retryHeaders(retryAfterMs: number): Record<string, string> {
  const ms = Math.max(0, Math.round(retryAfterMs));
  return { "retry-after-ms": String(ms), "retry-after": String(Math.ceil(ms / 1000)) };
}
