/**
 * Static checks: formatting, lint, type check of everything, doc lint of each public
 * entry, relative links in README.md and docs/, no unused exports or dependencies, and that the generated protocol code is
 * up to date with `proto/`.
 *
 * Usage: `deno run -A scripts/check.ts`
 *
 * @module
 */
import { runCaptured, runInherited } from "./lib/test-files.ts";
import { entryPoints, typeCheckedFiles } from "./lib/entries.ts";
import { generatedCodeIsFresh } from "./lib/gen-fresh.ts";
import { checkUnused } from "./lib/unused-tree.ts";
import { join } from "node:path";
import { brokenLinks } from "./lib/doc-links.ts";

const TEN_MINUTES = 10 * 60 * 1000;
const failures: string[] = [];

async function step(name: string, command: string, args: string[]): Promise<void> {
  console.log(`\n== ${name}`);
  const code = await runInherited(command, args, TEN_MINUTES);
  if (code !== 0) failures.push(name);
}

await step("format", "deno", ["fmt", "--check"]);
await step("lint", "deno", ["lint"]);
await step("type check (deno)", "deno", ["check", ...await typeCheckedFiles()]);
// Deno's checker overflows on the `ai` package's types, which the tests import: tsc checks test/.
await step("type check (tests, tsc)", "tsc", ["-p", "tsconfig.test.json"]);
await Deno.mkdir(".build", { recursive: true });
await Deno.writeTextFile(".build/lib.deno.d.ts", await denoTypes());
await step("type check (scripts, tsc)", "tsc", ["-p", "tsconfig.scripts.json"]);
await docLint(await entryPoints());
await step("pricing coverage", "deno", ["run", "-A", "scripts/check-pricing.ts"]);
await step("Cursor's schema (@cursor/sdk descriptors)", "deno", [
  "run",
  "-A",
  "scripts/check-cursor-schema.ts",
]);
await linkCheck();
await unusedCode();
console.log("\n== generated code");
if (!await generatedCodeIsFresh()) {
  console.error("src/gen is stale: run `npm run gen` and commit the result");
  failures.push("generated code");
}

/** Relative links in README.md and docs/ (files and headings, see scripts/lib/doc-links.ts). */
async function linkCheck(): Promise<void> {
  console.log("\n== documentation links");
  const files = await docFiles();
  let count = 0;
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    for (const link of await brokenLinks(file, text, readIfPresent)) {
      count++;
      console.error(`${link.file}:${link.line}: ${link.target}: ${link.reason}`);
    }
  }
  if (count > 0) failures.push("documentation links");
  else console.log(`${files.length} files, every relative link resolves`);
}

/** The markdown files the check reads. */
export async function docFiles(root = "."): Promise<string[]> {
  const files = [join(root, "README.md")];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".md")) files.push(path);
    }
  };
  await walk(join(root, "docs"));
  return files.sort();
}

/** Reads a file's text, or `undefined` when it is missing (a directory counts as present). */
export async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    return info.isDirectory ? "" : await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** Exports and dependencies nothing uses (see scripts/lib/unused-tree.ts). */
async function unusedCode(): Promise<void> {
  console.log("\n== unused exports and dependencies");
  const { failures: found, allowed } = await checkUnused();
  for (const item of allowed) console.log(`allowed for now: ${item}`);
  for (const item of found) console.error(item);
  if (found.length > 0) failures.push("unused code");
}

/** Deno's own type declarations, so tsc can check scripts that use the Deno namespace. */
async function denoTypes(): Promise<string> {
  const { stdout } = await new Deno.Command("deno", { args: ["types"], stdout: "piped" }).output();
  return new TextDecoder().decode(stdout);
}

/**
 * `deno doc --lint` over each entry on its own, as a user of that entry reads its docs: a
 * type another entry exports does not make it public here. Diagnostics located in
 * node_modules (third-party docs of re-exported AI SDK types) are counted but do not fail
 * the check; any in this project's code does.
 */
async function docLint(entries: string[]): Promise<void> {
  console.log("\n== doc lint");
  let ours = 0;
  let theirs = 0;
  const unique = [...new Set(entries)];
  for (const entry of unique) {
    const { output } = await runCaptured("deno", ["doc", "--lint", entry], TEN_MINUTES, {
      NO_COLOR: "1",
    });
    const found = ownDocProblems(output);
    theirs += found.theirs;
    ours += found.ours.length;
    for (const block of found.ours) console.error(`${entry}: ${block}`);
  }
  if (ours > 0) {
    console.error(`${ours} documentation problem(s) in this project's code`);
    failures.push("doc lint");
  } else {
    console.log(
      `${entries.length} entries: 0 problems in this project's code, ${theirs} third-party`,
    );
  }
}

/**
 * Splits `deno doc --lint` output into this project's problems and a count of the rest.
 *
 * @param output The command's output (without colours).
 * @returns The error blocks located outside node_modules, and how many were inside it.
 */
function ownDocProblems(output: string): { ours: string[]; theirs: number } {
  const blocks = output.split(/\n(?=error\[)/).filter((block) => block.startsWith("error["));
  const ours = blocks.filter((block) => !/--> .*node_modules\//.test(block));
  return { ours, theirs: blocks.length - ours.length };
}

if (failures.length > 0) {
  console.error(`\nCheck failed: ${failures.join(", ")}`);
  Deno.exit(1);
}
console.log("\nAll checks passed");
