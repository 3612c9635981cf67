/**
 * The emulated model on a rebuilt conversation: a seeded `<conversation_so_far>` history
 * ending with tool results is matched to the directives of its user message, and the turn
 * carries on from the first directive not done; a history that does not match gets the echo.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readRebuiltTurn } from "../../../../../src/testing/emulator/model/scenario/continuation.ts";
import { startHarness } from "../../../support/harness.ts";
import { driveTurn, newHostState } from "../../../support/host.ts";

/** A seed the way the direct provider renders host history. */
function seed(entries: readonly string[], instruction = "Continue the task from here."): string {
  return `<conversation_so_far>\n${entries.join("\n")}\n</conversation_so_far>\n\n${instruction}`;
}
const userEntry = (text: string) => `<user>\n${text}\n</user>`;
const callEntry = (text: string, ...calls: [string, unknown][]) =>
  `<assistant>\n${
    [text, ...calls.map(([name, input]) => `[tool call ${name} ${JSON.stringify(input)}]`)]
      .filter((line) => line !== "").join("\n")
  }\n</assistant>`;
const resultEntry = (name: string, value: string, type = "text") =>
  `<tool name="${name}">\n${JSON.stringify({ type, value })}\n</tool>`;

const TWO_SHELLS = "::text Looking.\n::shell echo one\n::shell echo two\n::text Done.";

describe("reading a rebuilt turn", () => {
  it("counts the tool steps done and quotes their results as the turn did", () => {
    const turn = readRebuiltTurn(seed([
      userEntry(TWO_SHELLS),
      callEntry("Looking.", ["bash", { command: "echo one", description: "echo one" }]),
      resultEntry("bash", "one\n"),
    ]));
    assert.equal(turn.kind, "continue");
    if (turn.kind !== "continue") return;
    assert.equal(turn.completedSteps, 1);
    assert.equal(turn.userText, TWO_SHELLS);
    assert.deepEqual(turn.results.map((r) => [r.ok, r.summary]), [
      [true, "shell `echo one` exited 0: one"],
    ]);
  });

  it("reads a failed command's exit status, a parallel step and an MCP call", () => {
    const turn = readRebuiltTurn(seed([
      userEntry(
        "::parallel\n::shell false\n::shell echo b\n::end\n" +
          '::mcp opencode-bash {"command":"pwd"}\n::text End.',
      ),
      callEntry("", ["bash", { command: "false" }], ["bash", { command: "echo b" }]),
      resultEntry("bash", "oops\n[exit status 1]"),
      resultEntry("bash", "b\n"),
      callEntry("", ["bash", { command: "pwd" }]),
      resultEntry("bash", "/ws\n"),
    ]));
    assert.equal(turn.kind, "continue");
    if (turn.kind !== "continue") return;
    assert.equal(turn.completedSteps, 2);
    assert.deepEqual(turn.results.map((r) => [r.ok, r.summary]), [
      [false, "shell `false` exited 1: oops"],
      [true, "shell `echo b` exited 0: b"],
      [true, "mcp `opencode-bash`: /ws"],
    ]);
  });

  const unmatched: [string, string[]][] = [
    ["another command", [
      callEntry("", ["bash", { command: "echo other" }]),
      resultEntry("bash", "other\n"),
    ]],
    ["a missing result", [
      callEntry("", ["bash", { command: "echo one" }]),
      resultEntry("bash", "one\n"),
      callEntry("", ["bash", { command: "echo two" }]),
      callEntry("", ["bash", { command: "echo two" }]),
      resultEntry("bash", "two\n"),
    ]],
    ["a result under another tool name", [
      callEntry("", ["bash", { command: "echo one" }]),
      resultEntry("shell", "one\n"),
    ]],
    ["an answer already given", [
      callEntry("", ["bash", { command: "echo one" }]),
      resultEntry("bash", "one\n"),
      callEntry("All done."),
      callEntry("", ["bash", { command: "echo two" }]),
      resultEntry("bash", "two\n"),
    ]],
    ["more tool steps than directives", [
      callEntry("", ["bash", { command: "echo one" }]),
      resultEntry("bash", "one\n"),
      callEntry("", ["bash", { command: "echo two" }]),
      resultEntry("bash", "two\n"),
      callEntry("", ["bash", { command: "echo three" }]),
      resultEntry("bash", "three\n"),
    ]],
    ["a result that is not text", [
      callEntry("", ["bash", { command: "echo one" }]),
      `<tool name="bash">\n${JSON.stringify({ type: "json", value: { a: 1 } })}\n</tool>`,
    ]],
  ];
  for (const [name, after] of unmatched) {
    it(`does not carry on over ${name}`, () => {
      const turn = readRebuiltTurn(seed([userEntry(TWO_SHELLS), ...after]));
      assert.equal(turn.kind, "unmatched", JSON.stringify(turn));
    });
  }

  it("does not carry on over a tool whose result host history cannot quote", () => {
    const turn = readRebuiltTurn(seed([
      userEntry("::read README.md\n::text Done."),
      callEntry("", ["read", { filePath: "/ws/README.md" }]),
      resultEntry("read", "1: # Demo"),
    ]));
    assert.deepEqual(turn, {
      kind: "unmatched",
      reason: "a read result cannot be quoted from host history",
    });
  });

  it("is not a rebuilt turn without a seeded block, directives or results at its end", () => {
    assert.equal(readRebuiltTurn("::shell echo one").kind, "none");
    assert.equal(
      readRebuiltTurn(seed([userEntry("Just chatting."), callEntry("Hello.")])).kind,
      "none",
    );
    assert.equal(
      readRebuiltTurn(seed([
        userEntry("No directives here."),
        callEntry("", ["bash", { command: "ls" }]),
        resultEntry("bash", "a\n"),
      ])).kind,
      "none",
    );
    assert.equal(
      readRebuiltTurn(seed([userEntry(TWO_SHELLS), callEntry("Answered.")])).kind,
      "none",
    );
  });
});

describe("the emulated model on a rebuilt conversation", () => {
  it("runs only the directives not done and quotes every result once", async () => {
    const harness = await startHarness();
    try {
      const turn = await driveTurn(harness.target("sse"), newHostState(), {
        text: seed([
          userEntry(TWO_SHELLS),
          callEntry("Looking.", ["bash", { command: "echo one" }]),
          resultEntry("bash", "one\n"),
        ]),
      });
      assert.equal(
        turn.text,
        "Done.Tool results:\n- shell `echo one` exited 0: one\n- shell `echo two` exited 0: two",
      );
      const [run] = harness.emulator.runs();
      assert.deepEqual(
        run?.execs.filter((e) => e.requestCase !== "requestContextArgs").length,
        1,
        "only `echo two` runs",
      );
      assert.equal(run?.variants.continuation, "history");
      assert.deepEqual(harness.emulator.violations(), []);
    } finally {
      await harness.emulator.close();
    }
  });

  it("answers a history it cannot match with the echo and records it", async () => {
    const harness = await startHarness();
    try {
      const text = seed([
        userEntry(TWO_SHELLS),
        callEntry("", ["bash", { command: "echo other" }]),
        resultEntry("bash", "other\n"),
      ]);
      const turn = await driveTurn(harness.target("http2"), newHostState(), { text });
      assert.match(turn.text, /^Emulator reply \(turn 1\)\. You said: /);
      const [run] = harness.emulator.runs();
      assert.equal(run?.execs.filter((e) => e.requestCase !== "requestContextArgs").length, 0);
      assert.equal(run?.variants.continuation, "unmatched");
    } finally {
      await harness.emulator.close();
    }
  });
});
