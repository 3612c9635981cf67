/**
 * One live Run, whatever its transport: decodes and routes client messages (run
 * request, exec/KV/interaction answers, controls, actions, heartbeats), enforces the
 * strict rules, runs the timers (reply deadlines, server heartbeats, client heartbeat
 * watch), and cleans up completely when the Run ends so nothing of it is retained
 * except its record.
 *
 * @module
 */
import { create, fromBinary } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../../gen/agent/v1/server_message_pb.ts";
import {
  type AgentClientMessage,
  AgentClientMessageSchema,
} from "../../../gen/agent/v1/client_message_pb.ts";
import type { AgentRunRequest } from "../../../gen/agent/v1/run_request_pb.ts";
import type { ConversationAction } from "../../../gen/agent/v1/conversation_action_pb.ts";
import { rawField } from "../wire/envelope.ts";
import { type EmulatedError, RunFailure } from "../wire/connect-http.ts";
import { describeClientMessage } from "../observe/describe-message.ts";
import type { Conversations } from "../conversation/conversations.ts";
import type { ServerBlobCache } from "../conversation/blob-cache.ts";
import type { ResolvedOptions } from "../config/options.ts";
import type { FaultController } from "../faults/faults.ts";
import type { EmulatorLog } from "../observe/log.ts";
import { newRunRecord, type RunRecord } from "../observe/records.ts";
import type { RunVariants } from "../observe/run-variants.ts";
import { Replies } from "../io/replies.ts";
import { LateCheck } from "../io/late-check.ts";
import { playRun } from "./play-run.ts";
import { AsyncAnswers, cancelProblem } from "./conversation-actions.ts";
import type { RunIo } from "../io/run-io.ts";
import { type RunSink, RunTerminated, RunWriter } from "../io/run-writer.ts";
import { ruleEnforced, type RuleName, RULES, type Violation } from "../observe/violations.ts";

/** What a Run needs from the emulator that hosts it. */
export interface RunHost {
  readonly options: ResolvedOptions;
  readonly log: EmulatorLog;
  readonly faults: FaultController;
  readonly conversations: Conversations;
  /** The server's blobs between Runs; `undefined` for a cold server. */
  readonly blobCache: ServerBlobCache | undefined;
  /** Keeps a violation for `violations()`. */
  recordViolation(violation: Violation): void;
  /** Called once when the Run has ended and cleaned up. */
  runEnded(session: RunSession): void;
}

/** How a Run was opened. */
export interface RunSessionInit {
  readonly runId: string;
  readonly requestId: string;
  readonly transport: "sse" | "http2";
  readonly sink: RunSink;
}

const CANONICAL_MESSAGES: Partial<Record<RuleName, string>> = {
  "first-message-not-run-request": "First message must be a run request",
  "conversation-state-missing": "Conversation state is required",
};

/** A live Run. */
export class RunSession implements RunIo {
  readonly runId: string;
  readonly record: RunRecord;
  readonly writer: RunWriter;
  readonly replies: Replies;
  readonly #core: RunHost;
  readonly #shellWatchers = new Map<number, (stream: "stdout" | "stderr", data: string) => void>();
  readonly #asyncAnswers: AsyncAnswers;
  readonly #sleepers = new Set<ReturnType<typeof setTimeout>>();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The run request's deadline, confirmed by a later tick (see `late-check.ts`). */
  readonly #runRequestLate: LateCheck;
  #started = false;
  #finished = false;
  #lastClientFrameAt: number;
  #heartbeatFlagged = false;
  /** Resolves when the Run has ended and cleaned up. */
  readonly done: Promise<void>;
  #resolveDone: () => void = () => {};

