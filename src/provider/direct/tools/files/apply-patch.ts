/**
 * Cursor writes whole files; hosts that offer only `apply_patch` (OpenCode does for GPT
 * models) need patch text. A write of a file whose earlier bytes are known becomes a
 * targeted update hunk: context and removed lines carry their real endings (`\r`
 * included), so the host matches them exactly and leaves every other line's bytes alone;
 * added lines take the ending of the line they replace. Otherwise an add.
 *
 * @module
 */
import type { RawFile } from "./raw-file.ts";
import { type ChangePlan, planChange, rawLines } from "./targeted-edit.ts";

/** Lines of context around a hunk. */
const CONTEXT = 3;

/**
 * Builds `apply_patch` text for writing `next` to `path`.
 *
 * @param path The file path.
 * @param next The new full content Cursor asked for.
 * @param previous The file's bytes before (or display text as LF-only), when known.
 * @returns The patch text.
 *
 * @example
 * ```ts
 * import { patchForWrite } from "./apply-patch.ts";
 *
 * const patch = patchForWrite("a.txt", "one\nTWO\nthree\n", { bom: false, text: "one\r\ntwo\r\nthree\r\n" });
 * console.assert(patch.includes("*** Update File: a.txt") && patch.includes("-two\r") && patch.includes("+TWO\r"));
 * ```
 */
export function patchForWrite(path: string, next: string, previous: RawFile | undefined): string {
  if (previous === undefined) {
    const lines = rawLines(next.startsWith("\uFEFF") ? next.slice(1) : next);
    return [
      "*** Begin Patch",
      `*** Add File: ${path}`,
      ...lines.map((l) => `+${patchLine(l)}`),
      "*** End Patch",
    ].join("\n");
  }
  return patchForPlan(path, planChange(previous, next));
}

/**
 * The update patch for a planned change.
 *
 * @param path The file path.
 * @param plan The change.
 * @returns The patch text.
 */
export function patchForPlan(path: string, plan: ChangePlan): string {
  const { old, start, removed, added } = plan;
  if (removed.length === 0 && added.length === 0) {
    return ["*** Begin Patch", `*** Update File: ${path}`, "*** End Patch"].join("\n");
  }
  const endOld = start + removed.length;
  const hunk = [
    "@@",
    ...old.slice(Math.max(0, start - CONTEXT), start).map((l) => ` ${patchLine(l)}`),
    ...removed.map((l) => `-${patchLine(l)}`),
    ...added.map((l) => `+${patchLine(l)}`),
    ...old.slice(endOld, endOld + CONTEXT).map((l) => ` ${patchLine(l)}`),
  ];
  if (endOld >= old.length) hunk.push("*** End of File");
  return ["*** Begin Patch", `*** Update File: ${path}`, ...hunk, "*** End Patch"].join("\n");
}

/** A line as a patch carries it: the patch's own `\n` ends it, a CRLF keeps its `\r`. */
function patchLine(line: { body: string; eol: string }): string {
  return line.eol === "\r\n" ? `${line.body}\r` : line.body;
}
