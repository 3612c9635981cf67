/**
 * One held agent Run: sends the run request, heartbeats every 5 s, answers the
 * protocol's own requests (KV blobs, the request-context probe, execs and queries this
 * client refuses) and reports everything else as {@link RunEvent}s. A Run succeeds only
 * with `turn_ended`; an end of stream before it is an interruption, never a silent stop.
 *
 * @module
 */
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { CursorError } from "../core/cursor-error.ts";
import type { DebugLogger } from "../core/logger.ts";
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
import { classifyServerMessage } from "../protocol/server/server-message.ts";
import type { AgentRunStream } from "../transport/agent-transport.ts";
import type { BlobStore } from "./blobs/blob-store.ts";
import { refuseExec } from "./exec-refusal.ts";
import type { RunEvent } from "./run-events.ts";
import { goneAwayError, interruptedError, silentError, withReplaySafety } from "./run-failures.ts";
import { nextBefore } from "./next-before.ts";
import { type ClientMessageInit, dispatchServerMessage } from "./run-dispatch.ts";
import { createRunActivity, type DisplayFailure, type RunActivity } from "./run-activity.ts";

/** The `message` oneof of an exec result. */
export type ExecResultMessage = NonNullable<
  MessageInitShape<typeof ExecClientMessageSchema>["message"]
>;

/** Client heartbeat period: 5 s, as the official client. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** How long to keep reading after `turn_ended` for the final checkpoint. */
export const TAIL_GRACE_MS = 5_000;

/** Longest wait for the `cancel_action` to go out before the Run is closed anyway. */
export const CANCEL_SEND_MS = 2_000;
/** Longest wait, once it went out, for Cursor to end the cancelled Run before it is closed. */
export const CANCEL_END_MS = 1_000;
/**
 * An active Run with no pending host work fails after this long without an inbound frame
 * (30 s, as Cursor's CLI). Any server frame renews it (heartbeats, partial tool inputs);
 * client heartbeats do not. The transport's 120 s read-idle limit stays as a backstop.
 */
