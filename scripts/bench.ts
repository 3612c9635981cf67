/**
 * Runs every benchmark under `scripts/bench/` (each a Deno script that prints
 * `name: metric=value` lines, ratios side by side against its baseline) and prints
 * a summary. Each benchmark runs under a time limit.
 *
 * Usage: `deno run -A scripts/bench.ts [name-filter]` (`--help` for more)
 *
 * @module
 */
import { runCaptured } from "./lib/test-files.ts";
import { parseCommandLine } from "../src/adapters/node/commands/command-line.ts";

const command = parseCommandLine({
  invocation: "npm run bench --",
  summary: "Runs the benchmarks under scripts/bench/ (each side by side with its baseline, " +
    "under a time limit) and prints a summary of their metric lines.",
  positionals: "name-filter",
  options: {},
  examples: [
    ["npm run bench", "every benchmark (several minutes)"],
    ["npm run bench -- provider", "only scripts/bench/provider.bench.ts"],
    ["deno run -A scripts/bench/emulator.bench.ts", "one benchmark directly"],
  ],
}, Deno.args);
if (command.kind === "help") {
  console.log(command.text);
  Deno.exit(0);
}
if (command.kind === "error") {
  console.error(command.message);
  Deno.exit(2);
}
const filter = command.positionals[0] ?? "";
const benches: string[] = [];
for await (const entry of Deno.readDir("scripts/bench")) {
  if (entry.isFile && entry.name.endsWith(".bench.ts") && entry.name.includes(filter)) {
    benches.push(`scripts/bench/${entry.name}`);
  }
}
benches.sort();
if (benches.length === 0) {
  console.error(`No benchmark matches ${JSON.stringify(filter)}`);
  Deno.exit(1);
}
const summary: string[] = [];
let failed = 0;
for (const bench of benches) {
  console.log(`\n== ${bench}`);
  const { code, output } = await runCaptured("deno", ["run", "-A", bench], 10 * 60 * 1000);
  if (code !== 0) failed++;
  summary.push(...output.split("\n").filter((line) => /^[a-z0-9-]+: \S+=/.test(line)));
}
console.log("\n== summary");
for (const line of summary) console.log(line);
if (failed > 0) {
  console.error(`${failed} benchmark(s) failed`);
  Deno.exit(1);
}
