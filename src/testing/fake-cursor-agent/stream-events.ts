/**
 * Builders for the stream-json events the fake prints, field for field as in real
 * captures: `system/init`, the `user` echo, thinking deltas, the three assistant
 * shapes of `--stream-partial-output` (delta with `timestamp_ms`, flush with
 * `timestamp_ms` and `model_call_id`, final cumulative with neither), tool calls
 * (`completed` repeats `args`) and `result` with camelCase usage.
 *
 * @module
 */
import type { JsonObject } from "../../cli/json.ts";
import type { ToolSpec } from "./tool-specs.ts";

/** What every event of one run shares. */
export interface EventContext {
  readonly sessionId: string;
  /** Milliseconds since the epoch, for `timestamp_ms`. */
  readonly now: () => number;
}

/** `system/init`. */
export function initEvent(
  context: EventContext,
  fields: { cwd: string; model: string },
): JsonObject {
  return {
    type: "system",
    subtype: "init",
    apiKeySource: "login",
    cwd: fields.cwd,
    session_id: context.sessionId,
    model: fields.model,
    permissionMode: "default",
  };
}

/** The `user` echo of the prompt. */
export function userEvent(context: EventContext, prompt: string): JsonObject {
  return {
    type: "user",
    message: { role: "user", content: [{ type: "text", text: prompt }] },
    session_id: context.sessionId,
  };
}

/** A thinking delta, or the `completed` marker when `text` is undefined. */
export function thinkingEvent(context: EventContext, text?: string): JsonObject {
  return text === undefined
    ? {
      type: "thinking",
      subtype: "completed",
      session_id: context.sessionId,
      timestamp_ms: context.now(),
    }
    : {
      type: "thinking",
      subtype: "delta",
      text,
      session_id: context.sessionId,
      timestamp_ms: context.now(),
    };
}

/** An assistant event: `delta` and `flush` carry `timestamp_ms`; `flush` and `segment` may carry `model_call_id`. */
export function assistantEvent(
  context: EventContext,
  text: string,
  shape: { readonly kind: "delta" | "flush" | "final" | "segment"; readonly modelCallId?: string },
): JsonObject {
  const event: JsonObject = {
    type: "assistant",
    message: { role: "assistant", content: [{ type: "text", text }] },
    session_id: context.sessionId,
  };
  if (shape.modelCallId !== undefined && (shape.kind === "flush" || shape.kind === "segment")) {
    event["model_call_id"] = shape.modelCallId;
  }
  if (shape.kind === "delta" || shape.kind === "flush") event["timestamp_ms"] = context.now();
  return event;
}

/** `tool_call/started` or `tool_call/completed`. */
export function toolEvent(
  context: EventContext,
  spec: ToolSpec,
  completed: boolean,
  modelCallId: string,
): JsonObject {
  const body: JsonObject = completed
    ? { args: spec.args, result: spec.result }
    : { args: spec.args };
  return {
    type: "tool_call",
    subtype: completed ? "completed" : "started",
    call_id: spec.callId,
    tool_call: { [spec.key]: body },
    model_call_id: modelCallId,
    session_id: context.sessionId,
    timestamp_ms: context.now(),
  };
}

/** Token counts of a run. */
export interface FakeUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

/** The terminal `result` event. */
export function resultEvent(
  context: EventContext,
  fields: {
    readonly text: string;
    readonly isError: boolean;
    readonly usage?: FakeUsage;
    readonly durationMs: number;
  },
): JsonObject {
  const event: JsonObject = {
    type: "result",
    subtype: fields.isError ? "error" : "success",
    duration_ms: fields.durationMs,
    duration_api_ms: fields.durationMs,
    is_error: fields.isError,
    result: fields.text,
    session_id: context.sessionId,
    request_id: `req-${context.sessionId.slice(0, 8)}`,
  };
  if (fields.usage !== undefined) event["usage"] = { ...fields.usage };
  return event;
}

/** Splits text into small chunks, as the CLI streams it. */
export function chunksOf(text: string, size = 12): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) {
    chunks.push(text.slice(index, index + size));
  }
  return chunks;
}
