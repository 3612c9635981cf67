/**
 * Runs the end-to-end suite with the real OpenCode binary against the emulator:
 * `test/e2e/*.e2e.ts`, bundled with esbuild and run by Node's test runner one file at
 * a time (Node runs `todo` tests and reports their outcome; Deno's runner would ignore
 * them). Builds the npm package first when it is stale. Ends with the line
 * `N passed, N failed` (plus `, N todo` when tests are marked todo).
 *
 * Usage: `deno run -A scripts/test-e2e.ts [files...]`
 *
 * Needs `npm ci` (the `opencode-ai` devDependency brings the binary), Node 20+, git,
 * and loopback networking only.
 *
 * @module
 */
import { runCaptured } from "./lib/test-files.ts";
import { bundleForNode } from "./lib/node-bundle.ts";

const OUT_DIR = ".build/e2e";
const SUITE_TIMEOUT_MS = 25 * 60 * 1000;

async function e2eFiles(): Promise<string[]> {
  if (Deno.args.length > 0) return [...Deno.args];
  const files: string[] = [];
  for await (const entry of Deno.readDir("test/e2e")) {
    if (entry.isFile && entry.name.endsWith(".e2e.ts")) files.push(`test/e2e/${entry.name}`);
  }
  return files.sort();
}

const files = await e2eFiles();
if (files.length === 0) {
  console.error("No test/e2e/*.e2e.ts files found");
  console.log("0 passed, 1 failed");
  Deno.exit(1);
}

const build = await runCaptured("deno", ["run", "-A", "scripts/build.ts"], 5 * 60 * 1000);
if (build.code !== 0) {
  console.error("npm run build failed: the suite loads the built package");
  console.log("0 passed, 1 failed");
  Deno.exit(1);
}

const bundled = await bundleForNode(files, OUT_DIR);
if (bundled === undefined) {
  console.log("0 passed, 1 failed");
  Deno.exit(1);
}

const started = Date.now();
const run = await runCaptured(
  "node",
  [
    "--test",
    "--test-reporter=tap",
    "--test-concurrency=1",
    ...bundled,
  ],
  SUITE_TIMEOUT_MS,
);

const read = (label: string): number => {
  const match = run.output.match(new RegExp(`^# ${label} (\\d+)$`, "m"));
  return match ? Number(match[1]) : 0;
};
const todo = read("todo");
const passed = read("pass");
const failed = read("fail") + read("cancelled") + (run.code !== 0 && read("fail") === 0 ? 1 : 0);
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`e2e: ${seconds} s, ${todo} todo (run, not counted: see "# TODO" lines above)`);
console.log(`${passed} passed, ${failed} failed${todo > 0 ? `, ${todo} todo` : ""}`);
if (failed > 0 || passed <= 0) Deno.exit(1);
