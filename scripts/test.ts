/**
 * Runs the test suite on one or more runtimes and prints a closing line
 * `N passed, N failed` (plus `, N skipped` when tests skipped themselves).
 *
 * Usage: `deno run -A scripts/test.ts [--runtime deno|node|bun|all] [--no-doc] [paths...]`
 *
 * Exits non-zero when any test failed or when no test ran at all.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { collectTestFiles, type Tally } from "./lib/test-files.ts";
import { runDenoTests } from "./lib/run-deno.ts";
import { runNodeTests } from "./lib/run-node.ts";
import { runBunTests } from "./lib/run-bun.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: {
    runtime: { type: "string", default: "deno" },
    "no-doc": { type: "boolean", default: false },
  },
  allowPositionals: true,
});

const runtimes = values.runtime === "all" ? ["deno", "node", "bun"] : [values.runtime];
const files = await collectTestFiles(positionals.length > 0 ? positionals : ["test"]);
if (files.length === 0) {
  console.error(`No test files found under ${JSON.stringify(positionals)}`);
  console.log("0 passed, 0 failed");
  Deno.exit(1);
}

/** `*.deno.test.ts` files test what only Deno has (Deno KV): not applicable elsewhere. */
function applicable(runtime: string): string[] {
  if (runtime === "deno") return files;
  const denoOnly = files.filter((file) => file.endsWith(".deno.test.ts"));
  for (const file of denoOnly) console.log(`${runtime}: not applicable (Deno only): ${file}`);
  return files.filter((file) => !denoOnly.includes(file));
}

const tallies: Tally[] = [];
for (const runtime of runtimes) {
  switch (runtime) {
    case "deno":
      tallies.push(
        await runDenoTests(files, { doc: !values["no-doc"] && positionals.length === 0 }),
      );
      break;
    case "node":
      tallies.push(await runNodeTests(applicable(runtime)));
      break;
    case "bun":
      tallies.push(await runBunTests(applicable(runtime)));
      break;
    default:
      console.error(`Unknown runtime ${JSON.stringify(runtime)}: expected deno, node, bun or all`);
      Deno.exit(2);
  }
}

const total = tallies.reduce(
  (sum, t) => ({
    passed: sum.passed + t.passed,
    failed: sum.failed + t.failed,
    skipped: sum.skipped + t.skipped,
    crashed: sum.crashed || t.crashed,
  }),
  { passed: 0, failed: 0, skipped: 0, crashed: false },
);
for (const t of tallies) {
  console.log(`${t.runtime}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
}
const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : "";
console.log(`${total.passed} passed, ${total.failed} failed${skipped}`);
if (total.failed > 0 || total.crashed || total.passed === 0) Deno.exit(1);
