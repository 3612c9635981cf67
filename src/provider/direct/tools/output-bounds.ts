/**
 * Host tool results can be huge (a `cat` of a log, a generated file). Cursor's own
 * client keeps shell output under its file-output threshold (40,000 bytes) and marks
 * partial reads; sending tens of megabytes in one `BidiAppend` stalls the Run. Results
 * are cut to a head and a tail around a visible marker that states the full size.
 *
 * @module
 */

/** Cursor's shell file-output threshold (`ShellArgs.file_output_threshold_bytes`). */
export const SHELL_OUTPUT_LIMIT = 40_000;

/** The limit for other text results (reads, MCP tools, subagents). */
export const TEXT_RESULT_LIMIT = 256 * 1024;

/** A result text after bounding. */
export interface BoundedText {
  readonly text: string;
  /** Part of the text was left out. */
  readonly truncated: boolean;
  /** The full text's size in UTF-8 bytes. */
  readonly totalBytes: number;
}

/**
 * Keeps a text under `limit` UTF-8 bytes: its head and tail around a marker with the
 * full size. Linear in the text, no copy of the whole.
 *
 * @param text The result text.
 * @param limit The most bytes to keep.
 * @returns The kept text, whether it was cut, and the full size.
 *
 * @example
 * ```ts
 * import { boundText } from "./output-bounds.ts";
 *
 * const cut = boundText("x".repeat(100_000), 1000);
 * console.assert(cut.truncated && cut.text.includes("100000 bytes") && cut.text.length < 1200);
 * ```
 */
export function boundText(text: string, limit: number): BoundedText {
  if (text.length * 3 <= limit) return { text, truncated: false, totalBytes: utf8Length(text) };
  const totalBytes = utf8Length(text);
  if (totalBytes <= limit) return { text, truncated: false, totalBytes };
  // Characters are at most 3 UTF-8 bytes per UTF-16 unit: a third of the limit per side
  // keeps the result under it whatever the script.
  const side = Math.max(0, Math.floor(limit / 6));
  const head = text.slice(0, cutPoint(text, side));
  const tail = text.slice(cutPoint(text, text.length - side));
  const omitted = totalBytes - utf8Length(head) - utf8Length(tail);
  const marker =
    `\n\n[… output truncated: ${omitted} of ${totalBytes} bytes omitted (result too large) …]\n\n`;
  return { text: head + marker + tail, truncated: true, totalBytes };
}

/** An index that does not split a surrogate pair. */
function cutPoint(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}

const CHUNK = 64 * 1024;

/**
 * The UTF-8 size of a string without encoding it whole: it is encoded in 64 KiB pieces
 * into one reused buffer (the runtime's encoder is many times faster than scanning the
 * string for non-ASCII characters first).
 *
 * @param text The string.
 * @returns Its size in bytes.
 */
export function utf8Length(text: string): number {
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(CHUNK * 3 + 4);
  let bytes = 0;
  for (let at = 0; at < text.length;) {
    const end = cutPoint(text, Math.min(text.length, at + CHUNK));
    bytes += encoder.encodeInto(text.slice(at, end), buffer).written;
    at = end;
  }
  return bytes;
}
