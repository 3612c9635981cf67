import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { checkPlacement, findCycles } from "./graph-rules.ts";

/** Tests run from the repository root on every runtime (bundled copies live elsewhere). */
const ROOT = pathToFileURL(`${process.cwd()}/`);

/**
 * Cycles in code being restructured elsewhere, each to be broken there; an entry that
 * no longer occurs fails the test, so the list only shrinks.
 */
const KNOWN_CYCLES: readonly string[] = [];

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(new URL(dir, ROOT), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = dir === "." ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory() && dir !== ".") out.push(...await tsFiles(path));
    else if (entry.isFile() && entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

async function repositoryFiles(): Promise<Map<string, string>> {
  const paths = [
    ...await tsFiles("."),
    ...(await tsFiles("src")).filter((path) => !path.startsWith("src/gen/")),
    ...await tsFiles("plugin"),
    ...await tsFiles("scripts"),
    ...await tsFiles("test"),
  ];
  const files = new Map<string, string>();
  for (const path of paths) files.set(path, await readFile(new URL(path, ROOT), "utf8"));
  return files;
}

function placement(path: string, source: string): string[] {
  return checkPlacement(path, source).map((v) => v.message);
}

describe("architecture: the import graph", () => {
  it("has no import cycles (type-only imports included) beyond the known ones", async () => {
    const files = await repositoryFiles();
    assert.ok(files.size > 100, "expected to find the repository's files");
    const cycles = findCycles(files).map((cycle) => cycle.join(" -> "));
    assert.deepEqual(cycles.filter((cycle) => !KNOWN_CYCLES.includes(cycle)), []);
    assert.deepEqual(KNOWN_CYCLES.filter((known) => !cycles.includes(known)), []);
  });

  it("keeps packages, same-rank layers, backends, scripts and tests in place", async () => {
    const violations = [];
    for (const [path, source] of await repositoryFiles()) {
      violations.push(
        ...checkPlacement(path, source).map((v) => `${v.file}:${v.line} ${v.message}`),
      );
    }
    assert.deepEqual(violations, []);
  });
});

describe("architecture: negative samples", () => {
  it("finds a cycle, a type-only one included, and a module importing itself", () => {
    const cycles = findCycles(
      new Map([
        ["src/snapshot/a.ts", 'import type { B } from "./b.ts";\n'],
        ["src/snapshot/b.ts", 'import { c } from "./c.ts";\n'],
        ["src/snapshot/c.ts", 'export type { A } from "./a.ts";\n'],
        ["src/core/self.ts", 'import { x } from "./self.ts";\n'],
        ["src/core/leaf.ts", "export const leaf = 1;\n"],
      ]),
    );
    assert.deepEqual(cycles, [
      ["src/core/self.ts", "src/core/self.ts"],
      ["src/snapshot/a.ts", "src/snapshot/b.ts", "src/snapshot/c.ts", "src/snapshot/a.ts"],
    ]);
  });

  it("rejects imports between sibling backend folders under src/provider, in both directions", () => {
    assert.match(
      placement("src/provider/direct/turn.ts", 'import { x } from "../cli/argv.ts";\n')[0] ?? "",
      /src\/provider\/direct imports sibling backend folder src\/provider\/cli/,
    );
    assert.equal(
      placement("src/provider/cli/model.ts", 'import type { y } from "../direct/run.ts";\n').length,
      1,
    );
    assert.equal(
      placement("src/provider/future/a.ts", 'import { z } from "../direct/b.ts";\n').length,
      1,
      "any two sibling folders, not only the two of today",
    );
  });

  it("lets backends use the shared provider files and shared folders", () => {
    assert.deepEqual(
      placement("src/provider/direct/a.ts", 'import { s } from "../skeleton.ts";\n'),
      [],
    );
    assert.deepEqual(
      placement("src/provider/cli/a.ts", 'import { t } from "../tools/x.ts";\n'),
      [],
    );
    assert.deepEqual(placement("src/provider/direct/a.ts", 'import { u } from "./b.ts";\n'), []);
    assert.deepEqual(
      placement("src/provider/direct/a.ts", 'import { o } from "../settings/cursor-options.ts";\n'),
      [],
    );
    assert.deepEqual(
      placement("src/provider/public/a.ts", 'import type { p } from "../direct/b.ts";\n'),
      [],
    );
  });

  it("rejects imports between different layers of the same rank", () => {
    assert.match(
      placement("src/catalog/x.ts", 'import { y } from "../agent-run/y.ts";\n')[0] ?? "",
      /layer src\/catalog imports same-rank layer src\/agent-run/,
    );
    assert.equal(placement("src/transport/x.ts", 'import { y } from "../auth/y.ts";\n').length, 1);
    assert.deepEqual(placement("src/protocol/x.ts", 'import { y } from "../gen/y_pb.ts";\n'), []);
  });

  it("keeps npm packages to the layers allowed to use them", () => {
    assert.match(
      placement("src/core/x.ts", 'import { z } from "zod";\n')[0] ?? "",
      /core imports npm package "zod"/,
    );
    assert.match(
      placement("src/core/x.ts", 'import { create } from "@bufbuild/protobuf/wire";\n')[0] ?? "",
      /core imports npm package "@bufbuild\/protobuf"/,
    );
    assert.match(
      placement("src/agent-run/x.ts", 'import type { T } from "@ai-sdk/provider";\n')[0] ?? "",
      /layer src\/agent-run imports "@ai-sdk\/provider", allowed from rank 4 up/,
    );
    assert.equal(
      placement("src/transport/x.ts", 'export type { T } from "@ai-sdk/provider";\n').length,
      1,
    );
    assert.deepEqual(
      placement("src/protocol/x.ts", 'import { create } from "@bufbuild/protobuf";\n'),
      [],
    );
    assert.deepEqual(
      placement("src/provider/x.ts", 'import type { T } from "@ai-sdk/provider";\n'),
      [],
    );
    assert.deepEqual(placement("src/core/x.ts", 'import { Buffer } from "node:buffer";\n'), []);
  });

  it("keeps scripts and tests out of the product, and tests out of scripts", () => {
    assert.match(
      placement("src/agent-run/x.ts", 'import { h } from "../../test/support/h.ts";\n')[0] ?? "",
      /product code imports test\//,
    );
    assert.match(
      placement("plugin/x.ts", 'import { b } from "../scripts/lib/b.ts";\n')[0] ?? "",
      /product code imports scripts\//,
    );
    assert.match(
      placement("scripts/bench/x.ts", 'import { h } from "../../test/support/h.ts";\n')[0] ?? "",
      /a script imports test\//,
    );
    assert.deepEqual(placement("scripts/x.ts", 'import { a } from "../src/agent-run/a.ts";\n'), []);
    assert.deepEqual(placement("test/x.test.ts", 'import { a } from "../src/core/a.ts";\n'), []);
    assert.deepEqual(placement("test/x.test.ts", 'import { b } from "../scripts/lib/b.ts";\n'), []);
  });
});
