/**
 * One held agent Run: sends the run request, heartbeats every 5 s, answers the
 * protocol's own requests (KV blobs, the request-context probe, execs and queries this
 * client refuses) and reports everything else as {@link RunEvent}s. A Run succeeds only
 * with `turn_ended`; an end of stream before it is an interruption, never a silent stop.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { CursorError } from "../core/cursor-error.ts";
import type { DebugLogger } from "../core/logger.ts";
import { bytesToHex } from "../core/bytes.ts";
import {
  type AgentClientMessage,
  AgentClientMessageSchema,
} from "../gen/agent/v1/client_message_pb.ts";
import {
  type AgentServerMessage,
  AgentServerMessageSchema,
} from "../gen/agent/v1/server_message_pb.ts";
import type { RequestContext } from "../gen/agent/v1/request_context_pb.ts";
import type { ExecClientMessageSchema, ExecServerMessage } from "../gen/agent/v1/exec_pb.ts";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { KvServerMessage } from "../gen/agent/v1/kv_pb.ts";
import type { InteractionUpdate } from "../gen/agent/v1/interaction_update_pb.ts";
import { type TodoItem, TodoItemSchema } from "../gen/agent/v1/common_pb.ts";
import { rawFieldBytes } from "../protocol/raw-field.ts";
import type { AgentRunStream } from "../transport/agent-transport.ts";
import type { BlobStore } from "./blob-store.ts";
import { refuseExec } from "./exec-refusal.ts";
import { declineInteraction } from "./interaction-decline.ts";
import type { RunEvent, TurnCounters } from "./run-events.ts";

/** The `message` oneof of an exec result. */
export type ExecResultMessage = NonNullable<
  MessageInitShape<typeof ExecClientMessageSchema>["message"]
>;

/** Client heartbeat period: 5 s, as the official client. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** How long to keep reading after `turn_ended` for the final checkpoint. */
export const TAIL_GRACE_MS = 5_000;

/** What a Run needs besides its stream. */
export interface AgentRunOptions {
  readonly blobs: BlobStore;
  /** The request context answered to `request_context_args`. */
  readonly requestContext: RequestContext;
  readonly logger: DebugLogger;
  /** Heartbeat period; default 5 s. */
  readonly heartbeatMs?: number;
  /** How long to wait for the stream's tail after `turn_ended`; default 5 s. */
  readonly tailGraceMs?: number;
}

/** Activity counts for the diagnostics lines. */
export interface RunActivity {
  checkpointUpdates: number;
  tokenDetailUpdates: number;
  stepsStarted: number;
  stepsCompleted: number;
  displayToolCalls: number;
  execRequests: number;
  kvGets: number;
  kvSets: number;
  /** Visible output (text, thinking, tool activity) reached the host: replay is unsafe. */
  visibleOutput: boolean;
}

/**
 * Drives one Run over an open stream.
 *
 * @example
 * ```ts ignore
 * const run = new AgentRun(stream, { blobs, requestContext, logger });
 * await run.start(runRequest);
 * for await (const event of run.events()) console.log(event.type);
 * ```
 */
export class AgentRun {
  readonly #stream: AgentRunStream;
  readonly #options: AgentRunOptions;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #sendFailure: CursorError | undefined;
  /** Activity so far. */
  readonly activity: RunActivity = {
    checkpointUpdates: 0,
    tokenDetailUpdates: 0,
    stepsStarted: 0,
    stepsCompleted: 0,
    displayToolCalls: 0,
    execRequests: 0,
    kvGets: 0,
    kvSets: 0,
    visibleOutput: false,
  };

  /**
   * @param stream The open transport stream.
   * @param options Blob store, request context, logger.
   */
  constructor(stream: AgentRunStream, options: AgentRunOptions) {
    this.#stream = stream;
    this.#options = options;
  }

