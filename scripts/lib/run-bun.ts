/** Runs the suite under `bun test` and counts its summary. @module */
import { runCaptured, SUITE_TIMEOUT_MS, type Tally } from "./test-files.ts";

/** Runs the given test files on Bun. */
export async function runBunTests(files: string[]): Promise<Tally> {
  const run = await runCaptured(
    "bun",
    [
      "test",
      "--timeout=60000",
      ...files.map((file) => (file.startsWith(".") ? file : `./${file}`)),
    ],
    SUITE_TIMEOUT_MS,
  );
  const read = (label: string): number => {
    const match = run.output.match(new RegExp(`^\\s*(\\d+) ${label}$`, "m"));
    return match ? Number(match[1]) : 0;
  };
  const passed = read("pass");
  const failed = read("fail");
  const skipped = read("skip") + read("todo");
  const crashed = run.code !== 0 && failed === 0;
  if (crashed) console.error(`bun: runner exited ${run.code} without a counted failure`);
  return { runtime: "bun", passed, failed: failed + (crashed ? 1 : 0), skipped, crashed };
}
