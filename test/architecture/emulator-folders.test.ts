/**
 * The emulator's folders form a ladder: each folder (a nested one such as `model/turn`
 * counts on its own) may import its own files and the folders below it, never one above, and no two files import each other in a circle.
 * Its wire code is its own: it never borrows the client's framing, so a framing bug
 * cannot hide by being the same on both sides. The checker runs over the real tree and
 * over bad samples, so a rule that stops catching violations fails too.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";

/**
 * The emulator's folders that hold files, lowest first (`.` is the emulator's own root
 * files; `model/…` are the emulated model's parts: its reading of directives, its tool
 * calls, scenarios, and the turn it plays).
 */
const EMULATOR_FOLDERS: readonly string[] = [
  "observe",
  "wire",
  "faults",
  "auth",
  "catalog",
  "io",
  "conversation",
  "model/plan",
  "model/tools",
  "model/scenario",
  "model/turn",
  "config",
  "run",
  "http",
  ".",
];

/** Folders of src/testing outside the emulator, and what each may import there. */
const TESTING_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  "directives": [],
  "fake-cursor-agent": ["directives"],
  "emulator": ["directives"],
  "adapters": ["emulator", "fake-cursor-agent", "directives"],
};

/**
 * Client modules the emulator must not use: the client's protocol code (framing, end-streams,
 * error details) and its network code. The emulator implements the wire on its own.
 */
const CLIENT_WIRE = [/^src\/protocol\//, /^src\/transport\//];

const IMPORT =
  /^\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|^\s*import\(\s*["'](\.[^"']+)["']\s*\)/gm;

interface Finding {
  readonly file: string;
  readonly message: string;
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** `emulator/<folder>/x.ts` → its folder (nested ones whole); other src/testing files → their top folder. */
function placeOf(path: string): { area: string; folder: string } | undefined {
  const match = /^src\/testing\/([^/]+)\/(.*)$/.exec(path);
  if (match === null) return undefined;
  const [, area = "", rest = ""] = match;
  if (area !== "emulator") return { area, folder: area };
  const folder = rest.includes("/") ? rest.slice(0, rest.lastIndexOf("/")) : ".";
  return { area, folder };
}

function importsOf(path: string, source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (specifier !== undefined) found.push(resolve(path, specifier));
  }
  return found;
}

function ruleFor(file: string, target: string): string | undefined {
  const from = placeOf(file);
  if (from === undefined) return undefined;
  if (from.area === "emulator" && CLIENT_WIRE.some((pattern) => pattern.test(target))) {
    return `emulator file imports the client's wire code ${target}`;
  }
  const to = placeOf(target);
  if (to === undefined) return undefined;
  if (from.area !== to.area) {
    const allowed = TESTING_FOLDERS[from.area] ?? [];
    return allowed.includes(to.area)
      ? undefined
      : `src/testing/${from.area} imports src/testing/${to.area}`;
  }
  if (from.area !== "emulator") return undefined;
  const fromRank = EMULATOR_FOLDERS.indexOf(from.folder);
  const toRank = EMULATOR_FOLDERS.indexOf(to.folder);
  if (fromRank < 0) return `emulator folder ${from.folder} is not in the folder ladder`;
  if (toRank > fromRank) {
    return `emulator/${from.folder} imports higher folder emulator/${to.folder}`;
  }
  return undefined;
}

function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const cycle = visit(next);
        if (cycle !== undefined) return cycle;
      }
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.get(node) !== undefined) continue;
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/** Applies every rule to a set of files (repository-relative path → source). */
function checkTesting(files: ReadonlyMap<string, string>): Finding[] {
  const findings: Finding[] = [];
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const targets = importsOf(file, source);
    graph.set(file, targets);
    for (const target of targets) {
      const message = ruleFor(file, target);
      if (message !== undefined) findings.push({ file, message });
    }
  }
  const cycle = findCycle(graph);
  if (cycle !== undefined) {
    findings.push({ file: cycle[0] ?? "", message: `import cycle ${cycle.join(" → ")}` });
  }
  return findings;
}

