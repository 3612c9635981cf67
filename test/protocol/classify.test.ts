import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyFailure, type FailureFacts } from "../../src/protocol/classify.ts";
import type { CursorErrorCode } from "../../src/core/cursor-error.ts";

/** The classification table as data: facts → expected code, retryable, replay-safe. */
const TABLE: readonly [string, FailureFacts, CursorErrorCode, boolean, boolean][] = [
  ["HTTP 401", { httpStatus: 401 }, "unauthenticated", false, false],
  ["HTTP 403", { httpStatus: 403 }, "permission_denied", false, false],
  ["gRPC 16", { grpcStatus: 16 }, "unauthenticated", false, false],
  ["gRPC 7", { grpcStatus: 7 }, "permission_denied", false, false],
  [
    "not logged in",
    { connectCode: "unauthenticated", errorDetail: "ERROR_NOT_LOGGED_IN" },
    "unauthenticated",
    false,
    false,
  ],
  ["token expired", { errorDetail: "ERROR_AUTH_TOKEN_EXPIRED" }, "unauthenticated", false, false],
  [
    "message about access token",
    { message: "Invalid access token" },
    "unauthenticated",
    false,
    false,
  ],
  [
    "usage limit",
    { connectCode: "resource_exhausted", errorDetail: "ERROR_RATE_LIMITED_CHANGEABLE" },
    "usage_limit",
    false,
    false,
  ],
  ["pro usage limit", { errorDetail: "ERROR_PRO_USER_USAGE_LIMIT" }, "usage_limit", false, false],
  [
    "exhausted, not retryable",
    { connectCode: "resource_exhausted", detailRetryable: false },
    "usage_limit",
    false,
    false,
  ],
  [
    "generic rate limit",
    { errorDetail: "ERROR_GENERIC_RATE_LIMIT_EXCEEDED" },
    "rate_limited",
    true,
    true,
  ],
  ["bare resource_exhausted", { connectCode: "resource_exhausted" }, "rate_limited", true, true],
  ["HTTP 429", { httpStatus: 429 }, "rate_limited", true, true],
  ["HTTP 503", { httpStatus: 503 }, "unavailable", true, true],
  ["HTTP 500", { httpStatus: 500 }, "unavailable", true, true],
  ["Connect unavailable", { connectCode: "unavailable" }, "unavailable", true, true],
  ["Connect internal", { connectCode: "internal" }, "unavailable", true, true],
  ["gRPC 14", { grpcStatus: 14 }, "unavailable", true, true],
  [
    "RetryInfo on another code",
    { connectCode: "aborted", hasRetryInfo: true },
    "unavailable",
    true,
    true,
  ],
  [
    "blob not found",
    { connectCode: "internal", message: "Blob not found" },
    "blob_not_found",
    false,
    false,
  ],
  [
    "bad model detail",
    { connectCode: "not_found", errorDetail: "ERROR_BAD_MODEL_NAME" },
    "bad_model",
    false,
    true,
  ],
  [
    "not_found about a model",
    { connectCode: "not_found", message: "model xyz not found" },
    "bad_model",
    false,
    true,
  ],
  [
    "outdated client",
    { connectCode: "permission_denied", errorDetail: "ERROR_OUTDATED_CLIENT" },
    "outdated_client",
    false,
    true,
  ],
  [
    "conversation too long",
    { errorDetail: "ERROR_CONVERSATION_TOO_LONG" },
    "context_overflow",
    false,
    false,
  ],
  ["deadline", { connectCode: "deadline_exceeded" }, "timeout", true, true],
  ["canceled", { connectCode: "canceled" }, "canceled", false, false],
  ["invalid argument", { connectCode: "invalid_argument" }, "invalid_argument", false, false],
  ["other HTTP status", { httpStatus: 418 }, "server", false, true],
  ["other Connect code", { connectCode: "unimplemented" }, "server", false, false],
];

describe("failure classification", () => {
  for (const [name, facts, code, retryable, replaySafe] of TABLE) {
    it(name, () => {
      const got = classifyFailure(facts);
      assert.deepEqual(
        { code: got.code, retryable: got.retryable, replaySafe: got.replaySafe },
        { code, retryable, replaySafe },
        `rule ${got.rule}`,
      );
    });
  }
});
