/**
 * A continued Run re-issues the batch of tool calls the host already answered (ADR 190):
 * each re-issued exec is matched to the host's stored result by Cursor's tool call id, and
 * the whole batch is answered once every call came. Anything else the Run does first (text,
 * thinking, an interaction, the turn's end, another tool) means the model went on instead,
 * and the continuation gives up so the step is rebuilt from host history.
 *
 * @module
 */
import type { LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import { fromBinary } from "@bufbuild/protobuf";
import { ConversationStateStructureSchema } from "../../../gen/agent/v1/conversation_state_pb.ts";
import { CursorError } from "../../../core/cursor-error.ts";
import type { RunEvent } from "../../../agent-run/run-events.ts";
import type { ResultMedia } from "../tools/media/tool-images.ts";

/** How long to wait for the rest of a re-issued batch once its first exec came. */
export const REISSUE_WINDOW_MS = 1000;

/** Events that show the model went on instead of re-issuing the stored batch. */
const REISSUE_BREAKERS: ReadonlySet<RunEvent["type"]> = new Set([
  "text-delta",
  "thinking-delta",
  "turn-ended",
  "interaction",
]);

/**
 * The host's results for a batch Cursor re-issues on a continued Run, by Cursor's tool
 * call id, and what their delivery takes.
 */
export interface ReissueBatch {
  /** Host results by Cursor's tool call id (each stored call's result). */
  readonly results: Map<string, LanguageModelV3ToolResultPart>;
  readonly missingReason: string;
  readonly reminder: { readonly text: string; readonly sent: () => void } | undefined;
  readonly media: ResultMedia | undefined;
  /** Called once every call of the batch was answered. */
  readonly answered: (warnings: readonly string[]) => void;
}

/**
 * The re-issued batch a turn waits for, and what came of it.
 *
 * @example
 * ```ts
 * import { ReissueWatch } from "./reissue-watch.ts";
 *
 * const watch = new ReissueWatch();
 * const result = { type: "tool-result", toolCallId: "h1", toolName: "read", output: { type: "text", value: "x" } } as const;
 * watch.expect({ results: new Map([["c1", result]]), missingReason: "", reminder: undefined, media: undefined, answered: () => {} });
 * console.assert(watch.awaiting && !watch.started);
 * console.assert(watch.resultFor("c1") === result);
 * console.assert(watch.arrived(result)?.results.length === 1);
 * console.assert(!watch.awaiting);
 * ```
 */
export class ReissueWatch {
  #batch: ReissueBatch | undefined;
  #mismatch: string | undefined;
  readonly #arrived: LanguageModelV3ToolResultPart[] = [];
  /** Cursor's call ids of the batch still to come. */
  readonly #waiting = new Map<LanguageModelV3ToolResultPart, string>();

  /**
   * Answers the batch Cursor re-issues on this Run with the host's results instead of
   * emitting new host tool calls.
   *
   * @param batch The host's results by Cursor's tool call id (an empty batch waits for nothing).
   */
  expect(batch: ReissueBatch): void {
    this.#batch = batch.results.size === 0 ? undefined : batch;
  }

  /** Some call of the re-issued batch has not come yet. */
  get awaiting(): boolean {
    return this.#batch !== undefined;
  }

  /** Some call of the re-issued batch came, and some has not yet. */
  get started(): boolean {
    return this.#batch !== undefined && this.#arrived.length > 0;
  }

  /**
   * One event of the Run while the batch is awaited: text, thinking, an interaction or the
   * turn's end means the model went on instead of re-issuing it.
   *
   * @throws {CursorError} `interrupted` for such an event.
   */
  observe(type: RunEvent["type"]): void {
    if (this.#batch !== undefined && REISSUE_BREAKERS.has(type)) this.giveUp(`model-${type}`);
  }

  /** Why the re-issued batch did not match the stored one, once it did not. */
  get mismatch(): string | undefined {
    return this.#mismatch;
  }

  /**
   * The host's stored result a re-issued exec stands for.
   *
   * @param cursorCallId Cursor's tool call id on the exec, if it has one.
   * @returns The stored result.
   * @throws {CursorError} `interrupted` when the exec is not one of the batch.
   */
  resultFor(cursorCallId: string | undefined): LanguageModelV3ToolResultPart {
    const result = cursorCallId === undefined ? undefined : this.#batch?.results.get(cursorCallId);
    if (cursorCallId === undefined || result === undefined) {
      return this.giveUp(`unknown-call-${cursorCallId ?? "without-id"}`);
    }
    this.#waiting.set(result, cursorCallId);
    return result;
  }

  /**
   * One call of the batch came (after {@link resultFor} gave its result).
   *
   * @returns The batch and its results in arrival order once the whole batch came.
   */
  arrived(
    result: LanguageModelV3ToolResultPart,
  ):
    | { readonly batch: ReissueBatch; readonly results: LanguageModelV3ToolResultPart[] }
    | undefined {
    const batch = this.#batch;
    const cursorCallId = this.#waiting.get(result);
    if (batch === undefined || cursorCallId === undefined) return undefined;
    this.#waiting.delete(result);
    batch.results.delete(cursorCallId);
    this.#arrived.push(result);
    if (batch.results.size > 0) return undefined;
    this.#batch = undefined;
    return { batch, results: this.#arrived.splice(0) };
  }

  /**
   * The Run did not re-issue the stored batch: the continuation gives up (not retried, the
   * caller rebuilds the step from host history).
   *
   * @param reason A runbook token (`unknown-call-<id>`, `other-tool-<id>`, `model-called`, …).
   * @throws {CursorError} `interrupted`, always.
   */
  giveUp(reason: string): never {
    this.#mismatch = reason;
    this.#batch = undefined;
    throw new CursorError(
      "interrupted",
      `Cursor did not re-issue the stored tool batch (${reason})`,
      { retryable: false },
    );
  }
}

/**
 * How many pending tool calls a checkpoint lists: a checkpoint that lists some can carry
 * its step's batch to a continued Run.
 *
 * @param bytes The checkpoint's `ConversationStateStructure` bytes.
 * @returns The count (0 when the bytes cannot be read).
 */
export function pendingToolCallsOf(bytes: Uint8Array): number {
  try {
    return fromBinary(ConversationStateStructureSchema, bytes).pendingToolCalls.length;
  } catch {
    return 0;
  }
}
