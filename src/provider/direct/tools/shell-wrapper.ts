/**
 * Cursor needs a command's real exit status; a host shell tool returns only its output
 * text. The command is wrapped so it prints a marker with its exit status after its
 * output; the marker is found, read and removed without trimming the command's own
 * output. A host timeout (no marker, the host's timeout notice) exits 124.
 *
 * @module
 */

/** The exit status Cursor expects for a hard timeout. */
export const TIMEOUT_EXIT_CODE = 124;

const MARKER_PREFIX = "__CURSOR_EXEC_EXIT_";

/**
 * Wraps a command so its exit status follows its output.
 *
 * @param command The command Cursor asked for.
 * @param nonce A unique token for this exec (letters and digits).
 * @returns The command to give the host's shell tool.
 *
 * @example
 * ```ts
 * import { parseWrappedOutput, wrapCommand } from "./shell-wrapper.ts";
 *
 * const wrapped = wrapCommand("false", "n1");
 * console.assert(wrapped.includes("false"));
 * console.assert(parseWrappedOutput("oops\n__CURSOR_EXEC_EXIT_n1=3__\n", "n1").exitCode === 3);
 * ```
 */
export function wrapCommand(command: string, nonce: string): string {
  const marker = `${MARKER_PREFIX}${nonce}`;
  // A subshell, so a command that calls `exit` still reaches the marker.
  return `(\n${command}\n); __cursor_exit=$?; printf '\\n${marker}=%s__\\n' "$__cursor_exit"`;
}

/** What a wrapped command's output says. */
export interface ParsedShellOutput {
  /** The command's output, byte for byte, without the marker. */
  readonly output: string;
  /** The exit status; 124 for a host timeout; `undefined` when unknown (aborted, no marker). */
  readonly exitCode: number | undefined;
  /** The host ended the command at its timeout. */
  readonly timedOut: boolean;
}

const HOST_TIMEOUT_NOTICES = [
  /shell tool terminated command after exceeding timeout/i,
  /Command exceeded timeout of \d+ ms/i,
];

/**
 * Reads a wrapped command's output.
 *
 * @param text The host shell tool's output.
 * @param nonce The nonce the command was wrapped with.
 * @returns The output without the marker, and the exit status.
 */
export function parseWrappedOutput(text: string, nonce: string): ParsedShellOutput {
  // The marker ends the output: look for it from the end, not through the whole text.
  const at = text.lastIndexOf(`\n${MARKER_PREFIX}${nonce}=`);
  const pattern = new RegExp(`^\\n${MARKER_PREFIX}${nonce}=(\\d+)__\\n?`);
  const match = at === -1 ? null : pattern.exec(text.slice(at, at + 80 + nonce.length));
  if (match) {
    const rest = text.slice(at + match[0].length);
    const output = rest === "" ? text.slice(0, at) : text.slice(0, at) + rest;
    return { output, exitCode: Number(match[1]), timedOut: false };
  }
  const timedOut = HOST_TIMEOUT_NOTICES.some((notice) => notice.test(text));
  return { output: text, exitCode: timedOut ? TIMEOUT_EXIT_CODE : undefined, timedOut };
}
