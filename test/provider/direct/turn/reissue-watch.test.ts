import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import { CursorError } from "../../../../src/core/cursor-error.ts";
import {
  type ReissueBatch,
  ReissueWatch,
} from "../../../../src/provider/direct/turn/reissue-watch.ts";

function result(id: string, toolName = "read"): LanguageModelV3ToolResultPart {
  return { type: "tool-result", toolCallId: id, toolName, output: { type: "text", value: id } };
}

function batch(entries: Record<string, LanguageModelV3ToolResultPart>): {
  batch: ReissueBatch;
  answered: (readonly string[])[];
} {
  const answered: (readonly string[])[] = [];
  return {
    answered,
    batch: {
      results: new Map(Object.entries(entries)),
      missingReason: "not answered",
      reminder: undefined,
      media: undefined,
      answered: (warnings) => answered.push(warnings),
    },
  };
}

function interrupted(reason: string): (error: unknown) => boolean {
  return (error) =>
    error instanceof CursorError && error.code === "interrupted" &&
    error.message === `Cursor did not re-issue the stored tool batch (${reason})`;
}

describe("ReissueWatch", () => {
  it("hands the whole batch over once its last call came, in arrival order", () => {
    const watch = new ReissueWatch();
    const a = result("h1");
    const b = result("h2", "grep");
    watch.expect(batch({ c1: a, c2: b }).batch);
    assert.equal(watch.awaiting, true);
    assert.equal(watch.started, false);
    assert.equal(watch.arrived(watch.resultFor("c2")), undefined);
    assert.equal(watch.started, true);
    const whole = watch.arrived(watch.resultFor("c1"));
    assert.deepEqual(whole?.results, [b, a]);
    assert.equal(watch.awaiting, false);
    assert.equal(watch.mismatch, undefined);
  });

  it("waits for nothing when the batch is empty", () => {
    const watch = new ReissueWatch();
    watch.expect(batch({}).batch);
    assert.equal(watch.awaiting, false);
  });

  it("gives up on an exec that is not one of the batch, naming it", () => {
    const watch = new ReissueWatch();
    watch.expect(batch({ c1: result("h1") }).batch);
    assert.throws(() => watch.resultFor("c9"), interrupted("unknown-call-c9"));
    assert.equal(watch.mismatch, "unknown-call-c9");
    assert.equal(watch.awaiting, false);
    const other = new ReissueWatch();
    other.expect(batch({ c1: result("h1") }).batch);
    assert.throws(() => other.resultFor(undefined), interrupted("unknown-call-without-id"));
  });

  it("gives up when the model speaks, thinks, asks or ends before the batch is whole", () => {
    for (const type of ["text-delta", "thinking-delta", "interaction", "turn-ended"] as const) {
      const watch = new ReissueWatch();
      watch.expect(batch({ c1: result("h1") }).batch);
      assert.throws(() => watch.observe(type), interrupted(`model-${type}`));
      assert.equal(watch.mismatch, `model-${type}`);
    }
  });

  it("lets the re-issued execs, displays and checkpoints pass, and anything once nothing is awaited", () => {
    const watch = new ReissueWatch();
    watch.expect(batch({ c1: result("h1") }).batch);
    for (const type of ["exec", "tool-display", "checkpoint"] as const) watch.observe(type);
    assert.equal(watch.awaiting, true);
    const idle = new ReissueWatch();
    idle.observe("text-delta");
    assert.equal(idle.mismatch, undefined);
  });
});
