import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stepCountIs, streamText, type Tool } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { type AskedQuestion, questionTool, writeTool } from "./host-tools.ts";

const session = (id: string) => ({ providerOptions: { cursor: { sessionId: id } } });

async function turn(
  prompt: string,
  tools: Record<string, Tool>,
  id: string,
  workspaceRoot = "/nonexistent-workspace",
) {
  return await withEmulator({}, async (emulator) => {
    const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot } });
    const text = await streamText({
      model: cursor("gpt-5"),
      prompt,
      tools,
      stopWhen: stepCountIs(6),
      ...session(id),
    }).text;
    const run = emulator.runs().at(-1);
    return {
      text,
      runs: emulator.runs().length,
      interactions: run?.interactions.map((q) => [q.queryCase, q.resultCase]) ?? [],
      violations: emulator.violations(),
    };
  });
}

describe("Cursor's questions reach the host's question tool", () => {
  it("asks the person and sends the picked option back as Cursor's answer", async () => {
    const seen: AskedQuestion[] = [];
    const outcome = await turn(
      "::ask Pick one | red | green",
      { question: questionTool(() => ["green"], seen) },
      "ses_q1",
    );
    assert.match(outcome.text, /ask "Pick one": answered "green"/);
    assert.equal(seen[0]?.question, "Pick one");
    assert.deepEqual(seen[0]?.options.map((o) => o.label), ["red", "green"]);
    assert.equal(outcome.runs, 1, "the answer went back on the held Run");
    assert.deepEqual(outcome.interactions, [[
      "askQuestionInteractionQuery",
      "askQuestionInteractionResponse",
    ]]);
    assert.deepEqual(outcome.violations, []);
  });

  it("sends a typed answer back as free text", async () => {
    const outcome = await turn(
      "::ask Pick one | red | green",
      { question: questionTool(() => ["blue, please"]) },
      "ses_q2",
    );
    assert.match(outcome.text, /ask "Pick one": answered "blue, please"/);
    assert.deepEqual(outcome.violations, []);
  });

  it("answers a dismissal with an explicit decline", async () => {
    const outcome = await turn(
      "::ask Pick one | red | green",
      { question: questionTool(() => "dismiss") },
      "ses_q3",
    );
    assert.match(outcome.text, /ask "Pick one": rejected \(The user dismissed this question\)/);
    assert.deepEqual(outcome.violations, []);
  });

  it("declines explicitly when the host offers no question tool", async () => {
    const outcome = await turn("::ask Pick one | red | green", {}, "ses_q4");
    assert.match(
      outcome.text,
      /ask "Pick one": rejected \(The host offers no question tool in this session\)/,
    );
    assert.deepEqual(outcome.violations, []);
  });
});

describe("mode switches and plans go through the question tool", () => {
  it("approves a mode switch the person accepts and rejects one they refuse", async () => {
    const yes = await turn(
      "::mode plan big change",
      { question: questionTool(() => ["Yes"]) },
      "ses_m1",
    );
    assert.match(yes.text, /mode `plan`: approved/);
    const no = await turn(
      "::mode plan big change",
      { question: questionTool(() => ["No"]) },
      "ses_m2",
    );
    assert.match(no.text, /mode `plan`: rejected \(The user declined the mode switch\)/);
    const dismissed = await turn(
      "::mode plan big change",
      { question: questionTool(() => "dismiss") },
      "ses_m3",
    );
    assert.match(dismissed.text, /mode `plan`: rejected \(The user dismissed this question\)/);
    assert.deepEqual([...yes.violations, ...no.violations, ...dismissed.violations], []);
  });

  it("saves the plan through the host's write tool, shows it and accepts on approval", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-plan-"));
    try {
      const seen: AskedQuestion[] = [];
      const written: string[] = [];
      const outcome = await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot: dir } });
        return await streamText({
          model: cursor("gpt-5"),
          prompt: "::plan Add flag: add a --verbose flag",
          tools: {
            write: writeTool(written),
            question: questionTool(() => ["Implement the plan"], seen),
          },
          stopWhen: stepCountIs(6),
          ...session("ses_p1"),
        }).text;
      });
      const path = join(dir, ".opencode/plans/add-flag.md");
      assert.deepEqual(written, [path]);
      assert.equal(readFileSync(path, "utf8"), "add a --verbose flag");
      assert.match(seen[0]?.question ?? "", /add a --verbose flag/, "the plan is shown");
      assert.match(seen[0]?.question ?? "", /Implement this plan\?/);
      assert.match(outcome, new RegExp(`plan "Add flag": accepted at ${path}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps plan mode when the person declines, and returns typed feedback", async () => {
    const tools = (answer: string[] | "dismiss") => ({
      write: writeTool(),
      question: questionTool(() => answer),
    });
    const dir = mkdtempSync(join(tmpdir(), "cursor-plan-"));
    try {
      const declined = await turn(`::plan Keep: ${dir}`, tools(["Keep planning"]), "ses_p2", dir);
      assert.match(declined.text, /plan "Keep": error \(The user did not approve the plan/);
      const dismissed = await turn(`::plan Keep: ${dir}`, tools("dismiss"), "ses_p3", dir);
      assert.match(dismissed.text, /plan "Keep": error \(The user did not approve the plan/);
      const feedback = await turn(`::plan Keep: ${dir}`, tools(["Split step 2"]), "ses_p4", dir);
      assert.match(
        feedback.text,
        /plan "Keep": error \(The user asked for changes to the plan: Split step 2\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a question whose host turn ends without sending the answer back", () => {
  it("sends the recorded dismissal as the decline when the next user turn starts", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const first = streamText({
        model: cursor("gpt-5"),
        prompt: "::ask Pick one | red | green",
        tools: { question: questionTool(() => "dismiss") },
        // The host stops after the dismissed question (OpenCode ends its loop there).
        stopWhen: stepCountIs(1),
        ...session("ses_d1"),
      });
      await first.text;
      const history = (await first.response).messages;
      assert.equal(emulator.runs()[0]?.interactions[0]?.resultCase, undefined, "still waiting");
      await streamText({
        model: cursor("gpt-5"),
        messages: [
          { role: "user", content: "::ask Pick one | red | green" },
          ...history,
          { role: "user", content: "::text moving on" },
        ],
        tools: { question: questionTool(() => ["red"]) },
        stopWhen: stepCountIs(3),
        ...session("ses_d1"),
      }).text;
      const asked = emulator.runs()[0]?.interactions[0];
      assert.equal(asked?.resultCase, "askQuestionInteractionResponse");
      assert.deepEqual(emulator.violations(), []);
    });
  });
});
