/** Bundles each test file with esbuild and runs it under Node's built-in test runner. @module */
import { runCaptured, SUITE_TIMEOUT_MS, type Tally } from "./test-files.ts";
import { bundleForNode } from "./node-bundle.ts";

const OUT_DIR = ".build/node-tests";

/** Runs the given test files on Node (the version on PATH; Node 20 here). */
export async function runNodeTests(files: string[]): Promise<Tally> {
  const bundled = await bundleForNode(files, OUT_DIR);
  if (bundled === undefined) {
    return { runtime: "node", passed: 0, failed: 1, skipped: 0, crashed: true };
  }
  const run = await runCaptured(
    "node",
    ["--test", "--test-reporter=tap", "--test-concurrency=2", ...bundled],
    SUITE_TIMEOUT_MS,
    { NODE_ENV: "test" },
  );
  return countTap(run.output, run.code);
}

function countTap(output: string, exitCode: number): Tally {
  const read = (label: string): number => {
    const match = output.match(new RegExp(`^# ${label} (\\d+)$`, "m"));
    return match ? Number(match[1]) : 0;
  };
  const passed = read("pass");
  const failed = read("fail") + read("cancelled");
  const skipped = read("skipped") + read("todo");
  const crashed = exitCode !== 0 && failed === 0;
  if (crashed) console.error(`node: runner exited ${exitCode} without a counted failure`);
  return { runtime: "node", passed, failed: failed + (crashed ? 1 : 0), skipped, crashed };
}
