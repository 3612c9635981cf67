/**
 * `doGenerate` is a fold of `doStream` for both backends: every part kind survives the
 * fold, and the error boundary gives the AI SDK what it reads (abort errors, retry
 * headers).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isAbortError } from "@ai-sdk/provider-utils";
import { APICallError, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { CursorError } from "../../../src/core/cursor-error.ts";
import { foldStreamResult } from "../../../src/provider/model-call/generate-fold.ts";
import { toProviderError } from "../../../src/provider/api-call-error.ts";
import { buildCallArgs } from "../../../src/provider/model-call/call-args.ts";

const usage = {
  inputTokens: { total: 10, noCache: 4, cacheRead: 6, cacheWrite: 0 },
  outputTokens: { total: 3, text: 2, reasoning: 1 },
};

function streamOf(parts: readonly LanguageModelV3StreamPart[]) {
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

describe("the generate fold", () => {
  it("keeps every part kind in stream order with response metadata, usage and provider metadata", async () => {
    const timestamp = new Date(1_700_000_000_000);
    const result = await foldStreamResult({
      stream: streamOf([
        { type: "stream-start", warnings: [{ type: "unsupported", feature: "seed" }] },
        { type: "response-metadata", id: "conv-1", modelId: "gpt-5", timestamp },
        { type: "reasoning-start", id: "r", providerMetadata: { cursor: { signature: "s" } } },
        { type: "reasoning-delta", id: "r", delta: "think" },
        { type: "reasoning-end", id: "r" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hel" },
        { type: "text-delta", id: "t", delta: "lo" },
        { type: "text-end", id: "t" },
        { type: "tool-input-start", id: "c1", toolName: "bash" },
        { type: "tool-input-delta", id: "c1", delta: '{"command":"ls"}' },
        { type: "tool-input-end", id: "c1" },
        { type: "tool-call", toolCallId: "c1", toolName: "bash", input: '{"command":"ls"}' },
        {
          type: "tool-call",
          toolCallId: "c2",
          toolName: "cursor_semSearch",
          input: "{}",
          providerExecuted: true,
        },
        { type: "tool-result", toolCallId: "c2", toolName: "cursor_semSearch", result: "hits" },
        { type: "source", sourceType: "url", id: "s1", url: "https://cursor.com/docs" },
        { type: "file", mediaType: "text/plain", data: "aGk=" },
        { type: "raw", rawValue: "ignored" },
        {
          type: "finish",
          finishReason: { unified: "tool-calls", raw: "exec" },
          usage,
          providerMetadata: { cursor: { steps: 1 } },
        },
      ]),
      request: { body: { model: "gpt-5" } },
    });
    assert.deepEqual(result.content.map((part) => part.type), [
      "reasoning",
      "text",
      "tool-call",
      "tool-call",
      "tool-result",
      "source",
      "file",
    ]);
    assert.deepEqual(result.content[0], {
      type: "reasoning",
      text: "think",
      providerMetadata: { cursor: { signature: "s" } },
    });
    assert.deepEqual(result.content[1], { type: "text", text: "Hello" });
    assert.deepEqual(result.response, { id: "conv-1", modelId: "gpt-5", timestamp });
    assert.deepEqual(result.usage, usage);
    assert.deepEqual(result.finishReason, { unified: "tool-calls", raw: "exec" });
    assert.deepEqual(result.providerMetadata, { cursor: { steps: 1 } });
    assert.deepEqual(result.warnings, [{ type: "unsupported", feature: "seed" }]);
    assert.deepEqual(result.request, { body: { model: "gpt-5" } });
  });

  it("throws the error part's error and refuses a stream that ends without a finish", async () => {
    const failure = new CursorError("unavailable", "Cursor is unavailable");
    await assert.rejects(
      foldStreamResult({ stream: streamOf([{ type: "error", error: failure }]) }),
      (error: unknown) => error === failure,
    );
    await assert.rejects(
      foldStreamResult({ stream: streamOf([{ type: "stream-start", warnings: [] }]) }),
      (error: unknown) => error instanceof CursorError && error.code === "interrupted",
    );
  });
});

describe("the error boundary", () => {
  const context = { url: "https://api2.cursor.sh/agent.v1.AgentService/RunSSE" };

  it("puts the server's retry delay where the AI SDK's retry loop reads it", () => {
    const error = toProviderError(
      new CursorError("rate_limited", "Too many requests", { retryAfterMs: 2500 }),
      context,
    );
    assert.ok(APICallError.isInstance(error));
    assert.deepEqual(error.responseHeaders, { "retry-after-ms": "2500", "retry-after": "3" });
    assert.equal((error.data as { retryAfterMs?: number }).retryAfterMs, 2500);
  });

  it("turns a canceled call into an AbortError that keeps the CursorError as its cause", () => {
    const canceled = new CursorError("canceled", "Run closed by the client");
    const error = toProviderError(canceled, context);
    assert.ok(isAbortError(error));
    assert.equal(error.cause, canceled);
    const fromSignal = toProviderError(new DOMException("aborted", "AbortError"), context);
    assert.ok(isAbortError(fromSignal));
  });

  it("treats any failure after the caller aborted as an abort", () => {
    const late = new CursorError("timeout", "GetServerConfig did not answer within 5000 ms");
    assert.ok(APICallError.isInstance(toProviderError(late, context)));
    const error = toProviderError(late, context, { aborted: true });
    assert.ok(isAbortError(error));
    assert.ok(error.cause instanceof CursorError && error.cause.cause === late);
  });

  it("passes converted errors through unchanged", () => {
    const once = toProviderError(new CursorError("unavailable", "Down"), context);
    assert.equal(toProviderError(once, context), once);
  });
});

describe("call arguments", () => {
  it("give both backends the same warnings, worded with the backend's name", () => {
    const options = {
      prompt: [{
        role: "user" as const,
        content: [{ type: "file" as const, mediaType: "image/png", data: "aGk=" }],
      }],
      temperature: 0.2,
      maxOutputTokens: 100,
      toolChoice: { type: "required" as const },
      responseFormat: { type: "json" as const },
    };
    const direct = buildCallArgs("gpt-5", options, { label: "Cursor's agent", files: "images" });
    const cli = buildCallArgs("auto", options, { label: "cursor-agent", files: "none" });
    const features = (call: typeof direct) =>
      call.warnings.map((warning) => "feature" in warning ? warning.feature : "");
    assert.deepEqual(features(direct), [
      "temperature",
      "maxOutputTokens",
      "responseFormat",
      "toolChoice",
    ]);
    assert.deepEqual(features(cli), [...features(direct), "file parts"]);
  });

  it("offer no tools for toolChoice none", () => {
    const call = buildCallArgs("auto", {
      prompt: [],
      toolChoice: { type: "none" },
      tools: [{ type: "function", name: "bash", inputSchema: { type: "object" } }],
    }, { label: "cursor-agent", files: "none" });
    assert.deepEqual(call.tools, []);
    assert.deepEqual(call.warnings, []);
  });
});
