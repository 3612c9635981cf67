/**
 * The link check of `npm run check`: every relative link in README.md and docs/ must
 * name a file that exists, and a `#fragment` must name a heading of that file (GitHub's
 * anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered).
 *
 * @module
 */
import { dirname, join, normalize } from "node:path";

/** One broken link. */
export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly reason: string;
}

/**
 * GitHub's anchor for a heading text.
 *
 * @param heading The heading's text (without the leading `#`s).
 * @returns The anchor, e.g. `the-directive-language`.
 */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a markdown text's headings (outside code fences). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const base = headingAnchor(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * The broken relative links of one markdown file.
 *
 * @param file The file's path.
 * @param markdown Its text.
 * @param read Reads another file's text (`undefined` when it does not exist).
 * @returns The broken links.
 */
export async function brokenLinks(
  file: string,
  markdown: string,
  read: (path: string) => Promise<string | undefined>,
): Promise<BrokenLink[]> {
  const broken: BrokenLink[] = [];
  let fenced = false;
  for (const [index, line] of markdown.split("\n").entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, "");
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? "";
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = "", fragment] = target.split("#", 2);
      const resolved = path === "" ? file : normalize(join(dirname(file), path));
      const content = path === "" ? markdown : await read(resolved);
      const where = { file, line: index + 1, target };
      if (content === undefined) {
        broken.push({ ...where, reason: `${resolved} does not exist` });
      } else if (fragment !== undefined && resolved.endsWith(".md")) {
        if (!anchorsOf(content).has(fragment)) {
          broken.push({ ...where, reason: `${resolved} has no heading for #${fragment}` });
        }
      }
    }
  }
  return broken;
}
