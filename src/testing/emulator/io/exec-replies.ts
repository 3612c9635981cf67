/**
 * The exec channel of a Run: pending execs and the checks on their answers. An exec ends
 * with its typed result; a shell exec streams stdout and stderr and ends with a terminal
 * event, `shell_result`, or both; a throw ends any exec at once. A tool exec settles only
 * after its stream_close when the Run waits for one (strict). A second answer, a wrong
 * case, a stream_close before the result and an id never issued are violations.
 *
 * @module
 */
import type { ExecClientControlMessage, ExecClientMessage } from "../../../gen/agent/v1/exec_pb.ts";
import type { ShellResult } from "../../../gen/agent/v1/exec_shell_pb.ts";
import { expectedExecResult } from "./exec-cases.ts";
import type { RuleName } from "../observe/violations.ts";
import type { RunVariants } from "../observe/run-variants.ts";
import { SandboxPolicy_Type } from "../../../gen/agent/v1/common_pb.ts";

/** What a finished exec produced. */
export interface ExecOutcome {
  readonly id: number;
  readonly requestCase: string;
  /** The terminal typed result (for shell: the `shell_result` if one came). */
  readonly result: ExecClientMessage["message"] | undefined;
  /** Shell streams: collected output and the terminal event. */
  readonly shell: ShellOutcome | undefined;
  /** `exec_client_control_message.throw` error text. */
  readonly thrown: string | undefined;
  readonly streamClosed: boolean;
  readonly localExecutionTimeMs: number | undefined;
  readonly durationMs: number;
}

/** A shell stream's output. */
export interface ShellOutcome {
  stdout: string;
  stderr: string;
  /** `exit`, `rejected`, `permission_denied`, `backgrounded`, or `shell_result` alone. */
  terminal: string | undefined;
  exitCode: number | undefined;
  aborted: boolean;
  shellResult: ShellResult | undefined;
  /** `ShellStreamExit.local_execution_time_ms` (#6), when the client sent it. */
  exitExecutionTimeMs: number | undefined;
}

/** The exec channel's callbacks into the Run. */
export interface ExecHooks {
  readonly now: () => number;
  /** Tool execs settle only after their stream_close (strict). */
  readonly waitForStreamClose: boolean;
  /** A rule was broken. */
  readonly violation: (rule: RuleName, message: string) => void;
  readonly shellOutput: (id: number, stream: "stdout" | "stderr", data: string) => void;
  readonly variant: <K extends keyof RunVariants>(name: K, value: RunVariants[K]) => void;
}

interface PendingExec {
  readonly id: number;
  readonly requestCase: string;
  readonly expected: string | undefined;
  readonly toolExec: boolean;
  readonly startedAt: number;
  lastActivity: number;
  shell: ShellOutcome | undefined;
  result: ExecClientMessage["message"] | undefined;
  thrown: string | undefined;
  terminal: boolean;
  streamClosed: boolean;
  settled: boolean;
  localExecutionTimeMs: number | undefined;
  readonly resolve: (outcome: ExecOutcome) => void;
  readonly reject: (reason: unknown) => void;
}

const SHELL_TERMINALS = new Set(["exit", "rejected", "permissionDenied", "backgrounded"]);

/** The pending execs of one Run. */
export class ExecReplies {
  readonly #hooks: ExecHooks;
  readonly #execs = new Map<number, PendingExec>();
  #next = 0;

  constructor(hooks: ExecHooks) {
    this.#hooks = hooks;
  }

  /** Whether an exec has not settled yet. */
  get waiting(): boolean {
    return [...this.#execs.values()].some((e) => !e.settled);
  }

  /** Exec ids without a terminal result (for aborts on cancel). */
  openIds(): number[] {
    return [...this.#execs.values()].filter((e) => !e.terminal).map((e) => e.id);
  }

  /** Allocates an exec id and the promise of its outcome. */
  open(requestCase: string, toolExec: boolean): { id: number; done: Promise<ExecOutcome> } {
    const id = this.#next++;
    const now = this.#hooks.now();
    const done = new Promise<ExecOutcome>((resolve, reject) => {
      this.#execs.set(id, {
        id,
        requestCase,
        expected: expectedExecResult(requestCase),
        toolExec,
        startedAt: now,
        lastActivity: now,
        shell: requestCase === "shellStreamArgs" ? emptyShell() : undefined,
        result: undefined,
        thrown: undefined,
        terminal: false,
        streamClosed: false,
        settled: false,
        localExecutionTimeMs: undefined,
        resolve,
        reject,
      });
    });
    done.catch(() => {});
    return { id, done };
  }