const INBOUND_FRAME_IDLE_MS = 30_000;

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
  /**
   * How long the Run may wait for Cursor without an inbound frame; default 30 s. Only
   * time spent waiting counts: while the host runs tools nobody waits.
   */
  readonly inboundIdleMs?: number;
  /** The clock for `local_execution_time_ms` (ms since an exec arrived); default `Date.now`. */
  readonly now?: () => number;
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
  #cancelling = false;
  #markClosed: () => void = () => {};
  readonly #closedOnce = new Promise<void>((resolve) => (this.#markClosed = resolve));
  #sendFailure: CursorError | undefined;
  readonly #activity: RunActivity = createRunActivity();
  /** When each exec of this Run arrived, by exec id (for `local_execution_time_ms`). */
  readonly #execArrivals = new Map<number, number>();

  /** What the Run has done so far (the dispatcher counts it). */
  get activity(): Readonly<RunActivity> {
    return this.#activity;
  }

  /**
   * Takes the completed display tool calls whose result was an error, not yet logged.
   *
   * @returns Them, oldest first (each is returned once).
   */
  takeDisplayFailures(): DisplayFailure[] {
    return this.#activity.displayFailures.splice(0);
  }

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
    if (message.message.case === "execClientMessage") {
      // As Cursor's client: every exec client message says how long its exec has been running.
      const exec = message.message.value;
      const elapsed = this.#execElapsedMs(exec.id);
      if (exec.localExecutionTimeMs === undefined && elapsed !== undefined) {
        exec.localExecutionTimeMs = Math.min(elapsed, 2 ** 31 - 1);
      }
      // The host ran the command between the exec's arrival and its exit: that is the
      // command's own run time (`ShellStreamExit.local_execution_time_ms`, an int32).
      const event = exec.message.case === "shellStream" ? exec.message.value.event : undefined;
      if (
        event?.case === "exit" && event.value.localExecutionTimeMs === undefined &&
        elapsed !== undefined
      ) {
        event.value.localExecutionTimeMs = Math.min(elapsed, 2 ** 31 - 1);
      }
      // The request-context answer is its exec's only message (no stream_close follows).
      if (exec.message.case === "requestContextResult") this.#execArrivals.delete(exec.id);
    }
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
        const idleMs = this.#options.inboundIdleMs ?? INBOUND_FRAME_IDLE_MS;
        // Before any output, a server that announced it is going away will not serve the
        // Run: it is replayed at once rather than at the silence limit.
        const away = this.#activity.visibleOutput || turnEnded ? undefined : this.#stream.goingAway;
        const next = await nextBefore(frames, turnEnded ? tailDeadline : Date.now() + idleMs, away);
        if (next === "going-away") throw goneAwayError();
        if (next === "deadline" && !turnEnded) {
          throw silentError(idleMs, this.#activity.visibleOutput);
        }
        if (next === "deadline" || next.done) break;
        const frame = next.value;
        if (frame.kind === "end") {
          if (!frame.end.ok) throw withReplaySafety(this.#activity.visibleOutput, frame.end.error);
          if (!turnEnded) {
            throw interruptedError(
              this.#activity.visibleOutput,
              "Cursor ended the Run before turn_ended",
            );
          }
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
      if (!turnEnded) {
        throw interruptedError(
          this.#activity.visibleOutput,
          "The Run's stream ended before turn_ended",
        );
      }
    } catch (error) {
      if (turnEnded) return;
      throw this.#sendFailure ??
        withReplaySafety(this.#activity.visibleOutput, CursorError.from(error));
    } finally {
      this.close();
    }
  }

  /**
   * Stops the Run on Cursor's side: sends `conversation_action{cancel_action{}}` on the live
   * Run (an empty `CancelAction`, as Cursor's own clients send it), waits a moment for Cursor
   * to end the Run (a close right after the write could reset the stream before the frame
   * leaves), then closes. A Run that has already ended or been closed is left as it is.
   *
   * @returns Resolves once the Run is closed.
   */
  async cancel(): Promise<void> {
    if (this.#closed || this.#cancelling) return;
    this.#cancelling = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sent = this.send({
      message: {
        case: "conversationAction",
        value: { action: { case: "cancelAction", value: {} } },
      },
    }).then(() => "sent" as const, () => "failed" as const);
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), CANCEL_SEND_MS);
    });
    const outcome = await Promise.race([sent, late]);
    clearTimeout(timer);
    if (outcome === "sent") {
      const ended = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CANCEL_END_MS);
      });
      await Promise.race([this.#closedOnce, ended]);
      clearTimeout(timer);
    }
    // A send cut short because Cursor ended the Run first still reached it.
    const said = outcome === "failed" && this.#closed ? "ended-by-cursor" : outcome;
    if (this.#options.logger.enabled) this.#options.logger.line(`run cancel: ${said}`);
    this.close();
  }

  /** Resolves once the Run is closed (by either side). */
  get closed(): Promise<void> {
    return this.#closedOnce;
  }

  /** Stops heartbeating and releases the stream (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#stream.close();
    this.#markClosed();
  }

  #decode(bytes: Uint8Array): AgentServerMessage | undefined {
    try {
      return fromBinary(AgentServerMessageSchema, bytes);
    } catch {
      this.#activity.visibleOutput = true;
      return undefined;
    }
  }

  /**
   * Sends an answer the protocol demands without waiting for its delivery, so the next
   * server request is read (and answered) while this one travels: sends keep their order,
   * and a failed one fails the Run at the next frame.
   */
  #answer(init: ClientMessageInit): void {
    this.send(init).catch(() => {});
  }

  /** Whole ms since exec `id` arrived; `undefined` for an exec this Run did not see. */
  #execElapsedMs(id: number): number | undefined {
    const arrived = this.#execArrivals.get(id);
    if (arrived === undefined) return undefined;
    return Math.max(0, Math.round((this.#options.now ?? Date.now)() - arrived));
  }

  #handle(message: AgentServerMessage, bytes: Uint8Array): RunEvent[] {
    if (message.message.case === "execServerMessage") {
      const id = message.message.value.id;
      if (!this.#execArrivals.has(id)) {
        this.#execArrivals.set(id, (this.#options.now ?? Date.now)());
      }
    }
    return dispatchServerMessage(classifyServerMessage(message), bytes, {
      activity: this.#activity,
      blobs: this.#options.blobs,
      requestContext: this.#options.requestContext,
      logger: this.#options.logger,
      answer: (init) => this.#answer(init),
    });
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
    this.#execArrivals.delete(id);
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
    this.#execArrivals.delete(exec.id);
  }
}
