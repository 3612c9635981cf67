/**
 * Cursor wants raw file text from a read (a wrapper or line numbers would be echoed into
 * later writes); host read tools decorate it. This recovers the raw text from the forms
 * OpenCode's read tool produces and passes anything else through unchanged.
 *
 * @module
 */

/** A read result recovered from host output. */
export interface RawRead {
  readonly content: string;
  /** The host showed only part of the file. */
  readonly truncated: boolean;
  /** The total line count, when the host said. */
  readonly totalLines: number | undefined;
}

/**
 * Strips a host read tool's decoration.
 *
 * @param text The host read tool's output.
 * @returns The file text, whether it was cut, and the total line count if known.
 *
 * @example
 * ```ts
 * import { rawReadContent } from "./read-output.ts";
 *
 * const text = "<path>/a.txt</path>\n<type>file</type>\n<content>\n1: hello\n2: world\n\n(End of file - total 2 lines)\n</content>";
 * console.assert(rawReadContent(text).content === "hello\nworld\n");
 * ```
 */
export function rawReadContent(text: string): RawRead {
  const inner = /<content>\n?([\s\S]*?)\n?<\/content>/.exec(text)?.[1] ?? text;
  const lines = inner.split("\n");
  const footer = lines.findLastIndex((line) =>
    /^\((End of file - total \d+ lines|Showing lines .*|File has more lines.*)\)$/.test(line.trim())
  );
  const totalMatch = footer >= 0 ? /total (\d+) lines/.exec(lines[footer] ?? "") : null;
  const body = footer >= 0 ? lines.slice(0, footer) : lines;
  while (body.length > 0 && body[body.length - 1] === "" && footer >= 0) body.pop();
  const numbered = /^(\d+): ?([^\n]*)$|^(\d{5})\| ?([^\n]*)$/;
  if (body.length === 0 || !body.every((line) => numbered.test(line))) {
    return { content: text, truncated: false, totalLines: undefined };
  }
  const content = body.map((line) => {
    const m = numbered.exec(line);
    return m?.[2] ?? m?.[4] ?? "";
  }).join("\n");
  const complete = totalMatch !== null;
  return {
    content: complete ? `${content}\n` : content,
    truncated: footer >= 0 && !complete,
    totalLines: totalMatch ? Number(totalMatch[1]) : undefined,
  };
}
