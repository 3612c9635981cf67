/**
 * The events of `cursor-agent --output-format stream-json`, typed, and the parser
 * that narrows one stdout line into one of them. Unknown event types become an
 * `unknown` event and lines that are not JSON objects are reported as malformed;
 * neither ever throws.
 *
 * @module
 */
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseJson,
  readBoolean,
  readFirstNumber,
  readNumber,
  readObject,
  readString,
} from "./json.ts";

/** Token counts from the `result` event (camelCase or snake_case on the wire). */
export interface CliUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
  /** The usage object as sent. */
  readonly raw: JsonObject;
}

interface EventBase {
  /** The chat id the CLI put on the event, if any. */
  readonly sessionId?: string;
}

/** `system/init`: the first event of a run. */
export interface InitEvent extends EventBase {
  readonly kind: "init";
  /** The model's display name (not the `--model` id). */
  readonly model?: string;
  readonly cwd?: string;
}

/** `user`: the CLI's echo of the prompt it received. */
export interface UserEvent extends EventBase {
  readonly kind: "user";
  readonly text: string;
}

/** `thinking/delta` or `thinking/completed`. */
export interface ThinkingEvent extends EventBase {
  readonly kind: "thinking";
  readonly completed: boolean;
  readonly text: string;
  readonly timestampMs?: number;
}

/** `assistant`: a delta, a segment flush or a cumulative snapshot (see {@link isDeltaEvent}). */
export interface AssistantEvent extends EventBase {
  readonly kind: "assistant";
  readonly text: string;
  /** Thinking carried inside the message content (older shapes). */
  readonly thinking: string;
  readonly timestampMs?: number;
  readonly modelCallId?: string;
}

/** `tool_call/started` or `tool_call/completed`. */
export interface ToolCallEvent extends EventBase {
  readonly kind: "tool-call";
  readonly completed: boolean;
  /** The call id, cleaned of whitespace; `undefined` when the CLI sent none usable. */
  readonly callId: string | undefined;
  /** The Cursor tool name: `shellToolCall` becomes `shell`, `updateTodosToolCall` `updateTodos`. */
  readonly toolName: string;
  readonly args: JsonObject;
  /** The outcome key of a completed call (`success`, `failure`, `rejected`, ...). */
  readonly outcome?: string;
  /** The outcome's body. */
  readonly result?: JsonValue;
  readonly modelCallId?: string;
}

/** `result`: the last event of a run. */
export interface ResultEvent extends EventBase {
  readonly kind: "result";
  readonly isError: boolean;
  readonly subtype: string;
  /** The concatenated answer, or the error text when `isError`. */
  readonly text: string;
  readonly usage?: CliUsage;
  readonly durationMs?: number;
  readonly requestId?: string;
}

/** A known event that carries nothing for the host (`interaction_query`, `retry`, `connection`, other `system` subtypes). */
export interface IgnoredEvent extends EventBase {
  readonly kind: "ignored";
  readonly type: string;
  readonly subtype?: string;
}

/** An event type this parser does not know. */
export interface UnknownEvent extends EventBase {
  readonly kind: "unknown";
  readonly type: string;
}

/** Every event the parser can produce. */
export type CliEvent =
  | InitEvent
  | UserEvent
  | ThinkingEvent
  | AssistantEvent
  | ToolCallEvent
  | ResultEvent
  | IgnoredEvent
  | UnknownEvent;

/** One parsed stdout line. */
export type ParsedLine =
  | { readonly kind: "event"; readonly event: CliEvent }
  | { readonly kind: "blank" }
  | { readonly kind: "malformed"; readonly reason: string; readonly preview: string };

const IGNORED_TYPES: ReadonlySet<string> = new Set(["interaction_query", "retry", "connection"]);

/**
 * Parses one line of stream-json output.
 *
 * @param line One stdout line without its line ending.
 * @returns The event, a blank marker, or why the line was not an event.
 *
 * @example
 * ```ts
 * import { parseStreamJsonLine } from "./stream-event.ts";
 *
 * const parsed = parseStreamJsonLine('{"type":"system","subtype":"init","session_id":"c-1","model":"Auto"}');
 * console.assert(parsed.kind === "event" && parsed.event.kind === "init" && parsed.event.sessionId === "c-1");
 * console.assert(parsed.kind === "event" && parsed.event.kind === "init" && parsed.event.model === "Auto");
 * console.assert(parseStreamJsonLine("T: banner").kind === "malformed");
 * ```
 */
export function parseStreamJsonLine(line: string): ParsedLine {
  const trimmed = line.trim();
  if (trimmed === "") return { kind: "blank" };
  const preview = trimmed.slice(0, 120);
  if (!trimmed.startsWith("{")) return { kind: "malformed", reason: "not a JSON object", preview };
  const parsed = parseJson(trimmed);
  if (!parsed.ok) return { kind: "malformed", reason: `invalid JSON (${parsed.error})`, preview };
  if (!isJsonObject(parsed.value)) {
    return { kind: "malformed", reason: "not a JSON object", preview };
  }
  const type = readString(parsed.value, "type");
  if (type === undefined) return { kind: "malformed", reason: "no string `type` field", preview };
  return { kind: "event", event: toEvent(type, parsed.value) };
}

/**
 * Whether an assistant or thinking event is a live delta (it carries `timestamp_ms`
 * and no `model_call_id`); everything else is a snapshot of text already streamed.
 *
 * @param event An assistant or thinking event.
 * @returns True for deltas.
 */
export function isDeltaEvent(event: AssistantEvent | ThinkingEvent): boolean {
  return event.timestampMs !== undefined && !("modelCallId" in event && event.modelCallId);
}

