/**
 * OpenCode 1.18.33's own rules, re-implemented from its binary (ADR 066): how a provider's
 * APICallError becomes a session error (`context_overflow` or `api_error`), and whether
 * `SessionRetry.retryable` retries an `api_error`.
 *
 * @module
 */
import type { APICallError } from "@ai-sdk/provider";

const RETRY_TEXT = [
  /429|500|502|503|504|524/i,
  /rate increased too quickly|rate limit|rate-limit|rate_limit|too many requests/i,
  /overloaded|service unavailable|service_unavailable|service-unavailable|internal error|internal_error|internal server error|server error|server_error|server-error|provider returned error|provider_returned_error|provider-returned-error/i,
  /terminated|fetch failed|failed to fetch|network[-_\s]error|upstream connect|connection error|connection refused|connection lost|socket connection was closed|socket hang up|reset before headers|getaddrinfo|enotfound|eai_again|econnrefused|econnreset|etimedout/i,
  /^timeout$|\b(?:request|response|connection|network|stream|read) (?:timeout|timed out|time out)\b/i,
  /try your request again|retry your request|resource exhausted|resource_exhausted/i,
  /\btry again (?:later|in\b)|\b(?:currently|temporarily) at capacity\b/i,
];
const OVERFLOW_TEXT = [
  /prompt is too long/i,
  /exceeds the context window/i,
  /context[_ ]length[_ ]exceeded/i,
  /request entity too large/i,
  /too many tokens/i,
  /token limit exceeded/i,
];
const NOT_OVERFLOW_TEXT = [
  /^(throttling error|service unavailable):/i,
  /rate limit/i,
  /too many requests/i,
];

const retryText = (text: string | undefined) =>
  typeof text === "string" && RETRY_TEXT.some((pattern) => pattern.test(text));

/** OpenCode's verdict on a provider error: compact, retry, or show it and stop. */
export function opencodeVerdict(error: APICallError): "compact" | "retry" | "final" {
  const overflowText = !NOT_OVERFLOW_TEXT.some((pattern) => pattern.test(error.message)) &&
    OVERFLOW_TEXT.some((pattern) => pattern.test(error.message));
  if (overflowText || error.statusCode === 413) return "compact";
  const status = error.statusCode;
  if (
    !error.isRetryable && !(status !== undefined && status >= 500) && !retryText(error.message) &&
    !retryText(error.responseBody)
  ) return "final";
  return "retry";
}