  /**
   * Sends the encoded first message (`run_request`) and starts heartbeating.
   *
   * @param runRequestMessage The encoded `AgentClientMessage{ run_request }`.
   */
  async start(runRequestMessage: Uint8Array): Promise<void> {
    try {
      await this.#stream.send(runRequestMessage);
    } catch (error) {
      this.#sendFailure ??= CursorError.from(error);
      throw this.#sendFailure;
    }
    this.#heartbeat = setInterval(() => {
      this.send({ message: { case: "clientHeartbeat", value: {} } }).catch(() => {});
    }, this.#options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS);
    // A held Run must not keep a finished program alive (Node and Deno timers have unref).
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }

  /**
   * Sends one client message.
   *
   * @param init The message (as a `create()` init shape).
   */
  async send(init: Parameters<typeof create<typeof AgentClientMessageSchema>>[1]): Promise<void> {
    if (this.#closed) return;
    const message: AgentClientMessage = create(AgentClientMessageSchema, init);
    try {
      await this.#stream.send(toBinary(AgentClientMessageSchema, message));
    } catch (error) {
      this.#sendFailure ??= CursorError.from(error);
      throw this.#sendFailure;
    }
  }

  /**
   * The Run's events until it ends. Returns after `turn_ended` and the stream tail.
   *
   * @throws {CursorError} `interrupted` when the stream ends before `turn_ended`, or the
   *   server's classified error.
   */
  async *events(): AsyncGenerator<RunEvent, void, undefined> {
    let turnEnded = false;
    let tailDeadline = Number.POSITIVE_INFINITY;
    const frames = this.#stream.frames[Symbol.asyncIterator]();
    try {
      for (;;) {
        // After turn_ended only the tail (final checkpoint, end of stream) is awaited, and not for long.
        const next = await nextBefore(frames, tailDeadline);
        if (next === "deadline" || next.done) break;
        const frame = next.value;
        if (frame.kind === "end") {
          if (!frame.end.ok) throw this.#withReplaySafety(frame.end.error);
          if (!turnEnded) throw this.#interrupted("Cursor ended the Run before turn_ended");
          return;
        }
        const message = this.#decode(frame.bytes);
        if (message === undefined) {
          yield { type: "warning", message: "Skipped an undecodable server frame" };
          continue;
        }
        for (const event of this.#handle(message, frame.bytes)) {
          if (event.type === "turn-ended") {
            turnEnded = true;
            tailDeadline = Date.now() + (this.#options.tailGraceMs ?? TAIL_GRACE_MS);
          }
          yield event;
        }
        if (this.#sendFailure) throw this.#sendFailure;
      }
      if (!turnEnded) throw this.#interrupted("The Run's stream ended before turn_ended");
    } catch (error) {
      if (turnEnded) return;
      throw this.#sendFailure ?? this.#withReplaySafety(CursorError.from(error));
    } finally {
      this.close();
    }
  }

  /** Stops heartbeating and releases the stream (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#stream.close();
  }

  #decode(bytes: Uint8Array): AgentServerMessage | undefined {
    try {
      return fromBinary(AgentServerMessageSchema, bytes);
    } catch {
      this.activity.visibleOutput = true;
      return undefined;
    }
  }

  /**
   * Sends an answer the protocol demands without waiting for its delivery, so the next
   * server request is read (and answered) while this one travels: sends keep their order,
   * and a failed one fails the Run at the next frame.
   */
  #answer(init: Parameters<typeof create<typeof AgentClientMessageSchema>>[1]): void {
    this.send(init).catch(() => {});
  }

  #handle(message: AgentServerMessage, bytes: Uint8Array): RunEvent[] {
    const m = message.message;
    switch (m.case) {
      case "interactionUpdate":
        return this.#update(m.value);
      case "kvServerMessage":
        this.#answerKv(m.value);
        return [];
      case "execServerMessage":
        return this.#answerExec(m.value);
      case "conversationCheckpointUpdate": {
        this.activity.checkpointUpdates++;
        if (m.value.tokenDetails) this.activity.tokenDetailUpdates++;
        const raw = rawFieldBytes(bytes, 3) ?? new Uint8Array(0);
        return [{
          type: "checkpoint",
          bytes: raw,
          tokenDetails: m.value.tokenDetails,
          todos: this.#todos(m.value.todos),
        }];
      }
      case "interactionQuery": {
        this.activity.visibleOutput = true;
        const answer = declineInteraction(
          m.value,
          "This client answers no interactive requests in this turn",
        );
        if (answer === undefined) {
          return [{
            type: "warning",
            message: `Unknown interaction query case ${String(m.value.query.case)}`,
          }];
        }
        this.#answer({ message: { case: "interactionResponse", value: answer } });
        return [{
          type: "warning",
          message: `Declined interaction query ${String(m.value.query.case)}`,
        }];
      }
      case "execServerControlMessage": {
        this.activity.visibleOutput = true;
        const control = m.value.message;
        if (control.case === "abort") return [{ type: "exec-abort", id: control.value.id }];
        return [{ type: "warning", message: "Skipped an exec control message of an unknown kind" }];
      }
      default:
        this.activity.visibleOutput = true;
        return [{ type: "warning", message: "Skipped a server message of an unknown kind" }];
    }
  }

  /** The todo items a checkpoint references, decoded from their blobs (all or nothing). */
  #todos(ids: readonly Uint8Array[]): TodoItem[] | undefined {
    if (ids.length === 0) return undefined;
    const items: TodoItem[] = [];
    for (const id of ids) {
      const blob = this.#options.blobs.get(bytesToHex(id));
      if (blob === undefined) return undefined;
      try {
        items.push(fromBinary(TodoItemSchema, blob));
      } catch {
        return undefined;
      }
    }
    return items;
  }

  #update(update: InteractionUpdate): RunEvent[] {
    const u = update.message;
    switch (u.case) {
      case "textDelta":
        this.activity.visibleOutput = true;
        return [{ type: "text-delta", text: u.value.text, serverNotice: u.value.isServerNotice }];
      case "thinkingDelta":
        this.activity.visibleOutput = true;
        return [{ type: "thinking-delta", text: u.value.text }];
      case "thinkingCompleted":
        return [{ type: "thinking-completed", durationMs: u.value.thinkingDurationMs }];
      case "turnEnded":
        return [{ type: "turn-ended", counters: turnCounters(u.value) }];
      case "stepStarted":
        this.activity.stepsStarted++;
        return [{ type: "step", phase: "started", stepId: u.value.stepId }];
      case "stepCompleted":
        this.activity.stepsCompleted++;
        return [{ type: "step", phase: "completed", stepId: u.value.stepId }];
      case "toolCallStarted":
        this.activity.displayToolCalls++;
        this.activity.visibleOutput = true;
        return [{
          type: "tool-display",
          phase: "started",
          callId: u.value.callId,
          tool: String(u.value.toolCall?.tool.case),
        }];
      case "toolCallCompleted":
        return [{
          type: "tool-display",
          phase: "completed",
          callId: u.value.callId,
          tool: String(u.value.toolCall?.tool.case),
        }];
      case undefined:
        return [{ type: "warning", message: "Skipped an interaction update of an unknown kind" }];
      default:
        return [];
    }
  }

  #answerKv(kv: KvServerMessage): void {
    const m = kv.message;
    if (m.case === "setBlobArgs") {
      this.activity.kvSets++;
      this.#options.blobs.set(bytesToHex(m.value.blobId), m.value.blobData);
      this.#answer({
        message: {
          case: "kvClientMessage",
          value: { id: kv.id, message: { case: "setBlobResult", value: {} } },
        },
      });
      return;
    }
    if (m.case === "getBlobArgs") {
      this.activity.kvGets++;
      const data = this.#lookupBlob(m.value.blobId);
      if (data === undefined) {
        this.#options.logger.line(
          `kv: get_blob found=false echoed=false id=${bytesToHex(m.value.blobId).slice(0, 16)}`,
        );
      }
      const result = data === undefined
        ? { error: { message: "Blob not found" } }
        : { blobData: data };
      this.#answer({
        message: {
          case: "kvClientMessage",
          value: { id: kv.id, message: { case: "getBlobResult", value: result } },
        },
      });
      return;
    }
    this.#options.logger.line(`kv: unknown request case id=${kv.id}`);
  }

  /** A stored blob; an id that is not a 32-byte hash is inline content echoed back. */
  #lookupBlob(id: Uint8Array): Uint8Array | undefined {
    const stored = this.#options.blobs.get(bytesToHex(id));
    if (stored !== undefined) return stored;
    if (id.length !== 32) {
      this.#options.logger.line("kv: get_blob found=false echoed=true");
      return id;
    }
    return undefined;
  }

  #answerExec(exec: ExecServerMessage): RunEvent[] {
    this.activity.execRequests++;
    if (exec.message.case === "requestContextArgs") {
      this.#answer({
        message: {
          case: "execClientMessage",
          value: {
            id: exec.id,
            message: {
              case: "requestContextResult",
              value: {
                result: {
                  case: "success",
                  value: { requestContext: this.#options.requestContext },
                },
              },
            },
          },
        },
      });
      return [];
    }
    this.activity.visibleOutput = true;
    return [{ type: "exec", exec }];
  }

  /**
   * Answers an exec with its result message(s), then `stream_close`.
   *
   * @param id The exec's id.
   * @param results The result messages (a shell stream has several).
   */
  async answerExec(id: number, results: readonly ExecResultMessage[]): Promise<void> {
    for (const message of results) {
      await this.send({ message: { case: "execClientMessage", value: { id, message } } });
    }
    await this.send({
      message: {
        case: "execClientControlMessage",
        value: { message: { case: "streamClose", value: { id } } },
      },
    });
  }

  /**
   * Refuses an exec explicitly: a typed rejection of its own result type where one exists,
   * else an exec `throw`.
   *
   * @param exec The exec request.
   * @param reason Why, shown to the model.
   */
  async refuseExec(exec: ExecServerMessage, reason: string): Promise<void> {
    const refusal = refuseExec(exec, reason);
    if (refusal === undefined) {
      await this.send({
        message: {
          case: "execClientControlMessage",
          value: {
            message: {
              case: "throw",
              value: { id: exec.id, error: `${reason} (${String(exec.message.case)})` },
            },
          },
        },
      });
      return;
    }
    await this.send({ message: { case: "execClientMessage", value: refusal } });
    await this.send({
      message: {
        case: "execClientControlMessage",
        value: { message: { case: "streamClose", value: { id: exec.id } } },
      },
    });
  }

  #interrupted(message: string): CursorError {
    return new CursorError("interrupted", message, {
      retryable: true,
      replaySafe: !this.activity.visibleOutput,
    });
  }

  #withReplaySafety(error: CursorError): CursorError {
    if (!error.replaySafe || !this.activity.visibleOutput) return error;
    return new CursorError(error.code, error.message, {
      retryable: error.retryable,
      replaySafe: false,
      retryAfterMs: error.retryAfterMs,
      connectCode: error.connectCode,
      httpStatus: error.httpStatus,
      detail: error.detail,
      cause: error.cause,
    });
  }
}

