/**
 * Replay safety of an interrupted turn, sans-IO: which Run events make replaying the turn
 * on a new Run unsafe, and how many replays a turn may still make.
 *
 * A turn that streamed nothing but text or reasoning, and saved no new checkpoint, can be
 * replayed: Cursor holds nothing of it and the host saw only text the replay repeats. A
 * tool display row that was announced but never started closes without execution; an exec
 * request, a started tool, an interaction or a new checkpoint is stateful (a replay barrier).
 *
 * @module
 */
import type { RetryKind } from "./retry-budget.ts";
import type { RunEvent } from "../agent-run/run-events.ts";

/** Why a turn can no longer be replayed. */
export type ReplayBarrier = "exec" | "tool-started" | "checkpoint" | "turn-ended";

/**
 * Watches one Run's events for replay barriers.
 *
 * @example
 * ```ts
 * import { ReplayGuard } from "./recovery-guard.ts";
 *
 * const guard = new ReplayGuard();
 * guard.observe({ type: "text-delta", text: "Hi", serverNotice: false });
 * console.assert(guard.barrier === undefined);
 * guard.observe({ type: "tool-display", phase: "started", callId: "c", tool: "shell" });
 * console.assert(guard.barrier === "tool-started");
 * ```
 */
export class ReplayGuard {
  #barrier: ReplayBarrier | undefined;
  #checkpoints = 0;

  /** The first barrier seen, if any. */
  get barrier(): ReplayBarrier | undefined {
    return this.#barrier;
  }

  /** Checkpoints seen so far. */
  get checkpoints(): number {
    return this.#checkpoints;
  }

  /**
   * Records one event.
   *
   * @param event The Run event.
   */
  observe(event: RunEvent): void {
    if (event.type === "checkpoint") this.#checkpoints++;
    this.#barrier ??= barrierOf(event);
  }
}

function barrierOf(event: RunEvent): ReplayBarrier | undefined {
  switch (event.type) {
    case "exec":
      return "exec";
    case "tool-display":
      return event.phase === "started" ? "tool-started" : undefined;
    case "checkpoint":
      return "checkpoint";
    case "turn-ended":
      return "turn-ended";
    default:
      return undefined;
  }
}

/**
 * How many more replays a turn may make. The shared retry budget implements it; until a
 * turn is given one, {@link createTurnAllowance} keeps Cursor CLI's per-turn limits.
 */
export interface RetryAllowance {
  /**
   * Takes one retry of this kind (`retryKindOf` in `retry-budget.ts` classifies failures).
   *
   * @returns Whether the retry is allowed.
   */
  take(kind: RetryKind): boolean;
  /**
   * Records semantic progress (new text, reasoning or a saved checkpoint since the last
   * failure): the 180 s window of consecutive retries without progress starts again.
   */
  progressed?(): void;
}

/**
 * A per-turn allowance: 10 transport and 3 server retries (no limit when `endless`).
 *
 * @param options Limits; `endless` bypasses counts (`CURSOR_ENDLESS_RETRIES`).
 * @returns The allowance.
 *
 * @example
 * ```ts
 * import { createTurnAllowance } from "./recovery-guard.ts";
 *
 * const allowance = createTurnAllowance({ server: 1 });
 * console.assert(allowance.take("server") && !allowance.take("server"));
 * console.assert(allowance.take("transport"));
 * ```
 */
export function createTurnAllowance(
  options: { transport?: number; server?: number; endless?: boolean } = {},
): RetryAllowance {
  const left = { transport: options.transport ?? 10, server: options.server ?? 3 };
  return {
    take(kind) {
      if (options.endless === true) return true;
      if (left[kind] <= 0) return false;
      left[kind]--;
      return true;
    },
  };
}

/**
 * The longest server-requested wait a replay makes inline; a longer `retryAfterMs` goes to
 * the host with the error (it owns long waits and shows them).
 */
export const MAX_INLINE_WAIT_MS = 500;

/**
 * The wait before replay `attempt` (0-based): the server's `retryAfterMs` when it gave one
 * (at most a minute), else nothing for the first replay (a broken connection is the usual
 * cause and the replay opens a new one) and `500·2^(attempt-1)` ms after that, at most 2 s.
 *
 * @param attempt How many replays came before.
 * @param retryAfterMs The server's requested wait, if any.
 * @returns Milliseconds to wait.
 *
 * @example
 * ```ts
 * import { replayDelayMs } from "./recovery-guard.ts";
 *
 * console.assert(replayDelayMs(0, undefined) === 0);
 * console.assert(replayDelayMs(2, undefined) === 1000);
 * console.assert(replayDelayMs(0, 1500) === 1500);
 * ```
 */
export function replayDelayMs(attempt: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), 60_000);
  if (attempt === 0) return 0;
  return Math.min(500 * 2 ** (attempt - 1), 2_000);
}
