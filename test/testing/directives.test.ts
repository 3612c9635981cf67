import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseDirectives } from "../../src/testing/emulator/model/plan/directive-plan.ts";
import { parseDuration, parseSize } from "../../src/testing/directives/directive-language.ts";

describe("directive parser", () => {
  it("ignores prose and parses each tool directive into its own step", () => {
    const plan = parseDirectives([
      "Please do these things.",
      "::shell ls -1 | wc -l",
      "::read src/a.ts",
      '::write "dir with space/b.txt" line one\\nline two',
      "::ls",
      "::grep TODO src",
      "::glob *.ts",
      "::delete old.txt",
      '::mcp opencode-bash {"command":"ls"}',
      "::subagent explore find the config",
      "::ask Which color? | red | green",
      "::mode plan because it is big",
      "::plan Refactor: step one\\nstep two",
    ].join("\n"));
    assert.deepEqual(plan.map((step) => step.kind === "tools" ? step.tools[0] : step), [
      { kind: "shell", command: "ls -1 | wc -l" },
      { kind: "read", path: "src/a.ts" },
      { kind: "write", path: "dir with space/b.txt", content: "line one\nline two" },
      { kind: "ls", path: "." },
      { kind: "grep", pattern: "TODO", path: "src" },
      { kind: "glob", pattern: "*.ts", path: "." },
      { kind: "delete", path: "old.txt" },
      { kind: "mcp", name: "opencode-bash", args: { command: "ls" } },
      { kind: "subagent", subagentType: "explore", prompt: "find the config" },
      { kind: "ask", question: "Which color?", options: ["red", "green"] },
      { kind: "mode", target: "plan", explanation: "because it is big" },
      { kind: "plan", name: "Refactor", plan: "step one\nstep two" },
    ]);
  });

  it("groups ::parallel … ::end into one step", () => {
    const plan = parseDirectives("::parallel\n::shell a\n::read b\n::end\n::shell c");
    assert.equal(plan.length, 2);
    assert.equal(plan[0]?.kind === "tools" ? plan[0].tools.length : 0, 2);
    assert.equal(plan[1]?.kind === "tools" ? plan[1].tools.length : 0, 1);
  });

  it("parses output, timing and fault directives", () => {
    assert.deepEqual(
      parseDirectives("::text hi\\nthere\n::think hmm\n::emit 2kb\n::deltas 5\n::sleep 1.5s"),
      [
        { kind: "text", text: "hi\nthere" },
        { kind: "think", text: "hmm" },
        { kind: "emit", bytes: 2048 },
        { kind: "deltas", count: 5 },
        { kind: "sleep", ms: 1500 },
      ],
    );
    assert.deepEqual(parseDirectives("::fault drop after=3")[0], {
      kind: "fault",
      fault: { kind: "drop", afterFrames: 3 },
    });
    assert.deepEqual(parseDirectives("::fault stall ms=200 heartbeats")[0], {
      kind: "fault",
      fault: { kind: "stall", ms: 200, heartbeats: true, afterFrames: 0 },
    });
    const preset = parseDirectives("::fault rate-limit")[0];
    assert.equal(
      preset?.kind === "fault" && preset.fault.kind === "error" ? preset.fault.code : "",
      "resource_exhausted",
    );
  });

  it("parses a late checkpoint, which needs a point before or while a result drains", () => {
    assert.deepEqual(parseDirectives("::fault late-checkpoint at=tool-result times=1")[0], {
      kind: "late-checkpoint",
      point: "tool-result",
      times: 1,
    });
    assert.deepEqual(parseDirectives("::fault late-checkpoint at=exec")[0], {
      kind: "late-checkpoint",
      point: "exec",
    });
    for (const bad of ["::fault late-checkpoint", "::fault late-checkpoint at=tool-ack"]) {
      const [step] = parseDirectives(bad);
      assert.match(
        step?.kind === "error" ? step.message : "",
        /^Directive ::fault late-checkpoint needs at=exec or at=tool-result, got "(tool-ack)?"$/,
      );
    }
  });

  it("turns malformed directives into error steps that name the problem", () => {
    const plan = parseDirectives(
      "::bogus x\n::read\n::emit lots\n::deltas 0\n::mcp t [1]\n::fault wrong-region",
    );
    assert.deepEqual(plan.map((step) => step.kind), [
      "error",
      "error",
      "error",
      "error",
      "error",
      "error",
    ]);
    assert.match(
      plan[0]?.kind === "error" ? plan[0].message : "",
      /Unknown emulator directive "::bogus"/,
    );
    assert.match(plan[1]?.kind === "error" ? plan[1].message : "", /::read needs an argument/);
  });

  it("parses sizes and durations", () => {
    assert.equal(parseSize("64kb"), 65_536);
    assert.equal(parseSize("1mb"), 1_048_576);
    assert.equal(parseSize("500"), 500);
    assert.equal(parseSize("lots"), undefined);
    assert.equal(parseDuration("250"), 250);
    assert.equal(parseDuration("2s"), 2000);
    assert.equal(parseDuration("soon"), undefined);
  });
});
