/**
 * The pure heart of the CLI backend: turns parsed stream-json events into AI SDK
 * `LanguageModelV3StreamPart`s. It de-duplicates repeated text, routes tool calls
 * (host or Cursor), holds host calls until the end of a read batch (so a completion
 * that already arrived turns the call into a provider-executed one), and builds the
 * closing `finish` part with usage from the `result` event.
 *
 * The mapper never does I/O: the caller feeds events, calls {@link StreamMapper.endBatch}
 * after each chunk of stdout, stops the process when {@link StreamMapper.stopRequested}
 * turns true, and calls {@link StreamMapper.finish} once.
 *
 * @module
 */
import type { LanguageModelV3StreamPart, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import type { DebugLogger } from "../../core/logger.ts";
import { silentLogger } from "../../core/logger.ts";
import type { JsonObject, JsonValue } from "../../cli/json.ts";
import {
  type CliEvent,
  isDeltaEvent,
  type ResultEvent,
  type ToolCallEvent,
} from "../../cli/stream-event.ts";
import { createDeltaTracker } from "../../cli/text-dedupe.ts";
import { type HostTool, routeToolCall, type ToolRoute } from "../../cli/tool-routing.ts";
import { convertCliUsage } from "./usage.ts";

type Part = LanguageModelV3StreamPart;

/** Who runs tools that the host also offers. */
export type ToolExecution = "host" | "cursor";

/** Settings of one mapper (one turn). */
export interface StreamMapperOptions {
  /** The tools the host offered; calls matching one are handed to the host. */
  readonly hostTools: readonly HostTool[];
  /** `cursor` makes every call provider-executed, even when the host offered a match. */
  readonly toolExecution: ToolExecution;
  /** Where skipped events are reported. */
  readonly logger?: DebugLogger;
  /** The clock for the response's timestamp (milliseconds since the epoch). Default `Date.now`. */
  readonly now?: () => number;
}

/** What the assistant produced in this turn, for the resume cache. */
export interface TurnReply {
  readonly text: string;
  /** Ids of the calls handed to the host (provider-executed calls are left out). */
  readonly toolCallIds: readonly string[];
}

/** The event-to-part mapper of one turn. */
export interface StreamMapper {
  /** Maps one event. */
  push(event: CliEvent): Part[];
  /** The CLI's `init` event arrived (the chat was opened or resumed). */
  readonly sawInit: boolean;
  /** Ends a read batch: releases held host tool calls (and requests a stop). */
  endBatch(): Part[];
  /**
   * Closes open parts and emits `finish` (preceded by an `error` part when given).
   *
   * @param error The failure of the turn, if it failed.
   * @param metadata Extra provider metadata for the `finish` part.
   */
  finish(error?: unknown, metadata?: Readonly<Record<string, JsonValue>>): Part[];
  /** The first chat id seen on any event. */
  readonly sessionId: string | undefined;
  /** Host tool calls were emitted: the process should be stopped now. */
  readonly stopRequested: boolean;
  /** The `result` event, once seen. */
  readonly result: ResultEvent | undefined;
  /** Whether any text, reasoning or tool part was emitted. */
  readonly visibleOutput: boolean;
  /** What the turn produced so far. */
  readonly reply: TurnReply;
}

interface OpenCall {
  readonly id: string;
  readonly name: string;
  readonly route: ToolRoute;
}

/**
 * Creates the mapper for one turn.
 *
 * @param options Offered tools, tool execution mode and logger.
 * @returns A fresh mapper.
 *
 * @example
 * ```ts
 * import { createStreamMapper } from "./stream-mapper.ts";
 *
 * const mapper = createStreamMapper({ hostTools: [], toolExecution: "host" });
 * const parts = [
 *   ...mapper.push({ kind: "assistant", text: "Hi", thinking: "", timestampMs: 1 }),
 *   ...mapper.push({ kind: "assistant", text: "Hi", thinking: "" }),
 *   ...mapper.finish(),
 * ];
 * console.assert(parts.filter((part) => part.type === "text-delta").length === 1);
 * console.assert(parts.at(-1)?.type === "finish");
 * ```
 */
export function createStreamMapper(options: StreamMapperOptions): StreamMapper {
  return new CliStreamMapper(options);
}

class CliStreamMapper implements StreamMapper {
  readonly #options: StreamMapperOptions;
  readonly #logger: DebugLogger;
  readonly #now: () => number;
  readonly #text = createDeltaTracker();
  readonly #thinking = createDeltaTracker();
  #openTextId: string | undefined;
  #openReasoningId: string | undefined;
  #counter = 0;
  #sessionId: string | undefined;
  #stopRequested = false;
  #result: ResultEvent | undefined;
  #visibleOutput = false;
  #sawInit = false;
  #hostCallCount = 0;
  readonly #toolCallIds: string[] = [];
  readonly #seenCalls = new Set<string>();
  readonly #heldHostCalls: OpenCall[] = [];
  readonly #cursorCalls: OpenCall[] = [];

  constructor(options: StreamMapperOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }
  get stopRequested(): boolean {
    return this.#stopRequested;
  }
  get result(): ResultEvent | undefined {
    return this.#result;
  }
  get visibleOutput(): boolean {
    return this.#visibleOutput;
  }
  get sawInit(): boolean {
    return this.#sawInit;
  }
  get reply(): TurnReply {
    return { text: this.#text.total, toolCallIds: [...this.#toolCallIds] };
  }

  push(event: CliEvent): Part[] {
    if (this.#stopRequested) return [];
    if (this.#sessionId === undefined && event.sessionId !== undefined) {
      this.#sessionId = event.sessionId;
    }
    const parts: Part[] = [];
    switch (event.kind) {
      case "init":
        this.#sawInit = true;
        parts.push({
          type: "response-metadata",
          ...(event.sessionId === undefined ? {} : { id: event.sessionId }),
          ...(event.model === undefined ? {} : { modelId: event.model }),
          timestamp: new Date(this.#now()),
        });
        break;
      case "thinking":
        if (event.completed) this.#closeReasoning(parts);
        else this.#emitReasoning(this.#thinking.accept(event.text, isDeltaEvent(event)), parts);
        break;
      case "assistant":
        this.#emitReasoning(this.#thinking.accept(event.thinking, false), parts);
        this.#emitText(this.#text.accept(event.text, isDeltaEvent(event)), parts);
        break;
      case "tool-call":
        if (event.completed) this.#onToolCompleted(event, parts);
        else this.#onToolStarted(event, parts);
        break;
      case "result":
        this.#result = event;
        break;
      case "ignored":
      case "unknown":
      case "user":
        this.#logSkipped(event);
        break;
    }
    return parts;
  }

  endBatch(): Part[] {
    if (this.#heldHostCalls.length === 0) return [];
    const parts: Part[] = [];
    for (const call of this.#heldHostCalls.splice(0)) {
      const input = JSON.stringify(call.route.input);
      parts.push(
        { type: "tool-input-start", id: call.id, toolName: call.route.toolName },
        { type: "tool-input-delta", id: call.id, delta: input },
        { type: "tool-input-end", id: call.id },
        { type: "tool-call", toolCallId: call.id, toolName: call.route.toolName, input },
      );
      this.#toolCallIds.push(call.id);
      this.#hostCallCount++;
    }
    this.#visibleOutput = true;
    this.#stopRequested = true;
    return parts;
  }

  finish(error?: unknown, metadata: Readonly<Record<string, JsonValue>> = {}): Part[] {
    const parts: Part[] = [...this.endBatch()];
    this.#closeText(parts);
    this.#closeReasoning(parts);
    for (const call of this.#cursorCalls.splice(0)) {
      this.#emitCursorResult(call, "error", {
        message: "Cursor did not report a result for this call",
      }, parts);
    }
    if (error !== undefined) parts.push({ type: "error", error });
    parts.push({
      type: "finish",
      usage: convertCliUsage(this.#result?.usage),
      finishReason: finishReasonOf(error, this.#hostCallCount, this.#result),
      providerMetadata: providerMetadataOf(this.#sessionId, this.#result, metadata),
    });
    return parts;
  }

  #logSkipped(event: CliEvent): void {
    if (event.kind === "unknown") {
      this.#logger.line(
        `cursor-agent: skipped unknown stream-json event type ${JSON.stringify(event.type)}`,
      );
    } else if (
      event.kind === "ignored" && (event.type === "retry" || event.type === "connection")
    ) {
      this.#logger.line(
        `cursor-agent: ${event.type}/${
          event.subtype ?? "?"
        } (the CLI is recovering its connection)`,
      );
    }
  }

  #closeText(parts: Part[]): void {
    if (this.#openTextId !== undefined) parts.push({ type: "text-end", id: this.#openTextId });
    this.#openTextId = undefined;
  }

  #closeReasoning(parts: Part[]): void {
    if (this.#openReasoningId !== undefined) {
      parts.push({ type: "reasoning-end", id: this.#openReasoningId });
    }
    this.#openReasoningId = undefined;
  }

  #emitText(delta: string, parts: Part[]): void {
    if (delta === "") return;
    this.#closeReasoning(parts);
    if (this.#openTextId === undefined) {
      this.#openTextId = `text-${this.#counter++}`;
      parts.push({ type: "text-start", id: this.#openTextId });
    }
    parts.push({ type: "text-delta", id: this.#openTextId, delta });
    this.#visibleOutput = true;
  }

  #emitReasoning(delta: string, parts: Part[]): void {
    if (delta === "") return;
    this.#closeText(parts);
    if (this.#openReasoningId === undefined) {
      this.#openReasoningId = `reasoning-${this.#counter++}`;
      parts.push({ type: "reasoning-start", id: this.#openReasoningId });
    }
    parts.push({ type: "reasoning-delta", id: this.#openReasoningId, delta });
    this.#visibleOutput = true;
  }

  #newCallId(event: ToolCallEvent): string {
    return event.callId ?? `${this.#sessionId ?? "cursor"}-call-${this.#counter++}`;
  }

  #onToolStarted(event: ToolCallEvent, parts: Part[]): void {
    const id = this.#newCallId(event);
    if (this.#seenCalls.has(id)) return;
    this.#seenCalls.add(id);
    this.#closeText(parts);
    this.#closeReasoning(parts);
    this.#text.breakSegment();
    this.#thinking.breakSegment();
    const hostTools = this.#options.toolExecution === "host" ? this.#options.hostTools : [];
    const call: OpenCall = {
      id,
      name: event.toolName,
      route: routeToolCall(event.toolName, event.args, hostTools),
    };
    if (call.route.kind === "host") {
      this.#heldHostCalls.push(call);
      return;
    }
    this.#cursorCalls.push(call);
    this.#emitCursorCall(call, parts);
  }

  #onToolCompleted(event: ToolCallEvent, parts: Part[]): void {
    const outcome = event.outcome ?? "unknown";
    const value = event.result ?? null;
    const held = takeOpenCall(this.#heldHostCalls, event);
    if (held) {
      this.#logger.line(
        `cursor-agent: ${held.name} call ${held.id} completed before it could be handed to the host; Cursor ran it`,
      );
      const asCursor: OpenCall = { ...held, route: routeToolCall(held.name, event.args, []) };
      this.#emitCursorCall(asCursor, parts);
      this.#emitCursorResult(asCursor, outcome, value, parts);
      return;
    }
    const open = takeOpenCall(this.#cursorCalls, event);
    if (open) {
      this.#emitCursorResult(open, outcome, value, parts);
      return;
    }
    const id = this.#newCallId(event);
    if (this.#seenCalls.has(id)) return;
    this.#seenCalls.add(id);
    const orphan: OpenCall = {
      id,
      name: event.toolName,
      route: routeToolCall(event.toolName, event.args, []),
    };
    this.#emitCursorCall(orphan, parts);
    this.#emitCursorResult(orphan, outcome, value, parts);
  }

  #emitCursorCall(call: OpenCall, parts: Part[]): void {
    parts.push({
      type: "tool-call",
      toolCallId: call.id,
      toolName: call.route.toolName,
      input: JSON.stringify(call.route.input),
      providerExecuted: true,
      dynamic: true,
    });
    this.#visibleOutput = true;
  }

  #emitCursorResult(call: OpenCall, outcome: string, value: JsonValue, parts: Part[]): void {
    parts.push({
      type: "tool-result",
      toolCallId: call.id,
      toolName: call.route.toolName,
      result: { [outcome]: value },
      isError: outcome !== "success",
      dynamic: true,
    });
  }
}

function takeOpenCall(list: OpenCall[], event: ToolCallEvent): OpenCall | undefined {
  const index = event.callId !== undefined
    ? list.findIndex((call) => call.id === event.callId)
    : list.findIndex((call) => call.name === event.toolName);
  return index === -1 ? undefined : list.splice(index, 1)[0];
}

function finishReasonOf(
  error: unknown,
  hostCalls: number,
  result: ResultEvent | undefined,
): { unified: "stop" | "tool-calls" | "error"; raw: string | undefined } {
  if (error !== undefined) return { unified: "error", raw: result?.subtype ?? "error" };
  if (hostCalls > 0) return { unified: "tool-calls", raw: "tool_call" };
  return { unified: "stop", raw: result?.subtype };
}

function providerMetadataOf(
  sessionId: string | undefined,
  result: ResultEvent | undefined,
  metadata: Readonly<Record<string, JsonValue>>,
): SharedV3ProviderMetadata {
  const cursor: JsonObject = { ...metadata, chatId: sessionId ?? null };
  if (result?.requestId !== undefined) cursor["requestId"] = result.requestId;
  if (result?.durationMs !== undefined) cursor["durationMs"] = result.durationMs;
  return { cursor };
}
