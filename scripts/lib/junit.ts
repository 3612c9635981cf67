/** Counts leaf test cases in a JUnit report written by `deno test`. @module */
import type { Tally } from "./test-files.ts";

interface Case {
  name: string;
  failed: boolean;
  skipped: boolean;
}

/**
 * Reads a JUnit file and counts leaf cases: a case whose name is the parent of another
 * (`describe` blocks report as `parent > child`) is not counted. A missing report or a
 * non-zero exit with no counted failure is a crash and counts as one failure.
 */
export async function countJUnit(path: string, runtime: string, exitCode: number): Promise<Tally> {
  let xml = "";
  try {
    xml = await Deno.readTextFile(path);
  } catch {
    console.error(`${runtime}: no JUnit report at ${path} (exit code ${exitCode})`);
    return { runtime, passed: 0, failed: 1, skipped: 0, crashed: true };
  }
  const cases = parseCases(xml);
  const parents = new Set<string>();
  for (const c of cases) {
    const cut = c.name.lastIndexOf(" > ");
    if (cut > 0) parents.add(c.name.slice(0, cut));
  }
  const leaves = cases.filter((c) => !parents.has(c.name));
  const failed = leaves.filter((c) => c.failed).length;
  const skipped = leaves.filter((c) => c.skipped).length;
  const passed = leaves.length - failed - skipped;
  const crashed = exitCode !== 0 && failed === 0;
  if (crashed) console.error(`${runtime}: runner exited ${exitCode} without a counted failure`);
  return { runtime, passed, failed: failed + (crashed ? 1 : 0), skipped, crashed };
}

function parseCases(xml: string): Case[] {
  const cases: Case[] = [];
  const pattern = /<testcase name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const match of xml.matchAll(pattern)) {
    const body = match[3] ?? "";
    cases.push({
      name: unescapeXml(match[1] ?? ""),
      failed: body.includes("<failure") || body.includes("<error"),
      skipped: body.includes("<skipped"),
    });
  }
  return cases;
}

function unescapeXml(text: string): string {
  return text.replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'").replaceAll("&amp;", "&");
}
