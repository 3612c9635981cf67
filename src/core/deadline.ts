/**
 * Deadlines held by a timer the code owns. A signal from `AbortSignal.timeout` that
 * nobody references can be garbage-collected before it fires, and a callee may ignore
 * its signal altogether; a {@link Deadline} keeps its timer alive until cleared and
 * {@link Deadline.race} settles on time whatever the callee does.
 *
 * @module
 */

/** A running deadline: a signal for the work and a race that rejects on time. */
export interface Deadline {
  /** Aborts with the deadline's reason when it passes, or with the parent's reason. */
  readonly signal: AbortSignal;
  /** Settles like `work`, or rejects with the abort reason as soon as `signal` aborts. */
  race<T>(work: Promise<T>): Promise<T>;
  /** Stops the timer and detaches from the parent signal (idempotent). */
  clear(): void;
}

/**
 * Starts a deadline of `ms` milliseconds.
 *
 * @param ms How long the work may take.
 * @param reason Builds the abort reason when the deadline passes (a timeout error).
 * @param parent A caller's signal that aborts the work too.
 * @returns The running {@link Deadline}; call `clear()` when the work is done.
 *
 * @example
 * ```ts
 * import { startDeadline } from "./deadline.ts";
 *
 * const deadline = startDeadline(10, () => new Error("Too slow"));
 * const outcome = await deadline.race(new Promise(() => {})).catch((error) => error.message);
 * deadline.clear();
 * console.assert(outcome === "Too slow");
 * ```
 */
export function startDeadline(ms: number, reason: () => unknown, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  const fromParent = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", fromParent, { once: true });
  const signal = controller.signal;
  return {
    signal,
    race<T>(work: Promise<T>): Promise<T> {
      if (signal.aborted) {
        work.catch(() => {});
        return Promise.reject(signal.reason);
      }
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
      });
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", fromParent);
    },
  };
}
