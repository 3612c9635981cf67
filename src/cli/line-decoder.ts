/**
 * A sans-IO decoder for newline-delimited output: feed it bytes as they arrive,
 * get back the complete lines. UTF-8 split across chunks, CRLF endings and a final
 * line without a newline are all handled; an overlong line is dropped and counted
 * instead of growing the buffer without bound.
 *
 * @module
 */

/** Default limit on one line: 64 MiB of text (a tool result can carry whole files). */
export const DEFAULT_MAX_LINE_CHARS = 64 * 1024 * 1024;

/** Feeds bytes in, takes lines out. */
export interface LineDecoder {
  /**
   * Adds bytes and returns the lines they complete (without line endings).
   *
   * @param chunk Bytes from the stream.
   * @returns Complete lines, in order.
   */
  push(chunk: Uint8Array): string[];
  /**
   * Ends the input.
   *
   * @returns The last line when the input did not end with a newline.
   */
  end(): string[];
  /** How many overlong lines were dropped so far. */
  readonly droppedLines: number;
}

/**
 * Creates a line decoder.
 *
 * @param options `maxLineChars` bounds one line (default {@link DEFAULT_MAX_LINE_CHARS}).
 * @returns A fresh decoder.
 *
 * @example
 * ```ts
 * import { createLineDecoder } from "./line-decoder.ts";
 *
 * const decoder = createLineDecoder();
 * const bytes = new TextEncoder().encode('{"a":1}\r\n{"b"');
 * console.assert(decoder.push(bytes)[0] === '{"a":1}');
 * console.assert(decoder.push(new TextEncoder().encode(":2}\n"))[0] === '{"b":2}');
 * ```
 */
export function createLineDecoder(options: { readonly maxLineChars?: number } = {}): LineDecoder {
  const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const textDecoder = new TextDecoder("utf-8");
  let buffer = "";
  let discarding = false;
  let dropped = 0;

  const finish = (line: string): string => (line.endsWith("\r") ? line.slice(0, -1) : line);

  const take = (text: string): string[] => {
    const lines: string[] = [];
    let start = 0;
    for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", start)) {
      const piece = text.slice(start, index);
      start = index + 1;
      if (discarding) discarding = false;
      else lines.push(finish(buffer + piece));
      buffer = "";
    }
    const rest = text.slice(start);
    if (discarding) return lines;
    if (buffer.length + rest.length > maxLineChars) {
      discarding = true;
      dropped++;
      buffer = "";
    } else {
      buffer += rest;
    }
    return lines;
  };

  return {
    push(chunk) {
      return take(textDecoder.decode(chunk, { stream: true }));
    },
    end() {
      const lines = take(textDecoder.decode());
      if (!discarding && buffer.length > 0) lines.push(finish(buffer));
      buffer = "";
      discarding = false;
      return lines;
    },
    get droppedLines() {
      return dropped;
    },
  };
}
