/**
 * The client's conversation actions during a Run: a `cancel_action`, checked for fields
 * Cursor's client does not send and for arriving after `turn_ended`, and an async
 * AskQuestion answer (`async_ask_question_completion_action`), delivered to the tool call
 * waiting for it within the reply deadline.
 *
 * @module
 */
import type {
  AsyncAskQuestionCompletionAction,
  CancelAction,
} from "../../../gen/agent/v1/conversation_action_pb.ts";
import { LateCheck } from "../io/late-check.ts";
import { RunTerminated } from "../io/run-writer.ts";
import { answerText } from "../model/tools/tool-run.ts";
import type { RuleName } from "../observe/violations.ts";

/**
 * What is wrong with a `cancel_action`: a field other than #3, or its arrival after
 * `turn_ended`.
 *
 * @param action The action.
 * @param turnEnded Whether the Run has sent `turn_ended`.
 * @returns The problem, or `undefined` for a well-formed cancel.
 */
export function cancelProblem(action: CancelAction, turnEnded: boolean): string | undefined {
  const unknown = (action.$unknown ?? []).map((field) => field.no).filter((no) => no !== 3);
  if (unknown.length > 0) return `cancel_action carries unknown field(s) ${unknown.join(", ")}`;
  return turnEnded ? "cancel_action arrived after turn_ended" : undefined;
}

/** What async answers need from their Run. */
export interface AsyncAnswerHooks {
  readonly now: () => number;
  readonly deadlineMs: number;
  /** Whether the Run has ended. */
  readonly finished: () => boolean;
  /** A deadline passed; the Run must end with `deadline_exceeded`. */
  readonly timeout: (rule: RuleName, message: string) => void;
}

/** The tool calls of one Run waiting for an async AskQuestion answer. */
export class AsyncAnswers {
  readonly #hooks: AsyncAnswerHooks;
  readonly #waiters = new Map<string, (answer: string) => void>();

  constructor(hooks: AsyncAnswerHooks) {
    this.#hooks = hooks;
  }

  /**
   * Waits for the answer to a tool call's question.
   *
   * @param toolCallId The tool call that asked.
   * @returns The answer as the model quotes it; rejects when the Run ends first.
   */
  wait(toolCallId: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const started = this.#hooks.now();
      const late = new LateCheck(this.#hooks.deadlineMs);
      this.#waiters.set(toolCallId, resolve);
      const check = setInterval(() => {
        const now = this.#hooks.now();
        const expired = now - started > this.#hooks.deadlineMs;
        if (this.#hooks.finished()) {
          clearInterval(check);
          reject(new RunTerminated("Run ended"));
        } else if (!this.#waiters.has(toolCallId)) {
          clearInterval(check);
        } else if (late.confirmed(expired ? toolCallId : undefined, now)) {
          clearInterval(check);
          this.#hooks.timeout(
            "reply-deadline-exceeded",
            `Async answer for ${toolCallId} did not arrive in time`,
          );
        }
      }, 20);
    });
  }

  /** Delivers an `async_ask_question_completion_action` to the tool call waiting for it. */
  deliver(action: AsyncAskQuestionCompletionAction): void {
    const result = action.result?.result;
    const options = action.originalArgs?.questions[0]?.options.map((option) => option.label) ??
      [];
    const answer = result?.case === "success"
      ? answerText(result.value.answers, options)
      : result?.case ?? "no result";
    this.#waiters.get(action.originalToolCallId)?.(answer);
    this.#waiters.delete(action.originalToolCallId);
  }

  /** Forgets every waiter (the Run has ended). */
  clear(): void {
    this.#waiters.clear();
  }
}
