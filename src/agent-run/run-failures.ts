/**
 * The errors a Run ends with when it stops early, and whether a retry may replay it: a
 * Run that showed nothing yet is replay-safe, one that showed output is not (the person
 * would see it twice).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

/**
 * The stream ended before `turn_ended`.
 *
 * @param visibleOutput Whether the Run showed output already.
 * @param message What ended it.
 */
export function interruptedError(visibleOutput: boolean, message: string): CursorError {
  return new CursorError("interrupted", message, {
    retryable: true,
    replaySafe: !visibleOutput,
  });
}

/** The agent host sent HTTP/2 GOAWAY before the Run showed anything. */
export function goneAwayError(): CursorError {
  return new CursorError(
    "network",
    "The agent host is closing the connection (HTTP/2 GOAWAY) and the Run had shown nothing yet",
    { retryable: true, replaySafe: true },
  );
}

/**
 * No inbound frame for `idleMs` while the Run was active.
 *
 * @param idleMs The idle limit that passed.
 * @param visibleOutput Whether the Run showed output already.
 */
export function silentError(idleMs: number, visibleOutput: boolean): CursorError {
  return new CursorError(
    "timeout",
    `No frame from Cursor for ${idleMs / 1000} s while the Run was active`,
    { retryable: true, replaySafe: !visibleOutput },
  );
}

/**
 * The error, no longer replay-safe once the Run showed output.
 *
 * @param visibleOutput Whether the Run showed output already.
 * @param error The error the Run failed with.
 */
export function withReplaySafety(visibleOutput: boolean, error: CursorError): CursorError {
  if (!error.replaySafe || !visibleOutput) return error;
  return new CursorError(error.code, error.message, {
    retryable: error.retryable,
    replaySafe: false,
    retryAfterMs: error.retryAfterMs,
    connectCode: error.connectCode,
    httpStatus: error.httpStatus,
    detail: error.detail,
    cause: error.cause,
  });
}