  /** Handles an `exec_client_message`. */
  onMessage(message: ExecClientMessage): void {
    const pending = this.#execs.get(message.id);
    if (pending === undefined) return this.#unknown(message.id);
    pending.lastActivity = this.#hooks.now();
    if (message.localExecutionTimeMs !== undefined) {
      pending.localExecutionTimeMs = Number(message.localExecutionTimeMs);
      this.#hooks.variant("localExecutionTimeMs", true);
    }
    if (message.execId !== "") this.#hooks.variant("execIdEchoed", true);
    const result = message.message;
    if (pending.shell !== undefined) return this.#onShellFrame(pending, result);
    if (pending.terminal) {
      return this.#hooks.violation(
        "duplicate-reply",
        `Exec ${message.id} answered twice (${result.case ?? "unset"})`,
      );
    }
    if (result.case !== pending.expected) {
      return this.#hooks.violation(
        "reply-case-mismatch",
        `Exec ${message.id} (${pending.requestCase}) answered with ${
          result.case ?? "no case"
        }, expected ${pending.expected ?? "?"}`,
      );
    }
    pending.result = result;
    this.#terminal(pending);
  }

  #onShellFrame(pending: PendingExec, result: ExecClientMessage["message"]): void {
    const shell = pending.shell ?? emptyShell();
    if (result.case === "shellResult") {
      if (shell.shellResult !== undefined) {
        return this.#hooks.violation(
          "duplicate-reply",
          `Exec ${pending.id} sent shell_result twice`,
        );
      }
      shell.shellResult = result.value;
      pending.result = result;
      this.#hooks.variant(
        "shellTerminal",
        shell.terminal === undefined ? "shell_result" : "exit+shell_result",
      );
      if (shell.terminal === undefined) shell.terminal = "shell_result";
      if (!pending.terminal) this.#terminal(pending);
      return;
    }
    if (result.case !== "shellStream") {
      return this.#hooks.violation(
        "reply-case-mismatch",
        `Exec ${pending.id} (shellStreamArgs) answered with ${
          result.case ?? "no case"
        }, expected shellStream`,
      );
    }
    const event = result.value.event;
    if (pending.terminal) {
      return this.#hooks.violation(
        "duplicate-reply",
        `Exec ${pending.id} sent ${event.case ?? "an event"} after its terminal event`,
      );
    }
    if (event.case === "start" && event.value.sandboxPolicy !== undefined) {
      const type = event.value.sandboxPolicy.type;
      this.#hooks.variant("sandboxPolicyType", SandboxPolicy_Type[type] ?? String(type));
    }
    if (event.case === "stdout" || event.case === "stderr") {
      shell[event.case] += event.value.data;
      this.#hooks.shellOutput(pending.id, event.case, event.value.data);
      return;
    }
    if (event.case === undefined || !SHELL_TERMINALS.has(event.case)) return;
    shell.terminal = event.case;
    if (event.case === "exit") {
      shell.exitCode = event.value.code;
      shell.aborted = event.value.aborted;
      shell.exitExecutionTimeMs = event.value.localExecutionTimeMs;
    }
    this.#hooks.variant("shellTerminal", "exit");
    this.#terminal(pending);
  }

  /** Handles an `exec_client_control_message`. */
  onControl(message: ExecClientControlMessage): void {
    const control = message.message;
    if (control.case === undefined) return;
    const pending = this.#execs.get(control.value.id);
    if (pending === undefined) return this.#unknown(control.value.id);
    pending.lastActivity = this.#hooks.now();
    if (control.case === "heartbeat") return;
    if (control.case === "throw") {
      if (pending.terminal) {
        return this.#hooks.violation(
          "duplicate-reply",
          `Exec ${pending.id} threw after its result`,
        );
      }
      pending.thrown = control.value.error || "Client threw without a message";
      // A throw is final: Cursor's client sends no stream_close after it, so the exec
      // settles now, whether or not the Run waits for stream_close after results.
      pending.terminal = true;
      return this.#settle(pending);
    }
    this.#onStreamClose(pending);
  }

  #onStreamClose(pending: PendingExec): void {
    if (!pending.toolExec) this.#hooks.variant("requestContextStreamClose", true);
    if (pending.streamClosed) {
      return this.#hooks.violation("duplicate-reply", `Exec ${pending.id} stream closed twice`);
    }
    if (pending.thrown !== undefined) {
      // Older clients close the stream after a throw; the exec has settled already.
      pending.streamClosed = true;
      return;
    }
    if (!pending.terminal) {
      return this.#hooks.violation(
        "stream-close-before-result",
        `Exec ${pending.id} stream closed before its result`,
      );
    }
    pending.streamClosed = true;
    this.#settle(pending);
  }

  #terminal(pending: PendingExec): void {
    pending.terminal = true;
    if (!pending.toolExec || !this.#hooks.waitForStreamClose) this.#settle(pending);
  }

  #settle(pending: PendingExec): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.resolve({
      id: pending.id,
      requestCase: pending.requestCase,
      result: pending.result,
      shell: pending.shell,
      thrown: pending.thrown,
      streamClosed: pending.streamClosed,
      localExecutionTimeMs: pending.localExecutionTimeMs,
      durationMs: this.#hooks.now() - pending.startedAt,
    });
  }

  #unknown(id: number): void {
    if (id < this.#next) {
      this.#hooks.violation("duplicate-reply", `exec ${id} answered after it was done`);
    } else {
      this.#hooks.violation(
        "unknown-reply-id",
        `exec reply names id ${id}, which was never issued`,
      );
    }
  }

  /** The first exec not settled and silent for `limit` ms, as the rule it breaks. */
  firstExpired(now: number, limit: number): { rule: RuleName; message: string } | undefined {
    for (const exec of this.#execs.values()) {
      if (exec.settled || now - exec.lastActivity < limit) continue;
      const rule: RuleName = exec.terminal ? "stream-close-missing" : "reply-deadline-exceeded";
      const what = exec.terminal ? "got no stream_close" : "was not answered";
      return { rule, message: `Exec ${exec.id} (${exec.requestCase}) ${what} within ${limit} ms` };
    }
    return undefined;
  }

  /** Rejects every exec not settled with `error` and forgets them all. */
  abortAll(error: Error): void {
    for (const exec of this.#execs.values()) if (!exec.settled) exec.reject(error);
    this.#execs.clear();
  }
}

function emptyShell(): ShellOutcome {
  return {
    stdout: "",
    stderr: "",
    terminal: undefined,
    exitCode: undefined,
    aborted: false,
    shellResult: undefined,
    exitExecutionTimeMs: undefined,
  };
}
