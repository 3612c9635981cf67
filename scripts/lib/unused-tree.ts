/**
 * Runs {@link findUnused} over this repository: product files are the entries (the root
 * ones and `stores/`), `src/` (generated code aside) and `plugin/`; tests and scripts count
 * as importers. Findings listed in `scripts/lib/unused-allowlist.json` (code under
 * restructuring elsewhere) are reported but do not fail; an allow-list entry that is no
 * longer found fails, so the list only shrinks.
 *
 * @module
 */
import { findUnused } from "./unused.ts";

const ALLOW_LIST = "scripts/lib/unused-allowlist.json";

/** The outcome of the unused-code check. */
export interface UnusedOutcome {
  /** Findings that fail the check. */
  readonly failures: readonly string[];
  /** Allow-listed findings, reported only. */
  readonly allowed: readonly string[];
}

/** Checks the repository for unused exports and dependencies. */
export async function checkUnused(): Promise<UnusedOutcome> {
  const files = new Map<string, string>();
  const importers = new Map<string, string>();
  for await (const entry of Deno.readDir(".")) {
    if (entry.isFile && entry.name.endsWith(".ts")) {
      files.set(entry.name, await Deno.readTextFile(entry.name));
    }
  }
  await readTree("src", files, (path) => path.startsWith("src/gen/"));
  await readTree("plugin", files);
  await readTree("stores", files);
  await readTree("test", importers);
  await readTree("scripts", importers);
  const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
    exports: Record<string, string>;
  };
  const manifest = JSON.parse(await Deno.readTextFile("package.json")) as {
    dependencies?: Record<string, string>;
  };
  const report = findUnused({
    files,
    importers,
    entries: Object.values(config.exports),
    dependencies: Object.keys(manifest.dependencies ?? {}),
  });
  const findings = [
    ...report.exports.map((item) => `unused export ${item}`),
    ...report.dependencies.map((name) => `unused dependency ${name}`),
  ];
  const allowList = new Set(
    JSON.parse(await Deno.readTextFile(ALLOW_LIST)) as string[],
  );
  const failures = findings.filter((finding) => !allowList.has(finding));
  for (const stale of allowList) {
    if (!findings.includes(stale)) {
      failures.push(`${ALLOW_LIST} lists "${stale}", which is no longer found: remove it`);
    }
  }
  return { failures, allowed: findings.filter((finding) => allowList.has(finding)) };
}

async function readTree(
  dir: string,
  into: Map<string, string>,
  skip: (path: string) => boolean = () => false,
): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (skip(`${path}/`) || skip(path)) continue;
    if (entry.isDirectory) await readTree(path, into, skip);
    else if (entry.isFile && path.endsWith(".ts")) into.set(path, await Deno.readTextFile(path));
  }
}
