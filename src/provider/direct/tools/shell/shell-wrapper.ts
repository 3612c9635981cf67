/**
 * Cursor needs a command's real exit status; a host shell tool returns only its output
 * text. The command is wrapped so it prints a marker with its exit status after its
 * output and then exits with that status (so the host, too, records the real status);
 * the marker is found, read and removed without trimming the command's own output.
 *
 * OpenCode 1.x ends a shell's output with a `<shell_metadata>` footer when it stopped the
 * command: a timeout notice, or "User aborted the command". The footer is the host's
 * record, not command output: it is removed, and says how the command ended. A host
 * timeout (no marker) exits 124; a user abort (no marker, OpenCode's null exit) stays an
 * abort, never a success. A command that finished while its timeout fired keeps its
 * marker's status.
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
  return `(\n${command}\n); __cursor_exit=$?; printf '\\n${marker}=%s__\\n' "$__cursor_exit"; exit "$__cursor_exit"`;
}

const WRAPPED = new RegExp(
  `^\\(\\n([\\s\\S]*)\\n\\); __cursor_exit=\\$\\?; printf '\\\\n${MARKER_PREFIX}[A-Za-z0-9]+=%s__\\\\n' "\\$__cursor_exit"; exit "\\$__cursor_exit"$`,
);

/**
 * The command Cursor asked for, from a command this module wrapped (any other text is
 * returned unchanged), so rebuilt history shows the model its own command, not the wrapper.
 *
 * @param command A shell tool's command as the host's history holds it.
 * @returns The command without the exit-status wrapper.
 *
 * @example
 * ```ts
 * import { unwrapCommand, wrapCommand } from "./shell-wrapper.ts";
 *
 * console.assert(unwrapCommand(wrapCommand("ls -la", "n1")) === "ls -la");
 * console.assert(unwrapCommand("echo hi") === "echo hi");
 * ```
 */
export function unwrapCommand(command: string): string {
  const match = WRAPPED.exec(command);
  return match === null ? command : match[1] ?? command;
}

/** What a wrapped command's output says. */
export interface ParsedShellOutput {
  /** The command's output, byte for byte, without the marker. */
  readonly output: string;
  /** The exit status; 124 for a host timeout; `undefined` when unknown (aborted, no marker). */
  readonly exitCode: number | undefined;
  /** The host ended the command at its timeout. */
  readonly timedOut: boolean;
  /** The person stopped the command in the host (OpenCode's null exit). */
  readonly userAborted: boolean;
}

/** OpenCode 1.x's footer after a stopped command's output. */
const FOOTER_OPENING = "\n\n<shell_metadata>\n";
const HOST_FOOTER = /\n\n<shell_metadata>\n([\s\S]*?)\n<\/shell_metadata>$/;
/** How much of an output's end may hold the host's footer, or the exit marker. */
const FOOTER_TAIL_CHARS = 64 * 1024;
/** How much of an output's end may hold a host timeout notice without a footer. */
const NOTICE_TAIL_CHARS = 4096;
const USER_ABORT_NOTICE = /^User aborted the command$/m;

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
  // The host's footer and notices end the output: only its last part is searched, so a
  // huge output is not scanned whole.
  const tailStart = Math.max(0, text.length - FOOTER_TAIL_CHARS);
  const opening = text.slice(tailStart).lastIndexOf(FOOTER_OPENING);
  const found = opening === -1 ? null : HOST_FOOTER.exec(text.slice(tailStart + opening));
  const footer = found === null
    ? null
    : { index: tailStart + opening + found.index, notes: found[1] ?? "" };
  const body = footer === null ? text : text.slice(0, footer.index);
  const notes = footer?.notes ?? "";
  // The marker ends the output: look for it in the output's last part only.
  const markerStart = Math.max(0, body.length - FOOTER_TAIL_CHARS);
  const markerAt = body.slice(markerStart).lastIndexOf(`\n${MARKER_PREFIX}${nonce}=`);
  const at = markerAt === -1 ? -1 : markerStart + markerAt;
  const pattern = new RegExp(`^\\n${MARKER_PREFIX}${nonce}=(\\d+)__\\n?`);
  const match = at === -1 ? null : pattern.exec(body.slice(at, at + 80 + nonce.length));
  if (match) {
    const rest = body.slice(at + match[0].length);
    const output = rest === "" ? body.slice(0, at) : body.slice(0, at) + rest;
    return { output, exitCode: Number(match[1]), timedOut: false, userAborted: false };
  }
  if (USER_ABORT_NOTICE.test(notes)) {
    return { output: body, exitCode: undefined, timedOut: false, userAborted: true };
  }
  const tail = text.slice(Math.max(0, text.length - NOTICE_TAIL_CHARS));
  const timedOut = HOST_TIMEOUT_NOTICES.some((notice) => notice.test(footer ? notes : tail));
  return {
    output: body,
    exitCode: timedOut ? TIMEOUT_EXIT_CODE : undefined,
    timedOut,
    userAborted: false,
  };
}

const ANY_MARKER = new RegExp(`\\n${MARKER_PREFIX}[A-Za-z0-9]+=(\\d+)__\\n?`, "g");

/**
 * A wrapped shell's output as a rebuilt history shows it: every exit marker removed (the
 * command's bytes kept), and a failed status said once, after the output, so a
 * conversation rebuilt from host history still knows the command failed.
 *
 * @param text A host shell tool's output, as the host's history holds it.
 * @returns The text for the rebuilt history (unchanged when it holds no marker).
 *
 * @example
 * ```ts
 * import { projectShellOutput } from "./shell-wrapper.ts";
 *
 * console.assert(projectShellOutput("oops\n__CURSOR_EXEC_EXIT_n1=2__\n") === "oops\n[exit status 2]");
 * console.assert(projectShellOutput("ok\n__CURSOR_EXEC_EXIT_n1=0__\n") === "ok");
 * ```
 */
export function projectShellOutput(text: string): string {
  let failed: string | undefined;
  // Markers end their outputs: only the text's last part is searched.
  const start = Math.max(0, text.length - FOOTER_TAIL_CHARS);
  const tail = text.slice(start);
  const projected = tail.replace(ANY_MARKER, (_marker, code: string) => {
    if (code !== "0") failed = code;
    return "";
  });
  if (projected === tail) return text;
  const output = text.slice(0, start) + projected;
  return failed === undefined ? output : `${output}\n[exit status ${failed}]`;
}
