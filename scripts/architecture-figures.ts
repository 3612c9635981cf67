/**
 * Prints the structure figures the layout is held to: long files and functions, crowded
 * folders, unit tests away from their source file's mirrored path, and import pairs
 * that run both ways between the folders of one area.
 *
 * Usage: `deno run -A scripts/architecture-figures.ts [--list]` (`--list` names every
 * offender, not only the counts).
 *
 * @module
 */
import ts from "typescript";
import { parseCommandLine } from "../src/adapters/node/commands/command-line.ts";

const FILE_LINES = 400;
const FUNCTION_LINES = 80;
const FLAT_FILES = 12;
const SOURCE_ROOTS = ["src", "plugin", "stores"];
const MESH_AREAS = ["src/provider/direct"];

const command = parseCommandLine({
  invocation: "deno run -A scripts/architecture-figures.ts",
  summary: "Prints the source tree's structure figures (file and function lengths, folder " +
    "sizes, test placement, two-way folder imports).",
  options: { list: { type: "boolean", description: "name every offender" } },
  examples: [["deno run -A scripts/architecture-figures.ts --list", "counts and offenders"]],
}, Deno.args);
if (command.kind === "help") {
  console.log(command.text);
  Deno.exit(0);
}
if (command.kind === "error") {
  console.error(command.message);
  Deno.exit(2);
}
const list = command.values.list === true;

/** Every `.ts` file under `dir`, repository-relative, skipping generated code. */
async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "gen") out.push(...await tsFiles(path));
    else if (entry.isFile && entry.name.endsWith(".ts") && !entry.name.endsWith("_pb.ts")) {
      out.push(path);
    }
  }
  return out;
}

/** Functions (declarations, methods, arrows, expressions) longer than `limit` lines. */
function longFunctions(path: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > limit) found.push(`${path}:${start + 1} ${functionName(node)} ${lines}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  return "(anonymous)";
}

/** Folders with more than `limit` files directly inside. */
function crowdedFolders(files: readonly string[], limit: number): string[] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const folder = file.slice(0, file.lastIndexOf("/"));
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > limit).map(([folder, n]) => `${folder} ${n}`);
}

/** Unit tests named after one source file: at its mirrored path, or elsewhere. */
function testPlacement(sources: readonly string[], tests: readonly string[]) {
  const byBase = new Map<string, string[]>();
  for (const source of sources) {
    const base = source.slice(source.lastIndexOf("/") + 1, -".ts".length);
    byBase.set(base, [...(byBase.get(base) ?? []), source]);
  }
  const mirrored: string[] = [];
  const elsewhere: string[] = [];
  for (const test of tests) {
    const base = test.slice(test.lastIndexOf("/") + 1).replace(/(\.deno)?\.test\.ts$/, "");
    const named = byBase.get(base);
    if (named === undefined || named.length !== 1) continue;
    const [source] = named as [string];
    const mirror = `test/${source.replace(/^src\//, "").slice(0, -".ts".length)}`;
    (test.replace(/(\.deno)?\.test\.ts$/, "") === mirror ? mirrored : elsewhere).push(
      `${test} (${source})`,
    );
  }
  return { mirrored, elsewhere };
}

const IMPORT = /(?:^|\s)(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/gm;

/** Two-way import pairs between the direct child folders (and files) of `area`. */
async function twoWayPairs(area: string, files: readonly string[]): Promise<string[]> {
  const roomOf = (path: string) => {
    if (!path.startsWith(`${area}/`)) return undefined;
    return path.slice(area.length + 1).split("/")[0];
  };
  const arrows = new Set<string>();
  for (const file of files) {
    const from = roomOf(file);
    if (from === undefined) continue;
    for (const match of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      const target = new URL(match[1] ?? "", `file:///${file}`).pathname.slice(1);
      const to = roomOf(target);
      if (to !== undefined && to !== from) arrows.add(`${from} -> ${to}`);
    }
  }
  return [...arrows].filter((arrow) => {
    const [from, to] = arrow.split(" -> ");
    return (from ?? "") < (to ?? "") && arrows.has(`${to} -> ${from}`);
  }).map((arrow) => arrow.replace(" -> ", " <-> "));
}

const sources = (await Promise.all(SOURCE_ROOTS.map(tsFiles))).flat().sort();
const tests = (await tsFiles("test")).filter((path) => path.endsWith(".test.ts"));
const longFiles: string[] = [];
const longFns: string[] = [];
for (const file of sources) {
  const text = await Deno.readTextFile(file);
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > FILE_LINES) longFiles.push(`${file} ${lines}`);
  longFns.push(...longFunctions(file, text, FUNCTION_LINES));
}
const crowded = crowdedFolders(sources, FLAT_FILES);
// A test may be named after a script too (test/scripts/emulator.test.ts is scripts/emulator.ts's).
const scripts = (await tsFiles("scripts")).filter((path) => !path.includes("/bench/"));
const placement = testPlacement([...sources, ...scripts], tests);
const pairs = (await Promise.all(MESH_AREAS.map((area) => twoWayPairs(area, sources)))).flat();

const rows: [string, string[]][] = [
  [`files over ${FILE_LINES} lines`, longFiles],
  [`functions over ${FUNCTION_LINES} lines`, longFns],
  [`folders with more than ${FLAT_FILES} files flat`, crowded],
  ["unit tests away from their mirrored path", placement.elsewhere],
  [`two-way folder pairs in ${MESH_AREAS.join(", ")}`, pairs],
];
console.log(
  `source files: ${sources.length}; unit tests at their mirrored path: ` +
    `${placement.mirrored.length}`,
);
for (const [label, offenders] of rows) {
  console.log(`${label}: ${offenders.length}`);
  if (list) { for (const offender of offenders) console.log(`  ${offender}`); }
}
