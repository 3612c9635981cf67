/**
 * Static checks: formatting, lint, type check of everything, doc lint of the public
 * entries, and that the generated protocol code is up to date with `proto/`.
 *
 * Usage: `deno run -A scripts/check.ts`
 *
 * @module
 */
import { runInherited } from "./lib/test-files.ts";
import { entryPoints, typeCheckedFiles } from "./lib/entries.ts";
import { generatedCodeIsFresh } from "./lib/gen-fresh.ts";

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
await step("doc lint", "deno", ["doc", "--lint", ...await entryPoints()]);
console.log("\n== generated code");
if (!await generatedCodeIsFresh()) {
  console.error("src/gen is stale: run `npm run gen` and commit the result");
  failures.push("generated code");
}

if (failures.length > 0) {
  console.error(`\nCheck failed: ${failures.join(", ")}`);
  Deno.exit(1);
}
console.log("\nAll checks passed");
