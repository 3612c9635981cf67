/**
 * Which checkpoint an interrupted turn may resume from, sans-IO. Cursor publishes
 * checkpoints during a Run; one received while no tool work is outstanding holds
 * everything the host has seen, so a new Run with `resume_action` and that checkpoint
 * continues the turn without repeating or losing work.
 *
 * A tool call is outstanding from its exec request, interaction query or started display
 * until Cursor reports its completion (`tool_call_completed` with the same call id): a
 * checkpoint received meanwhile (a staged one arriving late, or one published while a
 * delivered result drains) never becomes eligible, and a new outstanding call withdraws
 * the earlier eligible checkpoint (resuming from it would run the call again).
 * Display-only mirrors (the host's todo list) send nothing to Cursor and wait for
 * nothing. Checkpoints after `turn_ended` are terminal, not resume points.
 *
 * The tracker is carried from a failed attempt to the next one, so the latest eligible
 * checkpoint survives token renewal and a resumed attempt that failed before any frame.
 * Resumed attempts that received frames but saved no eligible checkpoint are counted:
 * after two in a row the turn ends.
 *
 * @module
 */
import type { RunEvent } from "../agent-run/run-events.ts";

/** Resumed attempts without a new eligible checkpoint that end the turn. */
export const RESUMES_WITHOUT_CHECKPOINT_LIMIT = 2;

/**
 * Tracks the latest resume-eligible checkpoint of a turn.
 *
 * @example
 * ```ts
 * import { CheckpointEligibility } from "./checkpoint-eligibility.ts";
 *
 * const tracker = new CheckpointEligibility();
 * const checkpoint = (n: number) => ({
 *   type: "checkpoint" as const, bytes: new Uint8Array([n]), tokenDetails: undefined, todos: undefined,
 * });
 * tracker.observe({ type: "tool-display", phase: "started", callId: "c1", tool: "shell" });
 * tracker.observe(checkpoint(1));
 * console.assert(tracker.eligible === undefined, "the call is outstanding");
 * tracker.observe({ type: "tool-display", phase: "completed", callId: "c1", tool: "shell" });
 * tracker.observe(checkpoint(2));
 * console.assert(tracker.eligible?.[0] === 2);
 * ```
 */
export class CheckpointEligibility {
  #eligible: Uint8Array | undefined;
  readonly #outstanding = new Set<string>();
  /** Stateful requests without a call id: nothing can acknowledge them in this Run. */
  #unkeyed = 0;
  #terminal = false;
  #events = 0;
  #savedThisAttempt = false;
  #resumedAttempt = false;
  #resumesWithoutCheckpoint = 0;
  #onEligible: (() => void) | undefined;

  /**
   * Calls `listener` whenever a checkpoint becomes the eligible one (replacing any earlier
   * listener).
   *
   * @param listener The listener.
   */
  watchEligible(listener: () => void): void {
    this.#onEligible = listener;
  }

  /** The latest eligible checkpoint's bytes, if any. */
  get eligible(): Uint8Array | undefined {
    return this.#eligible;
  }

  /** Events seen on the current attempt (0: the attempt failed untouched). */
  get events(): number {
    return this.#events;
  }

  /** Resumed attempts in a row that received frames but saved no eligible checkpoint. */
  get resumesWithoutCheckpoint(): number {
    return this.#resumesWithoutCheckpoint;
  }

  /**
   * Records one event of the Run.
   *
   * @param event The Run event.
   */
  observe(event: RunEvent): void {
    this.#events++;
    switch (event.type) {
      case "exec":
        this.#open(callIdOf(event.exec.message.value));
        return;
      case "interaction":
        this.#open(callIdOf(event.query.query.value));
        return;
      case "tool-display":
        if (event.phase === "started") this.#open(event.callId);
        else this.#outstanding.delete(event.callId);
        return;
      case "turn-ended":
        this.#terminal = true;
        this.#eligible = undefined;
        return;
      case "checkpoint":
        if (this.#terminal || this.#outstanding.size > 0 || this.#unkeyed > 0) return;
        if (event.bytes.length === 0) return;
        this.#eligible = event.bytes;
        this.#savedThisAttempt = true;
        this.#resumesWithoutCheckpoint = 0;
        this.#onEligible?.();
        return;
      default:
        return;
    }
  }

  /**
   * Whether the failed attempt may be resumed: an eligible checkpoint exists, and fewer
   * than two resumed attempts in a row streamed without saving one (this failure counted).
   *
   * @returns Whether to resume.
   */
  settleFailure(): boolean {
    if (this.#resumedAttempt && this.#events > 0 && !this.#savedThisAttempt) {
      this.#resumesWithoutCheckpoint++;
    }
    return this.#eligible !== undefined &&
      this.#resumesWithoutCheckpoint < RESUMES_WITHOUT_CHECKPOINT_LIMIT;
  }

  /**
   * The tracker of the resumed attempt: the eligible checkpoint and the count carry over;
   * nothing is outstanding (the resumed Run starts from the checkpoint).
   *
   * @returns A new tracker.
   */
  carry(): CheckpointEligibility {
    const next = new CheckpointEligibility();
    next.#eligible = this.#eligible;
    next.#resumesWithoutCheckpoint = this.#resumesWithoutCheckpoint;
    next.#resumedAttempt = true;
    return next;
  }

  #open(callId: string | undefined): void {
    this.#eligible = undefined;
    if (callId === undefined) this.#unkeyed++;
    else this.#outstanding.add(callId);
  }
}

/**
 * The Cursor tool call id an exec or query carries (on it or its `args`), when it has one.
 *
 * @param value The exec's or query's message value.
 * @returns The tool call id.
 *
 * @example
 * ```ts
 * import { callIdOf } from "./checkpoint-eligibility.ts";
 *
 * console.assert(callIdOf({ args: { toolCallId: "call_1" } }) === "call_1");
 * console.assert(callIdOf({ toolCallId: "" }) === undefined);
 * ```
 */
export function callIdOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if ("toolCallId" in value && typeof value.toolCallId === "string" && value.toolCallId !== "") {
    return value.toolCallId;
  }
  return "args" in value ? callIdOf(value.args) : undefined;
}
