/**
 * Confirming that something is late before saying so. A process that stalled (a loaded
 * machine, a long garbage collection) runs its overdue timers before it reads what is
 * already waiting in its sockets, so the first check that finds a wait over its deadline
 * may be wrong: the answer may have arrived during the stall. A wait is reported late only
 * when a later check, some time on, still finds the same wait expired.
 *
 * @module
 */

/**
 * How long a wait found expired must stay expired before it is reported: a quarter of its
 * deadline, at most 250 ms, at least 1 ms.
 *
 * @param deadlineMs The deadline of the wait.
 * @returns The confirmation delay in ms.
 */
export function confirmationDelayMs(deadlineMs: number): number {
  return Math.max(1, Math.min(250, deadlineMs / 4));
}

/**
 * Tracks the expired wait a check found first, until a later check confirms it.
 *
 * @example
 * ```ts
 * import { LateCheck } from "./late-check.ts";
 *
 * const late = new LateCheck(300);
 * console.assert(late.confirmed("kv 1", 800) === false); // first seen: maybe a stall
 * console.assert(late.confirmed("kv 1", 900) === true); // still expired 100 ms on
 * console.assert(late.confirmed(undefined, 950) === false); // nothing expired any more
 * ```
 */
export class LateCheck {
  readonly #confirmMs: number;
  #seen: { readonly key: string; readonly since: number } | undefined;

  /** @param deadlineMs The deadline of the waits checked. */
  constructor(deadlineMs: number) {
    this.#confirmMs = confirmationDelayMs(deadlineMs);
  }

  /**
   * Whether the wait `key` (the one found expired now, or `undefined` when none is) was
   * already found expired by an earlier check at least the confirmation delay ago. A
   * different key starts over: each wait is confirmed on its own.
   *
   * @param key The expired wait found by this check, if any.
   * @param now The time of this check.
   * @returns Whether to report `key` as late now.
   */
  confirmed(key: string | undefined, now: number): boolean {
    if (key === undefined) {
      this.#seen = undefined;
      return false;
    }
    if (key !== this.#seen?.key) {
      this.#seen = { key, since: now };
      return false;
    }
    return now - this.#seen.since >= this.#confirmMs;
  }
}
