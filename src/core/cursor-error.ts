/**
 * The one error type of the library: every failure, whatever layer it comes from,
 * is a {@link CursorError} with a code from a closed set and the axes a caller needs
 * to decide what to do next (retry? replay? wait how long?).
 *
 * @module
 */
import { networkCause } from "./network-cause.ts";

/** Every code a {@link CursorError} can carry. The set is closed: add here, never ad hoc. */
export const CURSOR_ERROR_CODES = [
  "unauthenticated",
  "permission_denied",
  "usage_limit",
  "rate_limited",
  "unavailable",
  "blob_not_found",
  "bad_model",
  "outdated_client",
  "invalid_argument",
  "context_overflow",
  "wrong_region",
  "network",
  "timeout",
  "interrupted",
  "protocol",
  "bad_output",
  "canceled",
  "config",
  "process",
  "server",
  "internal",
] as const;

/** A code from {@link CURSOR_ERROR_CODES}. */
export type CursorErrorCode = typeof CURSOR_ERROR_CODES[number];

/** Cursor's own error detail (`aiserver.v1.ErrorDetails`), decoded to plain values. */
export interface CursorErrorDetail {
  /** The enum name with its `ERROR_` prefix, e.g. `ERROR_BAD_MODEL_NAME`. */
  readonly error: string;
  /** A short title, e.g. "You've hit your usage limit". */
  readonly title?: string;
  /** The longer explanation. */
  readonly detail?: string;
  /** Cursor's own view of whether a retry may succeed. */
  readonly isRetryable?: boolean;
  /** The failure is an expected condition (a quota), not a fault. */
  readonly isExpected?: boolean;
}

/** Everything a {@link CursorError} can be built with besides its code and message. */
export interface CursorErrorOptions {
  /** A retry may succeed (transient failure). Defaults from the code. */
  readonly retryable?: boolean | undefined;
  /**
   * Re-sending the same request cannot duplicate visible output or side effects.
   * Defaults to `false`: replay must be proven safe, never assumed.
   */
  readonly replaySafe?: boolean | undefined;
  /** The server asked to wait this long before retrying. */
  readonly retryAfterMs?: number | undefined;
  /** The Connect code the failure arrived with, if any. */
  readonly connectCode?: string | undefined;
  /** The HTTP status the failure arrived with, if any. */
  readonly httpStatus?: number | undefined;
  /** Cursor's error detail, if the server sent one. */
  readonly detail?: CursorErrorDetail | undefined;
  /** The underlying failure. */
  readonly cause?: unknown | undefined;
}

const TRANSIENT_CODES: ReadonlySet<CursorErrorCode> = new Set([
  "rate_limited",
  "unavailable",
  "network",
  "timeout",
  "interrupted",
]);

/**
 * A failure with a closed {@link CursorErrorCode} and retry axes. Messages never
 * contain tokens or keys: {@link redactSecrets} runs over every message.
 *
 * @example Classifying an unknown failure
 * ```ts
 * import { CursorError } from "./cursor-error.ts";
 *
 * const error = CursorError.from(new TypeError("fetch failed"));
 * console.assert(error.code === "network");
 * console.assert(error.retryable);
 * ```
 */
export class CursorError extends Error {
  /** Which kind of failure this is. */
  readonly code: CursorErrorCode;
  /** A retry may succeed. */
  readonly retryable: boolean;
  /** Re-sending the request cannot duplicate visible output or side effects. */
  readonly replaySafe: boolean;
  /** How long the server asked to wait before a retry, if it said. */
  readonly retryAfterMs: number | undefined;
  /** The Connect code the failure arrived with, if any. */
  readonly connectCode: string | undefined;
  /** The HTTP status the failure arrived with, if any. */
  readonly httpStatus: number | undefined;
  /** Cursor's decoded error detail, if any. */
  readonly detail: CursorErrorDetail | undefined;

  /**
   * Creates an error; the message is redacted of anything that looks like a secret.
   *
   * @param code Which kind of failure this is.
   * @param message What failed, for a person to act on.
   * @param options Retry axes, wire facts and the cause.
   */
  constructor(code: CursorErrorCode, message: string, options: CursorErrorOptions = {}) {
    super(redactSecrets(message), options.cause === undefined ? {} : { cause: options.cause });
    this.name = "CursorError";
    this.code = code;
    this.retryable = options.retryable ?? TRANSIENT_CODES.has(code);
    this.replaySafe = options.replaySafe ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.connectCode = options.connectCode;
    this.httpStatus = options.httpStatus;
    this.detail = options.detail;
  }

  /**
   * Turns anything thrown into a {@link CursorError}: a CursorError passes through,
   * an abort becomes `canceled`, a timeout `timeout`, a failed fetch or socket error
   * `network`, anything else `internal` with the original as `cause`.
   *
   * @param reason Whatever was thrown or rejected.
   * @returns A CursorError describing it.
   */
  static from(reason: unknown): CursorError {
    if (reason instanceof CursorError) return reason;
    const name = errorName(reason);
    const message = errorMessage(reason);
    if (name === "AbortError") {
      return new CursorError("canceled", "Request was canceled", { cause: reason });
    }
    if (name === "TimeoutError") {
      return new CursorError("timeout", `Request timed out: ${message}`, {
        cause: reason,
        replaySafe: true,
      });
    }
    const networkCode = systemErrorCode(reason);
    if (networkCode !== undefined && NETWORK_ERROR_CODES.has(networkCode)) {
      return new CursorError("network", `Network failure ${networkCode}: ${message}`, {
        cause: reason,
      });
    }
    if (
      reason instanceof TypeError &&
      (/fetch|network|socket|connect/i.test(message) || networkCause(reason) !== undefined)
    ) {
      return new CursorError("network", `Network failure: ${message}`, { cause: reason });
    }
    return new CursorError("internal", `Unexpected failure: ${message}`, { cause: reason });
  }
}

/** Socket and HTTP/2 error codes that mean the network, not the request, failed. */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNABORTED",
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETDOWN",
  "ENETRESET",
  "ENETUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "ETIMEDOUT",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_STREAM_ERROR",
]);

/** Reads `code` from a Node-style system error (or its cause), if it has one. */
export function systemErrorCode(reason: unknown): string | undefined {
  for (let current = reason, depth = 0; depth < 4; depth++) {
    if (typeof current !== "object" || current === null) return undefined;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z0-9_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorName(reason: unknown): string {
  if (typeof reason === "object" && reason !== null) {
    const name = (reason as { name?: unknown }).name;
    if (typeof name === "string") return name;
  }
  return "";
}

function errorMessage(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === "string") return reason;
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}

const SECRET_PATTERNS: readonly RegExp[] = [
  /\bcrsr_[A-Za-z0-9_-]+/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
  /\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g,
  /((?:access|refresh)_?token["'=:\s]+)[A-Za-z0-9._~+/=-]{8,}/gi,
];

/**
 * Replaces API keys, bearer tokens and JWTs in a text with `[redacted]`.
 *
 * @param text Any text that may end up in a log or an error message.
 * @returns The text with secrets replaced.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./cursor-error.ts";
 *
 * console.assert(redactSecrets("key crsr_abc123 failed") === "key [redacted] failed");
 * ```
 */
export function redactSecrets(text: string): string {
  let result = text;
  for (const pattern of SECRET_PATTERNS) {
    result = result.replace(
      pattern,
      (match, prefix: unknown) =>
        typeof prefix === "string" && match.startsWith(prefix)
          ? `${prefix}[redacted]`
          : "[redacted]",
    );
  }
  return result;
}
