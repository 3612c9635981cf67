/**
 * Cursor edits a file by sending its whole new text. Against the file's real bytes that
 * text is split into what stays (kept byte for byte) and what changes. Changed lines take
 * the line ending of the line they replace (or of their neighbour), so a one-line change
 * in a CRLF, BOM or mixed-ending file changes one line. Text that carries its own `\r`
 * is taken as written: an intentional write keeps its requested bytes.
 *
 * @module
 */
import type { RawFile } from "./raw-file.ts";

/** One line of a file: its text and its ending (`\r\n`, `\n`, or none at the end). */
export interface RawLine {
  readonly body: string;
  readonly eol: string;
}

/** The one changed region of a write against the file's previous bytes. */
export interface ChangePlan {
  /** The previous file's lines. */
  readonly old: readonly RawLine[];
  /** Index in `old` of the first changed line. */
  readonly start: number;
  /** The previous lines that go (`old[start .. start + removed.length]`). */
  readonly removed: readonly RawLine[];
  /** The lines that come in their place, with their chosen endings. */
  readonly added: readonly RawLine[];
  /** No line of the previous file survives: a whole-file rewrite. */
  readonly wholeFile: boolean;
  /** The new file text (without a byte order mark). */
  readonly text: string;
}

/**
 * Splits text into lines, keeping each line's ending.
 *
 * @param text The text.
 * @returns Its lines.
 *
 * @example
 * ```ts
 * import { rawLines } from "./targeted-edit.ts";
 *
 * const lines = rawLines("a\r\nb\nc");
 * console.assert(lines[0]?.eol === "\r\n" && lines[1]?.eol === "\n" && lines[2]?.eol === "");
 * ```
 */
export function rawLines(text: string): RawLine[] {
  const lines: RawLine[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    if (nl === -1) {
      lines.push({ body: text.slice(at), eol: "" });
      break;
    }
    const cr = nl > at && text[nl - 1] === "\r";
    lines.push({ body: text.slice(at, cr ? nl - 1 : nl), eol: cr ? "\r\n" : "\n" });
    at = nl + 1;
  }
  return lines;
}

/** The text of lines, endings included. */
export function joinLines(lines: readonly RawLine[]): string {
  return lines.map((l) => l.body + l.eol).join("");
}

/**
 * Plans a write of `requested` over the file `previous`.
 *
 * @param previous The file's real bytes.
 * @param requested The whole new text Cursor asked for.
 * @returns The changed region and the resulting text.
 *
 * @example
 * ```ts
 * import { planChange } from "./targeted-edit.ts";
 *
 * const plan = planChange({ bom: false, text: "a\r\nb\r\nc\r\n" }, "a\nB\nc\n");
 * console.assert(plan.text === "a\r\nB\r\nc\r\n" && plan.removed.length === 1);
 * ```
 */
export function planChange(previous: RawFile, requested: string): ChangePlan {
  const old = rawLines(previous.text);
  const text = requested.startsWith("\uFEFF") ? requested.slice(1) : requested;
  const asWritten = text.includes("\r");
  const next = rawLines(text);
  const limit = Math.min(old.length, next.length);
  let start = 0;
  while (start < limit && same(old[start], next[start])) start++;
  let endOld = old.length;
  let endNew = next.length;
  while (endOld > start && endNew > start && same(old[endOld - 1], next[endNew - 1])) {
    endOld--;
    endNew--;
  }
  const removed = old.slice(start, endOld);
  const fallback = dominantEol(old);
  const added = next.slice(start, endNew).map((line, k): RawLine => {
    if (asWritten || line.eol === "") return line;
    const neighbour = removed[Math.min(k, removed.length - 1)] ?? old[start - 1] ?? old[endOld];
    const eol = neighbour !== undefined && neighbour.eol !== "" ? neighbour.eol : fallback;
    return { body: line.body, eol };
  });
  const lines = [...old.slice(0, start), ...added, ...old.slice(endOld)];
  return {
    old,
    start,
    removed,
    added,
    wholeFile: old.length > 0 && removed.length === old.length,
    text: joinLines(lines),
  };
}

/** Whether two lines are the same line of text (endings compared only for presence). */
function same(a: RawLine | undefined, b: RawLine | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a.body !== b.body) return false;
  if ((a.eol === "") !== (b.eol === "")) return false;
  return b.eol === "\n" || a.eol === b.eol;
}

function dominantEol(lines: readonly RawLine[]): string {
  let crlf = 0;
  let lf = 0;
  for (const line of lines) {
    if (line.eol === "\r\n") crlf++;
    else if (line.eol === "\n") lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/**
 * The `oldString`/`newString` pair of an exact-replacement edit tool for a plan: the
 * smallest stretch of the file's real bytes that covers the change and occurs exactly
 * once, and what it becomes.
 *
 * @param plan The plan.
 * @returns The strings, or `undefined` when no unique stretch exists (a whole-file write
 *   is needed).
 *
 * @example
 * ```ts
 * import { editStrings, planChange } from "./targeted-edit.ts";
 *
 * const edit = editStrings(planChange({ bom: false, text: "a\r\nb\r\nc\r\n" }, "a\nB\nc\n"));
 * console.assert(edit?.oldString === "b" && edit.newString === "B");
 * ```
 */
export function editStrings(
  plan: ChangePlan,
): { oldString: string; newString: string } | undefined {
  const whole = joinLines(plan.old);
  let from = plan.start;
  let to = plan.start + plan.removed.length;
  if (plan.removed.length === 0) {
    if (from > 0) from--;
    else to++;
  }
  for (;;) {
    const before = plan.old.slice(from, plan.start);
    const after = plan.old.slice(plan.start + plan.removed.length, to);
    let oldString = joinLines(plan.old.slice(from, to));
    let newString = joinLines([...before, ...plan.added, ...after]);
    const eol = commonEol(oldString, newString);
    oldString = oldString.slice(0, oldString.length - eol.length);
    newString = newString.slice(0, newString.length - eol.length);
    if (oldString !== "" && occurrences(whole, oldString) === 1) return { oldString, newString };
    if (from === 0 && to >= plan.old.length) return undefined;
    if (from > 0) from--;
    if (to < plan.old.length) to++;
  }
}

function commonEol(a: string, b: string): string {
  for (const eol of ["\r\n", "\n"]) if (a.endsWith(eol) && b.endsWith(eol)) return eol;
  return "";
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1 && count < 2; at = text.indexOf(part, at + 1)) {
    count++;
  }
  return count;
}
