/**
 * Cursor writes whole files; hosts that offer only `apply_patch` (OpenCode does for GPT
 * models) need patch text. A write of a file whose earlier content is known becomes a
 * targeted update hunk (keeping the file's LF/CRLF convention); otherwise an add.
 *
 * @module
 */

/**
 * Builds `apply_patch` text for writing `next` to `path`.
 *
 * @param path The file path.
 * @param next The new full content Cursor asked for.
 * @param previous The file's content before, when known (from a read in the same edit).
 * @returns The patch text.
 *
 * @example
 * ```ts
 * import { patchForWrite } from "./apply-patch.ts";
 *
 * const patch = patchForWrite("a.txt", "one\nTWO\nthree\n", "one\ntwo\nthree\n");
 * console.assert(patch.includes("*** Update File: a.txt") && patch.includes("-two") && patch.includes("+TWO"));
 * ```
 */
export function patchForWrite(path: string, next: string, previous: string | undefined): string {
  if (previous === undefined) {
    const lines = splitLines(next);
    return [
      "*** Begin Patch",
      `*** Add File: ${path}`,
      ...lines.map((l) => `+${l}`),
      "*** End Patch",
    ].join("\n");
  }
  const crlf = previous.includes("\r\n");
  const oldLines = splitLines(previous.replaceAll("\r\n", "\n"));
  const newLines = splitLines(next.replaceAll("\r\n", "\n"));
  let start = 0;
  while (
    start < oldLines.length && start < newLines.length && oldLines[start] === newLines[start]
  ) start++;
  let endOld = oldLines.length;
  let endNew = newLines.length;
  while (endOld > start && endNew > start && oldLines[endOld - 1] === newLines[endNew - 1]) {
    endOld--;
    endNew--;
  }
  const eol = crlf ? "\r" : "";
  const before = oldLines.slice(Math.max(0, start - 3), start).map((l) => ` ${l}${eol}`);
  const after = oldLines.slice(endOld, endOld + 3).map((l) => ` ${l}${eol}`);
  const removed = oldLines.slice(start, endOld).map((l) => `-${l}${eol}`);
  const added = newLines.slice(start, endNew).map((l) => `+${l}${eol}`);
  if (removed.length === 0 && added.length === 0) {
    return ["*** Begin Patch", `*** Update File: ${path}`, "*** End Patch"].join("\n");
  }
  const hunk = ["@@", ...before, ...removed, ...added, ...after];
  if (endOld === oldLines.length) hunk.push("*** End of File");
  return ["*** Begin Patch", `*** Update File: ${path}`, ...hunk, "*** End Patch"].join("\n");
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
