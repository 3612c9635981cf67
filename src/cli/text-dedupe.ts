/**
 * De-duplication of the text the CLI repeats. With `--stream-partial-output` it
 * sends each chunk once as a delta, then again inside a segment "flush" before a
 * tool call, and once more in a final cumulative message. A tracker remembers what
 * was emitted (in the current segment and in the whole turn) and turns every event
 * into only the text that is new.
 *
 * @module
 */

/** Turns delta and snapshot events into new text only. */
export interface DeltaTracker {
  /**
   * Accepts one event's text.
   *
   * @param text The event's text.
   * @param isDelta Whether the event is a live delta (else a snapshot).
   * @returns The part of the text not emitted before (may be empty).
   */
  accept(text: string, isDelta: boolean): string;
  /** Starts a new segment (a tool call happened). */
  breakSegment(): void;
  /** Everything emitted so far in this turn. */
  readonly total: string;
}

/**
 * Creates a tracker for one channel (text or thinking) of one turn.
 *
 * @returns A fresh tracker.
 *
 * @example
 * ```ts
 * import { createDeltaTracker } from "./text-dedupe.ts";
 *
 * const tracker = createDeltaTracker();
 * console.assert(tracker.accept("Hel", true) === "Hel");
 * console.assert(tracker.accept("lo", true) === "lo");
 * console.assert(tracker.accept("Hello", false) === ""); // the flush repeats it
 * tracker.breakSegment();
 * console.assert(tracker.accept("Done.", true) === "Done.");
 * console.assert(tracker.accept("HelloDone.", false) === ""); // the cumulative final
 * ```
 */
export function createDeltaTracker(): DeltaTracker {
  let segment = "";
  let total = "";

  const emit = (text: string): string => {
    segment += text;
    total += text;
    return text;
  };

  // Order matters: extend the segment, then the turn (a cumulative final), then treat
  // a snapshot that opens a segment as new; only then look for repeats.
  const reconcile = (snapshot: string): string => {
    if (segment !== "" && snapshot.startsWith(segment)) return emit(snapshot.slice(segment.length));
    if (total !== "" && snapshot.startsWith(total)) return emit(snapshot.slice(total.length));
    const tail = tailAfterWhitespaceInsensitivePrefix(snapshot, total);
    if (tail !== undefined) return emit(tail);
    if (segment === "") return emit(snapshot);
    if (segment.startsWith(snapshot) || squash(total).includes(squash(snapshot))) return "";
    return emit(snapshot);
  };

  return {
    accept(text, isDelta) {
      if (text === "") return "";
      return isDelta ? emit(text) : reconcile(text);
    },
    breakSegment() {
      segment = "";
    },
    get total() {
      return total;
    },
  };
}

function squash(text: string): string {
  return text.replace(/\s+/g, "");
}

/**
 * When `snapshot` starts with `prefix` apart from whitespace, returns the rest of
 * `snapshot` after the prefix; otherwise `undefined`.
 */
function tailAfterWhitespaceInsensitivePrefix(
  snapshot: string,
  prefix: string,
): string | undefined {
  const wanted = squash(prefix);
  if (wanted === "" || !squash(snapshot).startsWith(wanted)) return undefined;
  let matched = 0;
  let index = 0;
  while (index < snapshot.length && matched < wanted.length) {
    if (!/\s/.test(snapshot.charAt(index))) matched++;
    index++;
  }
  return snapshot.slice(index);
}
