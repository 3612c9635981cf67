import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { checkRoomRanks, DIRECT_ROOM_RANKS, RANKED_AREA } from "./room-ranks.ts";

/** Tests run from the repository root on every runtime. */
const ROOT = pathToFileURL(`${process.cwd()}/`);

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(new URL(dir, ROOT), { withFileTypes: true })) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory()) out.push(...await filesUnder(`${path}/`));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

function messages(path: string, source: string): string[] {
  return checkRoomRanks(path, source).map((v) => v.message);
}

describe("architecture: the direct backend's rooms", () => {
  it("import only lower rooms, and every room is ranked", async () => {
    const files = await filesUnder(RANKED_AREA);
    assert.ok(files.length > 50, "expected to find the direct backend's files");
    const violations = [];
    for (const file of files) {
      const source = await readFile(new URL(file, ROOT), "utf8");
      violations.push(
        ...checkRoomRanks(file, source).map((v) => `${v.file}:${v.line} ${v.message}`),
      );
    }
    assert.deepEqual(violations, []);
    const rooms = new Set(files.map((file) => file.slice(RANKED_AREA.length).split("/")[0]));
    assert.deepEqual([...rooms].sort(), Object.keys(DIRECT_ROOM_RANKS).sort());
  });

  it("flags an import that runs up", () => {
    const found = messages(
      "src/provider/direct/turn/x.ts",
      'import { prepareRun } from "../run/run-opener.ts";\n',
    );
    assert.deepEqual(found, [
      'room turn (rank 4) imports a higher room run ("src/provider/direct/run/run-opener.ts")',
    ]);
  });

  it("flags a type-only import that runs up as well", () => {
    const found = messages(
      "src/provider/direct/call/x.ts",
      'import type { TurnPlan } from "../turn-plan/turn-plan.ts";\n',
    );
    assert.equal(found.length, 1);
    assert.match(found[0] ?? "", /imports a higher room turn-plan/);
  });

  it("flags imports between rooms of one rank, both ways", () => {
    assert.match(
      messages(
        "src/provider/direct/call/x.ts",
        'import { a } from "../recovery/budget.ts";\n',
      )[0] ??
        "",
      /imports a room of the same rank recovery/,
    );
    assert.match(
      messages("src/provider/direct/recovery/x.ts", 'import { a } from "../call/y.ts";\n')[0] ?? "",
      /imports a room of the same rank call/,
    );
  });

  it("flags a room without a rank, and a file importing one", () => {
    assert.deepEqual(messages("src/provider/direct/extra/x.ts", ""), [
      "room extra has no rank in DIRECT_ROOM_RANKS",
    ]);
    assert.match(
      messages("src/provider/direct/run/x.ts", 'import { a } from "../extra/y.ts";\n')[0] ?? "",
      /imports an unranked room extra/,
    );
  });

  it("lets an import go down, stay in its room, or leave the area", () => {
    const source = [
      'import { emitDiagnostic } from "../diagnostics/format.ts";',
      'import { ActiveTurn } from "../turn/active-turn.ts";',
      'import { openAgentRun } from "./run-opener.ts";',
      'import type { StartFacts } from "../turn-types.ts";',
      'import { CursorError } from "../../../core/cursor-error.ts";',
      "",
    ].join("\n");
    assert.deepEqual(messages("src/provider/direct/run/x.ts", source), []);
  });

  it("keeps the types-only room free of values", () => {
    const source = [
      'import type { AgentRun } from "../../agent-run/agent-run.ts";',
      'import { CursorError } from "../../core/cursor-error.ts";',
      "export interface A { readonly run: AgentRun }",
      "export type B = 1 | 2;",
      "export const C = 3;",
      "export function d(): void {}",
      "",
    ].join("\n");
    assert.deepEqual(messages("src/provider/direct/turn-types.ts", source), [
      "a types-only room imports a value",
      "a types-only room declares a value",
      "a types-only room declares a value",
    ]);
  });

  it("keeps the types-only room from importing the backend's own rooms", () => {
    const found = messages(
      "src/provider/direct/turn-types.ts",
      'import type { HostTools } from "./tools/host-tools.ts";\n',
    );
    assert.deepEqual(found, [
      'room turn-types.ts (rank 0) imports a higher room tools ("src/provider/direct/tools/host-tools.ts")',
    ]);
  });
});