async function readTree(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith(".ts")) files.set(path, await readFile(path, "utf8"));
    }
  };
  await walk(root);
  return files;
}

describe("emulator folders", () => {
  it("the emulator's folders import only downwards, without cycles or the client's framing", async () => {
    const files = await readTree("src/testing");
    assert.ok(files.size > 40, `expected the emulator's files, found ${files.size}`);
    assert.deepEqual(checkTesting(files), []);
  });

  it("every emulator folder holding files is on the ladder", async () => {
    const files = await readTree("src/testing/emulator");
    const folders = new Set<string>();
    for (const file of files.keys()) {
      const folder = placeOf(file)?.folder;
      if (folder !== undefined && folder !== ".") folders.add(folder);
    }
    assert.deepEqual([...folders].sort(), EMULATOR_FOLDERS.filter((f) => f !== ".").sort());
  });

  it("rejects an import from a lower folder up to a higher one", () => {
    const found = checkTesting(
      new Map([[
        "src/testing/emulator/wire/x.ts",
        'import { playRun } from "../run/play-run.ts";\n',
      ]]),
    );
    assert.equal(found.length, 1);
    assert.match(found[0]?.message ?? "", /emulator\/wire imports higher folder emulator\/run/);
  });

  it("ranks nested folders on their own: the model's plan may not import its turn", () => {
    const found = checkTesting(
      new Map([[
        "src/testing/emulator/model/plan/x.ts",
        'import { finishTurn } from "../turn/finish-turn.ts";\n',
      ]]),
    );
    assert.equal(found.length, 1);
    assert.match(
      found[0]?.message ?? "",
      /emulator\/model\/plan imports higher folder emulator\/model\/turn/,
    );
  });

  it("rejects a file in a folder off the ladder", () => {
    const found = checkTesting(
      new Map([["src/testing/emulator/model/x.ts", 'import { y } from "./turn/y.ts";\n']]),
    );
    assert.match(found[0]?.message ?? "", /emulator folder model is not in the folder ladder/);
  });

  it("rejects a cycle between two files of one folder", () => {
    const found = checkTesting(
      new Map([
        ["src/testing/emulator/model/turn/a.ts", 'import { b } from "./b.ts";\n'],
        ["src/testing/emulator/model/turn/b.ts", 'import type { a } from "./a.ts";\n'],
      ]),
    );
    assert.equal(found.length, 1);
    assert.match(found[0]?.message ?? "", /import cycle .*a\.ts → .*b\.ts → .*a\.ts/);
  });

  it("rejects the client's framing inside the emulator", () => {
    const found = checkTesting(
      new Map([[
        "src/testing/emulator/io/x.ts",
        'import { encodeEnvelope } from "../../../protocol/envelope.ts";\n',
      ]]),
    );
    assert.match(found[0]?.message ?? "", /client's wire code src\/protocol\/envelope\.ts/);
  });

  it("keeps the fake cursor-agent and the emulator apart", () => {
    const found = checkTesting(
      new Map([[
        "src/testing/fake-cursor-agent/x.ts",
        'import { createEmulator } from "../emulator/emulator.ts";\n',
      ]]),
    );
    assert.match(found[0]?.message ?? "", /fake-cursor-agent imports src\/testing\/emulator/);
  });

  it("allows imports downwards and within a folder", () => {
    assert.deepEqual(
      checkTesting(
        new Map([
          ["src/testing/emulator/run/x.ts", 'import { y } from "../model/turn/y.ts";\n'],
          ["src/testing/emulator/model/turn/y.ts", 'import { z } from "./z.ts";\n'],
          ["src/testing/emulator/model/turn/z.ts", 'import { v } from "../tools/v.ts";\n'],
          [
            "src/testing/emulator/model/tools/v.ts",
            'import { w } from "../../../directives/w.ts";\n',
          ],
        ]),
      ),
      [],
    );
  });
});
