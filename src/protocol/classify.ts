/**
 * How a failure reported by Cursor is classified: which {@link CursorErrorCode} it gets,
 * whether a retry may help, and whether re-sending is safe. The rules are data
 * ({@link CLASSIFICATION_RULES}), evaluated in order; the first match wins.
 *
 * @module
 */
import type { CursorErrorCode } from "../core/cursor-error.ts";

/** What is known about a failure when it is classified. Every field is optional. */
export interface FailureFacts {
  /** The HTTP status of the response, when the failure came with one (not 200). */
  readonly httpStatus?: number;
  /** The Connect code, e.g. `resource_exhausted`. */
  readonly connectCode?: string;
  /** A numeric gRPC status from trailers, e.g. 16. */
  readonly grpcStatus?: number;
  /** Cursor's `ErrorDetails.error` enum name, e.g. `ERROR_BAD_MODEL_NAME`. */
  readonly errorDetail?: string;
  /** Cursor's `CustomErrorDetails.is_retryable`, when sent. */
  readonly detailRetryable?: boolean;
  /** The error message text. */
  readonly message?: string;
  /** The error carried a `google.rpc.RetryInfo` or a retry-after hint. */
  readonly hasRetryInfo?: boolean;
}

/** The outcome of classification. */
export interface Classification {
  readonly code: CursorErrorCode;
  readonly retryable: boolean;
  /** Re-sending cannot duplicate anything, as far as the failure itself tells. */
  readonly replaySafe: boolean;
  /** The rule that matched, for diagnostics. */
  readonly rule: string;
}

/** One row of the classification table. */
export interface ClassificationRule {
  readonly rule: string;
  readonly matches: (facts: FailureFacts) => boolean;
  readonly code: CursorErrorCode;
  readonly retryable: boolean;
  readonly replaySafe: boolean;
}

const GRPC_NAMES: Readonly<Record<number, string>> = {
  1: "canceled",
  2: "unknown",
  3: "invalid_argument",
  4: "deadline_exceeded",
  5: "not_found",
  6: "already_exists",
  7: "permission_denied",
  8: "resource_exhausted",
  9: "failed_precondition",
  10: "aborted",
  11: "out_of_range",
  12: "unimplemented",
  13: "internal",
  14: "unavailable",
  15: "data_loss",
  16: "unauthenticated",
};

const SIGN_IN_DETAILS = new Set([
  "ERROR_NOT_LOGGED_IN",
  "ERROR_AUTH_TOKEN_EXPIRED",
  "ERROR_AUTH_TOKEN_NOT_FOUND",
  "ERROR_BAD_API_KEY",
  "ERROR_BAD_USER_API_KEY",
  "ERROR_INVALID_AUTH_ID",
  "ERROR_AGENT_REQUIRES_LOGIN",
  "ERROR_UNAUTHORIZED",
  "ERROR_USER_NOT_FOUND",
]);
const USAGE_LIMIT_DETAILS = new Set([
  "ERROR_FREE_USER_USAGE_LIMIT",
  "ERROR_PRO_USER_USAGE_LIMIT",
  "ERROR_USAGE_PRICING_REQUIRED",
  "ERROR_USAGE_PRICING_REQUIRED_CHANGEABLE",
  "ERROR_RATE_LIMITED_CHANGEABLE",
  "ERROR_PRO_USER_ONLY",
]);
const RATE_LIMIT_DETAILS = new Set([
  "ERROR_FREE_USER_RATE_LIMIT_EXCEEDED",
  "ERROR_PRO_USER_RATE_LIMIT_EXCEEDED",
  "ERROR_GENERIC_RATE_LIMIT_EXCEEDED",
  "ERROR_API_KEY_RATE_LIMIT",
  "ERROR_RATE_LIMITED",
]);

function codeOf(facts: FailureFacts): string | undefined {
  if (facts.connectCode) return facts.connectCode;
  return facts.grpcStatus === undefined ? undefined : GRPC_NAMES[facts.grpcStatus];
}

function detailIn(set: ReadonlySet<string>): (facts: FailureFacts) => boolean {
  return (facts) => facts.errorDetail !== undefined && set.has(facts.errorDetail);
}

function codeIs(...codes: string[]): (facts: FailureFacts) => boolean {
  return (facts) => {
    const code = codeOf(facts);
    return code !== undefined && codes.includes(code);
  };
}

function messageMatches(pattern: RegExp): (facts: FailureFacts) => boolean {
  return (facts) => facts.message !== undefined && pattern.test(facts.message);
}

