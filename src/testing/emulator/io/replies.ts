/**
 * The three answer channels of a Run (exec, KV, interaction): id counters, pending
 * requests, validation of each reply (case, duplicates, unknown ids) and reply deadlines.
 * The exec channel, with its shell streams and stream_close order, is `exec-replies.ts`.
 * The engine awaits an outcome per request; the session feeds client messages in.
 *
 * @module
 */
import type { ExecClientControlMessage, ExecClientMessage } from "../../../gen/agent/v1/exec_pb.ts";
import type { KvClientMessage } from "../../../gen/agent/v1/kv_pb.ts";
import type { InteractionResponse } from "../../../gen/agent/v1/interaction_query_pb.ts";
import { expectedInteractionResponse } from "./exec-cases.ts";
import { type ExecHooks, type ExecOutcome, ExecReplies } from "./exec-replies.ts";
import { LateCheck } from "./late-check.ts";
import type { RuleName } from "../observe/violations.ts";
import { RunTerminated } from "./run-writer.ts";

/** Callbacks into the Run. */
export interface ReplyHooks extends ExecHooks {
  readonly deadlineMs: number;
  /** A deadline passed; the Run must end with `deadline_exceeded`. */
  readonly timeout: (rule: RuleName, message: string) => void;
}

interface PendingReply<T> {
  readonly id: number;
  readonly expected: string | undefined;
  readonly startedAt: number;
  readonly resolve: (value: T) => void;
  readonly reject: (reason: unknown) => void;
  /** Finds a problem in a reply whose case matched (interaction answers). */
  readonly check?: ((value: T) => string | undefined) | undefined;
}

/** Pending requests of one Run. */
export class Replies {
  readonly #hooks: ReplyHooks;
  readonly #execs: ExecReplies;
  readonly #kv = new Map<number, PendingReply<KvClientMessage>>();
  readonly #queries = new Map<number, PendingReply<InteractionResponse>>();
  #nextKv = 0;
  #nextQuery = 0;
  /** The expired request a check found first, until a later check confirms it. */
  readonly #late: LateCheck;

  constructor(hooks: ReplyHooks) {
    this.#hooks = hooks;
    this.#execs = new ExecReplies(hooks);
    this.#late = new LateCheck(hooks.deadlineMs);
  }

  /** Whether anything is awaiting a client answer. */
  get waiting(): boolean {
    return this.#execs.waiting || this.#kv.size > 0 || this.#queries.size > 0;
  }

  /** Exec ids without a terminal result (for aborts on cancel). */
  openExecIds(): number[] {
    return this.#execs.openIds();
  }

  /** Allocates an exec id and the promise of its outcome. */
  exec(requestCase: string, toolExec: boolean): { id: number; done: Promise<ExecOutcome> } {
    return this.#execs.open(requestCase, toolExec);
  }

  /** Allocates a KV id and the promise of its reply. */
  kv(kind: "get" | "set"): { id: number; done: Promise<KvClientMessage> } {
    const id = this.#nextKv++;
    const expected = kind === "get" ? "getBlobResult" : "setBlobResult";
    const done = new Promise<KvClientMessage>((resolve, reject) => {
      this.#kv.set(id, { id, expected, startedAt: this.#hooks.now(), resolve, reject });
    });
    done.catch(() => {});
    return { id, done };
  }

  /**
   * Allocates an interaction id and the promise of its response; `check` finds shape
   * problems in an answer of the right case (recorded as `interaction-answer-invalid`).
   */
  query(
    queryCase: string,
    check?: (response: InteractionResponse) => string | undefined,
  ): { id: number; done: Promise<InteractionResponse> } {
    const id = this.#nextQuery++;
    const expected = expectedInteractionResponse(queryCase);
    const done = new Promise<InteractionResponse>((resolve, reject) => {
      this.#queries.set(id, {
        id,
        expected,
        startedAt: this.#hooks.now(),
        resolve,
        reject,
        check,
      });
    });
    done.catch(() => {});
    return { id, done };
  }

  /** Handles an `exec_client_message`. */
  onExecMessage(message: ExecClientMessage): void {
    this.#execs.onMessage(message);
  }

  /** Handles an `exec_client_control_message`. */
  onControl(message: ExecClientControlMessage): void {
    this.#execs.onControl(message);
  }

  /** Handles a `kv_client_message`. */
  onKv(message: KvClientMessage): void {
    this.#reply(this.#kv, "KV", message.id, message.message.case, this.#nextKv, message);
  }

  /** Handles an `interaction_response`. */
  onInteraction(message: InteractionResponse): void {
    this.#reply(
      this.#queries,
      "Interaction",
      message.id,
      message.result.case,
      this.#nextQuery,
      message,
    );
  }

  #reply<T>(
    map: Map<number, PendingReply<T>>,
    channel: string,
    id: number,
    resultCase: string | undefined,
    next: number,
    message: T,
  ): void {
    const pending = map.get(id);
    if (pending === undefined) {
      if (id < next) {
        return this.#hooks.violation("duplicate-reply", `${channel} request ${id} answered twice`);
      }
      return this.#hooks.violation(
        "unknown-reply-id",
        `${channel} reply names id ${id}, which was never issued`,
      );
    }
    if (resultCase !== pending.expected) {
      return this.#hooks.violation(
        "reply-case-mismatch",
        `${channel} request ${id} answered with ${resultCase ?? "no case"}, expected ${
          pending.expected ?? "?"
        }`,
      );
    }
    const problem = pending.check?.(message);
    if (
      problem !== undefined &&
      this.#hooks.violation("interaction-answer-invalid", `${channel} request ${id} ${problem}`)
    ) return;
    map.delete(id);
    pending.resolve(message);
  }

  /**
   * Checks deadlines; reports the first expired request and returns whether one was. A
   * request first seen expired is reported only by a later check (see `late-check.ts`): a
   * process that stalled runs its overdue timer before it reads the answer already waiting
   * in its socket, and that answer must count as on time.
   */
  checkDeadlines(): boolean {
    const now = this.#hooks.now();
    const expired = this.#firstExpired(now);
    if (!this.#late.confirmed(expired?.message, now) || expired === undefined) return false;
    this.#hooks.timeout(expired.rule, expired.message);
    return true;
  }

  #firstExpired(now: number): { rule: RuleName; message: string } | undefined {
    const limit = this.#hooks.deadlineMs;
    const exec = this.#execs.firstExpired(now, limit);
    if (exec !== undefined) return exec;
    for (const [channel, map] of [["KV", this.#kv], ["Interaction", this.#queries]] as const) {
      for (const pending of map.values()) {
        if (now - pending.startedAt < limit) continue;
        return {
          rule: "reply-deadline-exceeded",
          message: `${channel} request ${pending.id} was not answered within ${limit} ms`,
        };
      }
    }
    return undefined;
  }

  /** Rejects everything still pending (the Run is over) and forgets settled state. */
  abortAll(reason: string): void {
    const error = new RunTerminated(reason);
    this.#execs.abortAll(error);
    for (const pending of this.#kv.values()) pending.reject(error);
    for (const pending of this.#queries.values()) pending.reject(error);
    this.#kv.clear();
    this.#queries.clear();
  }
}
