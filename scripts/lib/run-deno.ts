/** Runs the suite (and the JSDoc examples) under Deno and counts leaf tests from JUnit. @module */
import { runInherited, SUITE_TIMEOUT_MS, type Tally } from "./test-files.ts";
import { countJUnit } from "./junit.ts";

/** Runs the given test files under `deno test`, plus doc examples when asked. */
export async function runDenoTests(files: string[], options: { doc: boolean }): Promise<Tally> {
  await Deno.mkdir(".build", { recursive: true });
  const junit = ".build/junit-deno.xml";
  const code = await runInherited(
    "deno",
    ["test", "-A", "--no-check", `--junit-path=${junit}`, ...files],
    SUITE_TIMEOUT_MS,
  );
  const tally = await countJUnit(junit, "deno", code);
  if (!options.doc) return tally;
  const docFiles = await documentedModules();
  const docJunit = ".build/junit-deno-doc.xml";
  const docCode = await runInherited(
    "deno",
    ["test", "-A", "--doc", `--junit-path=${docJunit}`, ...docFiles],
    SUITE_TIMEOUT_MS,
  );
  const docTally = await countJUnit(docJunit, "deno-doc", docCode);
  return {
    runtime: "deno",
    passed: tally.passed + docTally.passed,
    failed: tally.failed + docTally.failed,
    skipped: tally.skipped + docTally.skipped,
    crashed: tally.crashed || docTally.crashed,
  };
}

/** Public modules whose JSDoc examples must run: the deno.json exports and what they re-export. */
async function documentedModules(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
    exports: Record<string, string>;
  };
  return Object.values(config.exports);
}