function toEvent(type: string, object: JsonObject): CliEvent {
  const base = sessionOf(object);
  const subtype = readString(object, "subtype");
  switch (type) {
    case "system":
      if (subtype === "init") {
        return {
          kind: "init",
          ...base,
          ...optional("model", readString(object, "model")),
          ...optional("cwd", readString(object, "cwd")),
        };
      }
      return { kind: "ignored", type, ...optional("subtype", subtype), ...base };
    case "user":
      return { kind: "user", text: contentText(object).text, ...base };
    case "thinking":
      return {
        kind: "thinking",
        completed: subtype === "completed",
        text: readString(object, "text") ?? "",
        ...optional("timestampMs", readNumber(object, "timestamp_ms")),
        ...base,
      };
    case "assistant":
      return toAssistant(object, base);
    case "tool_call":
      return subtype === "started" || subtype === "completed"
        ? toToolCall(object, subtype === "completed", base)
        : { kind: "ignored", type, ...optional("subtype", subtype), ...base };
    case "result":
      return toResult(object, base);
    default:
      return IGNORED_TYPES.has(type)
        ? { kind: "ignored", type, ...optional("subtype", subtype), ...base }
        : { kind: "unknown", type, ...base };
  }
}

function toAssistant(object: JsonObject, base: EventBase): AssistantEvent {
  const content = contentText(object);
  const modelCallId = readString(object, "model_call_id");
  return {
    kind: "assistant",
    text: content.text,
    thinking: content.thinking,
    ...optional("timestampMs", readNumber(object, "timestamp_ms")),
    ...optional("modelCallId", modelCallId === "" ? undefined : modelCallId),
    ...base,
  };
}

function toToolCall(object: JsonObject, completed: boolean, base: EventBase): ToolCallEvent {
  const payload = readObject(object, "tool_call") ?? {};
  const { toolName, body } = toolBody(payload);
  const args = readObject(body, "args") ?? readObject(body, "input") ?? parsedArguments(body);
  const resultObject = readObject(body, "result");
  const outcome = resultObject ? Object.keys(resultObject)[0] : undefined;
  const modelCallId = readString(object, "model_call_id");
  return {
    kind: "tool-call",
    completed,
    callId: cleanId(readString(object, "call_id")) ?? cleanId(readString(args, "toolCallId")),
    toolName,
    args,
    ...optional("outcome", outcome),
    ...(outcome !== undefined && resultObject ? { result: resultObject[outcome] ?? null } : {}),
    ...optional("modelCallId", modelCallId === "" ? undefined : modelCallId),
    ...base,
  };
}

function toolBody(payload: JsonObject): { toolName: string; body: JsonObject } {
  const key = Object.keys(payload).find((name) => name.endsWith("ToolCall"));
  if (key !== undefined) {
    const stem = key.slice(0, -"ToolCall".length);
    return {
      toolName: stem.charAt(0).toLowerCase() + stem.slice(1),
      body: readObject(payload, key) ?? {},
    };
  }
  const fn = readObject(payload, "function");
  if (fn) return { toolName: readString(fn, "name") ?? "unknown", body: fn };
  return { toolName: Object.keys(payload)[0] ?? "unknown", body: {} };
}

function parsedArguments(body: JsonObject): JsonObject {
  const text = readString(body, "arguments");
  if (text === undefined) return {};
  const parsed = parseJson(text);
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {};
}

function toResult(object: JsonObject, base: EventBase): ResultEvent {
  const subtype = readString(object, "subtype") ?? "success";
  const isError = readBoolean(object, "is_error") ?? subtype !== "success";
  const errorObject = readObject(object, "error");
  const text = readString(object, "result") ??
    (errorObject ? readString(errorObject, "message") : undefined) ?? "";
  const usageObject = readObject(object, "usage");
  return {
    kind: "result",
    isError,
    subtype,
    text,
    ...(usageObject ? { usage: toUsage(usageObject) } : {}),
    ...optional("durationMs", readNumber(object, "duration_ms")),
    ...optional("requestId", readString(object, "request_id")),
    ...base,
  };
}

function toUsage(raw: JsonObject): CliUsage {
  return {
    raw,
    ...optional("inputTokens", readFirstNumber(raw, ["inputTokens", "input_tokens"])),
    ...optional("outputTokens", readFirstNumber(raw, ["outputTokens", "output_tokens"])),
    ...optional(
      "cacheReadTokens",
      readFirstNumber(raw, ["cacheReadTokens", "cache_read_tokens", "cache_read_input_tokens"]),
    ),
    ...optional(
      "cacheWriteTokens",
      readFirstNumber(raw, [
        "cacheWriteTokens",
        "cache_write_tokens",
        "cache_creation_input_tokens",
      ]),
    ),
    ...optional("reasoningTokens", readFirstNumber(raw, ["reasoningTokens", "reasoning_tokens"])),
  };
}

function contentText(object: JsonObject): { text: string; thinking: string } {
  const message = readObject(object, "message");
  const content = message ? message["content"] : undefined;
  if (typeof content === "string") return { text: content, thinking: "" };
  let text = "";
  let thinking = "";
  if (Array.isArray(content)) {
    for (const part of content) {
      if (!isJsonObject(part)) continue;
      const type = readString(part, "type");
      if (type === "text") text += readString(part, "text") ?? "";
      else if (type === "thinking") {
        thinking += readString(part, "thinking") ?? readString(part, "text") ?? "";
      }
    }
  }
  return { text, thinking };
}

function sessionOf(object: JsonObject): EventBase {
  const id = readString(object, "session_id");
  return id === undefined || id === "" ? {} : { sessionId: id };
}

function cleanId(id: string | undefined): string | undefined {
  const cleaned = id?.replace(/\s+/g, "");
  return cleaned === undefined || cleaned === "" ? undefined : cleaned;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
