/** Runs the suite (and the JSDoc examples) under Deno and counts leaf tests from JUnit. @module */
import { runInherited, SUITE_TIMEOUT_MS, type Tally } from "./test-files.ts";
import { countJUnit } from "./junit.ts";

/** Runs the given test files under `deno test`, plus doc examples when asked. */
export async function runDenoTests(files: string[], options: { doc: boolean }): Promise<Tally> {
  await Deno.mkdir(".build", { recursive: true });
  const junit = ".build/junit-deno.xml";
  const code = await runInherited(
    "deno",
    // Deno KV (the Deno KV snapshot store's tests) is behind a flag outside Deno Deploy.
    ["test", "-A", "--no-check", "--unstable-kv", `--junit-path=${junit}`, ...files],
    SUITE_TIMEOUT_MS,
  );
  const tally = await countJUnit(junit, "deno", code);
  if (!options.doc) return tally;
  const docFiles = await documentedModules();
  const docJunit = ".build/junit-deno-doc.xml";
  const docCode = await runInherited(
    "deno",
    ["test", "-A", "--doc", "--unstable-kv", `--junit-path=${docJunit}`, ...docFiles],
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

/** Modules whose JSDoc examples must run: the entries and every source file with an example. */
async function documentedModules(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
    exports: Record<string, string>;
  };
  const files = new Set(Object.values(config.exports).map((file) => file.replace(/^\.\//, "")));
  for (const root of ["src", "plugin"]) {
    for (const file of await walk(root)) {
      if (file.startsWith("src/gen/") || !file.endsWith(".ts")) continue;
      if ((await Deno.readTextFile(file)).includes("@example")) files.add(file);
    }
  }
  return [...files].sort();
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) out.push(...await walk(path));
      else if (entry.isFile) out.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out;
}