/**
 * The classification table, in evaluation order. Rows that mention a detail enum
 * come before rows that look only at codes and statuses, so Cursor's own detail wins.
 */
export const CLASSIFICATION_RULES: readonly ClassificationRule[] = [
  {
    rule: "blob-not-found",
    matches: messageMatches(/blob not found/i),
    code: "blob_not_found",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "detail-bad-model",
    matches: (facts) => facts.errorDetail === "ERROR_BAD_MODEL_NAME",
    code: "bad_model",
    retryable: false,
    replaySafe: true,
  },
  {
    rule: "detail-outdated-client",
    matches: (facts) => facts.errorDetail === "ERROR_OUTDATED_CLIENT",
    code: "outdated_client",
    retryable: false,
    replaySafe: true,
  },
  {
    rule: "detail-sign-in",
    matches: detailIn(SIGN_IN_DETAILS),
    code: "unauthenticated",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "detail-usage-limit",
    matches: detailIn(USAGE_LIMIT_DETAILS),
    code: "usage_limit",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "detail-rate-limit",
    matches: detailIn(RATE_LIMIT_DETAILS),
    code: "rate_limited",
    retryable: true,
    replaySafe: true,
  },
  {
    rule: "detail-context-too-long",
    matches: detailIn(new Set(["ERROR_CONVERSATION_TOO_LONG", "ERROR_MAX_TOKENS"])),
    code: "context_overflow",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "unauthenticated",
    matches: (facts) =>
      facts.httpStatus === 401 || codeIs("unauthenticated")(facts) ||
      messageMatches(/access token|api key|authentication/i)(facts),
    code: "unauthenticated",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "permission-denied",
    matches: (facts) => facts.httpStatus === 403 || codeIs("permission_denied")(facts),
    code: "permission_denied",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "exhausted-not-retryable",
    matches: (facts) => codeIs("resource_exhausted")(facts) && facts.detailRetryable === false,
    code: "usage_limit",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "rate-limited",
    matches: (facts) => facts.httpStatus === 429 || codeIs("resource_exhausted")(facts),
    code: "rate_limited",
    retryable: true,
    replaySafe: true,
  },
  {
    rule: "bad-model",
    matches: (facts) => codeIs("not_found")(facts) && /model/i.test(facts.message ?? ""),
    code: "bad_model",
    retryable: false,
    replaySafe: true,
  },
  {
    rule: "canceled",
    matches: codeIs("canceled"),
    code: "canceled",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "deadline",
    matches: codeIs("deadline_exceeded"),
    code: "timeout",
    retryable: true,
    replaySafe: true,
  },
  {
    rule: "server-transient",
    matches: (facts) =>
      codeIs("internal", "unavailable")(facts) || facts.hasRetryInfo === true ||
      (facts.httpStatus !== undefined && facts.httpStatus >= 500),
    code: "unavailable",
    retryable: true,
    replaySafe: true,
  },
  {
    rule: "invalid-argument",
    matches: codeIs("invalid_argument", "failed_precondition", "out_of_range"),
    code: "invalid_argument",
    retryable: false,
    replaySafe: false,
  },
  {
    rule: "other-http-status",
    matches: (facts) => facts.httpStatus !== undefined && codeOf(facts) === undefined,
    code: "server",
    retryable: false,
    replaySafe: true,
  },
  {
    rule: "other",
    matches: () => true,
    code: "server",
    retryable: false,
    replaySafe: false,
  },
];

/**
 * Classifies a failure reported by Cursor.
 *
 * @param facts What the response said: status, code, detail, message.
 * @returns The code and retry axes of the first matching rule.
 *
 * @example
 * ```ts
 * import { classifyFailure } from "./classify.ts";
 *
 * const quota = classifyFailure({
 *   connectCode: "resource_exhausted",
 *   errorDetail: "ERROR_RATE_LIMITED_CHANGEABLE",
 * });
 * console.assert(quota.code === "usage_limit" && !quota.retryable);
 * console.assert(classifyFailure({ httpStatus: 503 }).retryable);
 * ```
 */
export function classifyFailure(facts: FailureFacts): Classification {
  for (const row of CLASSIFICATION_RULES) {
    if (row.matches(facts)) {
      return {
        code: row.code,
        retryable: row.retryable,
        replaySafe: row.replaySafe,
        rule: row.rule,
      };
    }
  }
  return { code: "server", retryable: false, replaySafe: false, rule: "none" };
}
