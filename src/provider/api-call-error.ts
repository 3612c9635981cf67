/**
 * The provider boundary for errors: a {@link CursorError} becomes the AI SDK's
 * `APICallError`, with `isRetryable` from the classification and a message a person
 * can act on (how to sign in again, that a quota ran out).
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
}

const ADVICE: Partial<Record<CursorError["code"], string>> = {
  unauthenticated:
    "Sign in to Cursor again: run `opencode auth login` and choose Cursor, or set a valid CURSOR_API_KEY",
  permission_denied:
    "Your Cursor account is not allowed to do this; check your plan or team settings",
  usage_limit:
    "Your Cursor usage limit is reached; it resets on your plan's schedule or can be raised in Cursor's dashboard",
  outdated_client:
    "Cursor rejected this client version; set CURSOR_CLIENT_VERSION to a current `cli-…` version",
  bad_model: "Pick a model from the current Cursor model list (refresh it if it is stale)",
  context_overflow:
    "The conversation is too long for this model; compact it or pick a longer-context model",
};

/**
 * Converts any failure into the AI SDK's `APICallError`.
 *
 * @param reason Whatever was thrown; it is classified through {@link CursorError.from}.
 * @param context The call it belongs to.
 * @returns An `APICallError` whose `cause` is the {@link CursorError}.
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
  const advice = ADVICE[error.code];
  const message = redactSecrets(advice ? `${error.message}. ${advice}` : error.message);
  return new APICallError({
    message,
    url: context.url,
    requestBodyValues: context.requestBodyValues ?? {},
    ...(error.httpStatus === undefined ? {} : { statusCode: error.httpStatus }),
    isRetryable: error.retryable,
    cause: error,
    data: {
      code: error.code,
      replaySafe: error.replaySafe,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      ...(error.connectCode === undefined ? {} : { connectCode: error.connectCode }),
      ...(error.detail === undefined ? {} : { detail: error.detail.error }),
    },
  });
}