function turnCounters(
  value: {
    inputTokens?: bigint | undefined;
    outputTokens?: bigint | undefined;
    cacheReadTokens?: bigint | undefined;
    cacheWriteTokens?: bigint | undefined;
    reasoningTokens?: bigint | undefined;
  },
): TurnCounters {
  const present: TurnCounters["present"][number][] = [];
  const read = (v: bigint | undefined, name: TurnCounters["present"][number]): number => {
    if (v === undefined) return 0;
    present.push(name);
    return Number(v);
  };
  return {
    inputTokens: read(value.inputTokens, "input"),
    outputTokens: read(value.outputTokens, "output"),
    cacheReadTokens: read(value.cacheReadTokens, "cacheRead"),
    cacheWriteTokens: read(value.cacheWriteTokens, "cacheWrite"),
    reasoningTokens: read(value.reasoningTokens, "reasoning"),
    present,
  };
}

/** The next item of an iterator, or "deadline" when it does not come before `deadline` (epoch ms). */
async function nextBefore<T>(
  iterator: AsyncIterator<T>,
  deadline: number,
): Promise<IteratorResult<T> | "deadline"> {
  if (deadline === Number.POSITIVE_INFINITY) return await iterator.next();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"deadline">((resolve) => {
    timer = setTimeout(() => resolve("deadline"), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([iterator.next(), late]);
  } finally {
    clearTimeout(timer);
  }
}
