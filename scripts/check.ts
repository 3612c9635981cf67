/**
 * Static checks: formatting, lint, type check of everything, doc lint of the public
 * entries, no unused exports or dependencies, and that the generated protocol code is
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
await unusedCode();
console.log("\n== generated code");
if (!await generatedCodeIsFresh()) {
  console.error("src/gen is stale: run `npm run gen` and commit the result");
  failures.push("generated code");
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
 * `deno doc --lint` over the entries. Re-exported AI SDK types are linted too; diagnostics
 * located in node_modules (third-party docs) are reported but do not fail the check.
 */
async function docLint(entries: string[]): Promise<void> {
  console.log("\n== doc lint");
  const { code, output } = await runCaptured("deno", ["doc", "--lint", ...entries], TEN_MINUTES, {
    NO_COLOR: "1",
  });
  if (code === 0) return;
  const ours = output.split(/\n(?=error\[)/).filter((block) =>
    block.startsWith("error[") && !/--> .*node_modules\//.test(block)
  );
  if (ours.length > 0) {
    console.error(`${ours.length} documentation problem(s) in this project's code`);
    failures.push("doc lint");
  } else {
    console.log("only third-party (node_modules) documentation gaps; ignored");
  }
}

if (failures.length > 0) {
  console.error(`\nCheck failed: ${failures.join(", ")}`);
  Deno.exit(1);
}
console.log("\nAll checks passed");
