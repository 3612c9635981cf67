import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "@ai-sdk/provider";
import { CURSOR_ERROR_CODES, CursorError } from "../../src/core/cursor-error.ts";
import { toProviderError } from "../../src/provider/api-call-error.ts";
import { parseEndStream } from "../../src/protocol/end-stream.ts";
import { decodeErrorDetail } from "../../src/protocol/error-detail.ts";
import { opencodeVerdict } from "../support/opencode-retry-rule.ts";

/** Messages our layers produce, each with the words OpenCode reacts to. */
const MESSAGES = [
  "Cursor ended the Run: resource_exhausted: You've hit your usage limit. Try again in 3 days",
  "AgentService/RunSSE failed with HTTP 429: rate limit exceeded (Too Many Requests)",
  "unavailable: Service Unavailable, the provider is overloaded",
  "internal: internal error on 14290 tokens",
  "HTTP/2 stream failed: socket hang up",
  "The model refused the request",
];
const STATUSES = [undefined, 400, 429, 503];

function verdictFor(error: CursorError): string {
  const converted = toProviderError(error, { url: "https://agent.cursor.sh/Run" });
  if (!APICallError.isInstance(converted)) return `abort:${converted.name}`;
  return opencodeVerdict(converted);
}

describe("OpenCode reads our errors as we classify them", () => {
  for (const code of CURSOR_ERROR_CODES) {
    it(`${code}: retried exactly when retryable, compacted when the context overflows`, () => {
      for (const message of MESSAGES) {
        for (const httpStatus of STATUSES) {
          for (const retryable of [true, false]) {
            const error = new CursorError(code, message, { retryable, httpStatus });
            const expected = code === "canceled"
              ? "abort:AbortError"
              : code === "context_overflow"
              ? "compact"
              : retryable
              ? "retry"
              : "final";
            assert.equal(verdictFor(error), expected, `${message} / ${httpStatus} / ${retryable}`);
          }
        }
      }
    });
  }

  it("keeps the gist of a quota refusal while not reading as retryable", () => {
    const end = parseEndStream(
      new TextEncoder().encode(JSON.stringify({
        error: {
          code: "resource_exhausted",
          message: "resource_exhausted",
          details: [{
            type: "aiserver.v1.ErrorDetails",
            debug: {
              error: "ERROR_RATE_LIMITED_CHANGEABLE",
              details: {
                title: "You've hit your usage limit",
                detail: "Try again in 3 days or raise your limit",
                isRetryable: false,
              },
              isExpected: true,
            },
          }],
        },
      })),
      decodeErrorDetail,
    );
    assert.ok(!end.ok);
    const converted = toProviderError(end.error, { url: "https://agent.cursor.sh/Run" });
    assert.ok(APICallError.isInstance(converted));
    assert.equal(opencodeVerdict(converted), "final");
    assert.match(converted.message, /usage limit/);
  });

  it("keeps a final message whose id happens to hold a status code, with the id shortened", () => {
    const error = new CursorError(
      "process",
      "Unable to load conversation state for 3f2a9c1e-4b7d-4a50-9e2c-1d5003b7a8f0",
      { retryable: false },
    );
    const converted = toProviderError(error, { url: "https://agent.cursor.sh/Run" });
    assert.ok(APICallError.isInstance(converted));
    assert.equal(opencodeVerdict(converted), "final");
    assert.equal(converted.message, "Unable to load conversation state for 3f2a9c1e…");
  });

  it("adds the advice as its own sentence, never after a doubled period", () => {
    const error = new CursorError(
      "unauthenticated",
      "Cursor answered unauthenticated: If you are logged in, try logging out and back in.",
      { retryable: false, httpStatus: 401 },
    );
    const converted = toProviderError(error, { url: "https://api2.cursor.sh/auth" });
    assert.ok(APICallError.isInstance(converted));
    assert.doesNotMatch(converted.message, /\.\./);
    assert.match(converted.message, /back in\. Sign in to Cursor again/);
  });

  it("turns ERROR_CONVERSATION_TOO_LONG into a 413 that OpenCode compacts", () => {
    const end = parseEndStream(
      new TextEncoder().encode(JSON.stringify({
        error: {
          code: "invalid_argument",
          message: "Conversation too long",
          details: [{
            type: "aiserver.v1.ErrorDetails",
            debug: { error: "ERROR_CONVERSATION_TOO_LONG", details: { title: "Too long" } },
          }],
        },
      })),
      decodeErrorDetail,
    );
    assert.ok(!end.ok);
    const converted = toProviderError(end.error, { url: "https://agent.cursor.sh/Run" });
    assert.ok(APICallError.isInstance(converted));
    assert.equal(converted.statusCode, 413);
    assert.match(converted.message, /exceeds the context window/);
    assert.equal(opencodeVerdict(converted), "compact");
  });
});