  constructor(core: RunHost, init: RunSessionInit) {
    this.#core = core;
    this.runId = init.runId;
    this.record = newRunRecord(init.runId, init.requestId, init.transport, core.options.now());
    this.#lastClientFrameAt = core.options.now();
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    const rpc = init.transport === "sse" ? "RunSSE" : "Run";
    this.writer = new RunWriter({
      sink: init.sink,
      log: core.log,
      runId: init.runId,
      rpc,
      now: core.options.now,
      heartbeatIntervalMs: core.options.heartbeatIntervalMs,
      onFault: (description) => this.record.faults.push(description),
      onFaultError: (error) => {
        this.record.error = { code: error.code, message: error.message };
      },
    });
    this.#runRequestLate = new LateCheck(core.options.replyDeadlineMs);
    this.replies = new Replies({
      now: core.options.now,
      deadlineMs: core.options.replyDeadlineMs,
      waitForStreamClose: ruleEnforced(core.options.strict, "stream-close-missing"),
      violation: (rule, message) => void this.violation(rule, message),
      timeout: (rule, message) => this.#timeout(rule, message),
      shellOutput: (id, stream, data) => this.#shellWatchers.get(id)?.(stream, data),
      variant: (name, value) => this.variant(name, value),
    });
    this.#asyncAnswers = new AsyncAnswers({
      now: core.options.now,
      deadlineMs: core.options.replyDeadlineMs,
      finished: () => this.#finished,
      timeout: (rule, message) => this.#timeout(rule, message),
    });
    const tick = Math.max(
      5,
      Math.min(250, core.options.replyDeadlineMs / 4, core.options.heartbeatIntervalMs / 2),
    );
    this.#timer = setInterval(() => this.#tick(), tick);
  }

  /** The emulator clock. */
  now(): number {
    return this.#core.options.now();
  }

  /** Whether the Run has ended. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Delivers one encoded client message. */
  deliver(bytes: Uint8Array): void {
    if (this.#finished) return;
    this.#lastClientFrameAt = this.now();
    let message: AgentClientMessage;
    try {
      message = fromBinary(AgentClientMessageSchema, bytes);
    } catch {
      this.#log("undecodable", `${bytes.length} bytes`, undefined);
      if (
        this.violation(
          "undecodable-client-message",
          `Client message of ${bytes.length} bytes does not decode`,
        )
      ) return;
      return;
    }
    if (this.#core.log.enabled) {
      const { kind, summary } = describeClientMessage(message);
      this.#log(kind, summary, message);
    }
    this.#route(message, bytes);
  }

  #route(message: AgentClientMessage, bytes: Uint8Array): void {
    const top = message.message;
    if (top.case === "runRequest") return this.#onRunRequest(top.value, bytes);
    if (!this.#started) {
      this.violation(
        "first-message-not-run-request",
        `First client message was ${top.case ?? "unknown"}`,
      );
      return;
    }
    switch (top.case) {
      case "execClientMessage":
        return this.replies.onExecMessage(top.value);
      case "execClientControlMessage":
        return this.replies.onControl(top.value);
      case "kvClientMessage":
        return this.replies.onKv(top.value);
      case "interactionResponse":
        return this.replies.onInteraction(top.value);
      case "conversationAction":
        return this.#onAction(top.value);
      case "clientHeartbeat":
        this.record.clientHeartbeats++;
        return;
      case "prewarmRequest":
        return;
      case undefined: {
        const fields = message.$unknown?.map((field) => field.no).join(", ") ?? "none";
        this.violation(
          "unknown-client-message",
          `AgentClientMessage has no known case (fields ${fields})`,
        );
      }
    }
  }

  #onRunRequest(request: AgentRunRequest, bytes: Uint8Array): void {
    if (this.#started) {
      this.violation("second-run-request", "A second run_request arrived on the same Run");
      return;
    }
    this.#started = true;
    const requestBytes = rawField(bytes, 1);
    const rawState = requestBytes === undefined ? undefined : rawField(requestBytes, 1);
    const conversationId = request.conversationId ?? "";
    const faults = this.#core.faults.take("start", this.record.requestId, conversationId);
    for (const fault of faults) {
      this.record.faults.push(fault.kind);
      if (fault.kind !== "blob-miss") {
        this.writer.arm(fault, "afterFrames" in fault ? fault.afterFrames ?? 0 : 0);
      }
    }
    const deps = {
      io: this,
      options: this.#core.options,
      conversations: this.#core.conversations,
      blobCache: this.#core.blobCache,
      faults,
      watchShell: (id: number, listener: (stream: "stdout" | "stderr", data: string) => void) =>
        this.#shellWatchers.set(id, listener),
      asyncAnswer: (toolCallId: string) => this.#asyncAnswers.wait(toolCallId),
    };
    playRun(deps, request, rawState).then(
      () => this.#end(),
      (reason: unknown) => this.#engineFailed(reason),
    );
  }

  #onAction(action: ConversationAction): void {
    const value = action.action;
    if (value.case === "cancelAction") {
      const problem = cancelProblem(value.value, this.record.turnEnded);
      if (problem !== undefined) this.violation("cancel-action-malformed", problem);
      this.record.clientCancel = {
        at: this.now(),
        openExecs: this.replies.openExecIds().length,
        reason: value.value.reason,
      };
      this.#sendAborts();
      this.fail({ code: "canceled", message: "Canceled by the client" }, "canceled");
      return;
    }
    if (value.case === "asyncAskQuestionCompletionAction") this.#asyncAnswers.deliver(value.value);
  }

  /** Aborts every exec still running (on cancel). */
  #sendAborts(): void {
    for (const id of this.replies.openExecIds()) {
      this.writer.send(create(AgentServerMessageSchema, {
        message: {
          case: "execServerControlMessage",
          value: { message: { case: "abort", value: { id } } },
        },
      })).catch(() => {});
    }
  }

  /** Records a violation; ends the Run when the rule says so. */
  violation(rule: RuleName, message: string): boolean {
    if (!ruleEnforced(this.#core.options.strict, rule)) return false;
    const code = RULES[rule].endsRunWith;
    this.#core.recordViolation({
      rule,
      message,
      runId: this.runId,
      requestId: this.record.requestId,
      time: this.now(),
      endedRun: code !== undefined && !this.#finished,
    });
    if (code === undefined) return false;
    this.fail({ code, message: CANONICAL_MESSAGES[rule] ?? message });
    return true;
  }

  #timeout(rule: RuleName, message: string): void {
    this.violation(rule, message);
    this.fail({ code: "deadline_exceeded", message });
  }

  /** Records a variant. */
  variant<K extends keyof RunVariants>(name: K, value: RunVariants[K]): void {
    this.record.variants[name] = value;
  }

  /** Resolves after `ms` unless the Run ends first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#finished) return reject(new RunTerminated("Run ended"));
      const timer = setTimeout(() => {
        this.#sleepers.delete(timer);
        if (this.#finished) reject(new RunTerminated("Run ended"));
        else resolve();
      }, ms);
      this.#sleepers.add(timer);
    });
  }

  /** Ends the Run with a Connect error (idempotent). */
  fail(error: EmulatedError, status: "error" | "canceled" = "error"): void {
    if (this.#finished) return;
    if (this.writer.ended === undefined) {
      this.record.status = status;
      this.record.error = { code: error.code, message: error.message };
    }
    this.writer.finish(error);
    this.#end();
  }

  /** The client went away (connection closed or stream reset). */
  transportClosed(reason: string): void {
    if (this.#finished) return;
    this.writer.markGone(reason);
    if (this.record.status === "running") this.record.status = "canceled";
    this.#end();
  }

  /**
   * The client ended its half. After `turn_ended` the Run ends successfully at once
   * (the client has what it needs); before, the Run is canceled.
   */
  clientHalfClosed(): void {
    if (this.#finished) return;
    if (this.record.turnEnded) {
      this.record.status = "ok";
      this.writer.finish();
      this.#end();
      return;
    }
    this.fail(
      { code: "canceled", message: "Client closed its stream before the Run ended" },
      "canceled",
    );
  }

  #engineFailed(reason: unknown): void {
    if (reason instanceof RunFailure) {
      return this.fail(reason.error, reason.error.code === "canceled" ? "canceled" : "error");
    }
    if (reason instanceof RunTerminated) return this.#end();
    const message = reason instanceof Error ? reason.message : String(reason);
    this.fail({ code: "internal", message: `Emulator failure: ${message}` });
  }

  #tick(): void {
    if (this.#finished) return;
    const now = this.now();
    if (this.#started && this.replies.checkDeadlines()) return;
    const noRunRequest = !this.#started &&
      now - this.record.startedAt > this.#core.options.replyDeadlineMs;
    if (this.#runRequestLate.confirmed(noRunRequest ? "run_request" : undefined, now)) {
      return this.fail({ code: "deadline_exceeded", message: "No run_request arrived in time" });
    }
    if (now - this.writer.lastWriteAt >= this.#core.options.heartbeatIntervalMs) {
      this.writer.heartbeat();
    }
    const silence = now - this.#lastClientFrameAt;
    if (!this.#heartbeatFlagged && silence > this.#core.options.clientHeartbeatTimeoutMs) {
      this.#heartbeatFlagged = true;
      this.violation("heartbeat-missing", `No client frame for ${silence} ms`);
    }
  }

  #end(): void {
    if (this.#finished) return;
    this.#finished = true;
    clearInterval(this.#timer);
    for (const timer of this.#sleepers) clearTimeout(timer);
    this.#sleepers.clear();
    this.replies.abortAll("Run ended");
    this.#shellWatchers.clear();
    this.#asyncAnswers.clear();
    const ended = this.writer.ended ?? "closed";
    if (this.record.status === "running") {
      this.record.status = ended === "ok" ? "ok" : ended.startsWith("error") ? "error" : "dropped";
    }
    if (this.record.status === "ok" && !this.record.turnEnded) this.record.status = "error";
    this.record.framesSent = this.writer.frames;
    this.record.endedAt = this.now();
    this.#core.runEnded(this);
    this.#resolveDone();
  }

  #log(kind: string, summary: string, message: AgentClientMessage | undefined): void {
    this.#core.log.add({
      time: this.now(),
      runId: this.runId,
      direction: "client",
      rpc: this.record.transport === "sse" ? "BidiAppend" : "Run",
      kind,
      summary,
      ...(message === undefined ? {} : { message }),
    });
  }
}
