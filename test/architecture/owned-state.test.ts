import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { compileSample, OWNED_STATE, writableMembers } from "./owned-state.ts";

const ROOT = process.cwd();

describe("owned state", () => {
  it("the conversation's and the turn's state expose nothing another module could assign", async () => {
    const found: string[] = [];
    for (const owned of OWNED_STATE) {
      const source = await readFile(`${ROOT}/${owned.file}`, "utf8");
      found.push(...writableMembers(owned.file, source, owned.name));
    }
    assert.deepEqual(found, []);
  });

  it("flags a public mutable field in a state holder", () => {
    const sample =
      "export class Conversation {\n  readonly key = 'a';\n  checkpoint: number = 0;\n" +
      "  #held = 1;\n  set mode(value: string) {}\n}\n";
    assert.deepEqual(writableMembers("sample.ts", sample, "Conversation"), [
      "sample.ts: Conversation.checkpoint is writable from other modules",
      "sample.ts: Conversation.mode has a setter",
    ]);
    assert.deepEqual(writableMembers("sample.ts", sample, "ActiveTurn"), [
      "sample.ts: ActiveTurn is missing",
    ]);
  });

  it("an outside assignment to conversation state does not compile; its transition does", () => {
    const header = 'import { Conversation } from "../src/conversation/conversation.ts";\n' +
      'const conversation = new Conversation<never>("ses", "c-1", "c-1", 0);\n';
    const outside = compileSample(
      ROOT,
      "test/owned-state-sample.ts",
      `${header}conversation.checkpoint = new Uint8Array(1);\n`,
    );
    assert.equal(outside.length, 1, outside.join("\n"));
    assert.match(
      outside[0] ?? "",
      /^TS2540: Cannot assign to 'checkpoint' because it is a read-only property/,
    );
    const transition = compileSample(
      ROOT,
      "test/owned-state-sample.ts",
      `${header}conversation.adoptCheckpoint({ bytes: new Uint8Array(1) });\n`,
    );
    assert.deepEqual(transition, []);
  });
});
