/**
 * Rule reminders for Cursor's model through an AI SDK host against the emulator: an edit
 * deny in the session's rules is told once with the next user message; unchanged rules
 * tell nothing; lifting the deny sends a replacement once (and plans still go through the
 * review); a deny restored is told again; a rule change while tools run reaches the held
 * continuation with the host tool's result; sessions that never denied edits hear nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonSchema, type ModelMessage, stepCountIs, streamText, type Tool, tool } from "ai";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { type AskedQuestion, questionTool, writeTool } from "./host-tools.ts";

type Rules = {
  status: "readable";
  rules: { permission: string; pattern: string; action: string }[];
};

const DENY_EDITS = { permission: "edit", pattern: "*", action: "deny" };
const EDIT_DENY: Rules = { status: "readable", rules: [DENY_EDITS] };
const LIFTED: Rules = {
  status: "readable",
  rules: [DENY_EDITS, { permission: "edit", pattern: "*", action: "allow" }],
};
const NO_RULES: Rules = { status: "readable", rules: [] };

const DENIED = /session rules deny file edits/;
const ALLOWED = /session rules allow file edits again/;

interface Session {
  readonly emulator: CursorEmulator;
  readonly asked: AskedQuestion[];
  /** One host turn in the same session (history kept); rules per step. */
  turn(text: string, rules: (step: number) => Rules | undefined): Promise<string>;
}

async function withSession(id: string, body: (session: Session) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cursor-rule-reminders-"));
  try {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot: dir } });
      const asked: AskedQuestion[] = [];
      const history: ModelMessage[] = [];
      const tools: Record<string, Tool> = {
        write: writeTool(),
        question: questionTool(() => ["Implement the plan"], asked),
        lookup: tool({
          description: "Look a word up",
          inputSchema: jsonSchema<{ word: string }>({
            type: "object",
            properties: { word: { type: "string" } },
            required: ["word"],
          }),
          execute: ({ word }) => `${word}: found`,
        }),
      };
      await body({
        emulator,
        asked,
        async turn(text, rules) {
          history.push({ role: "user", content: text });
          const result = streamText({
            model: cursor("gpt-5"),
            messages: [...history],
            tools,
            stopWhen: stepCountIs(8),
            prepareStep: ({ stepNumber }) => {
              const sessionRules = rules(stepNumber);
              return {
                providerOptions: {
                  cursor: sessionRules === undefined
                    ? { sessionId: id }
                    : { sessionId: id, sessionRules },
                },
              };
            },
          });
          const answer = (await result.steps).map((step) => step.text).join("\n");
          history.push(...(await result.response).messages);
          return answer;
        },
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The user message text of each Run. */
const userTexts = (emulator: CursorEmulator) => emulator.runs().map((run) => run.userText);

/** How many lines of what Cursor's model saw last in a Run match. */
function seen(emulator: CursorEmulator, run: number, pattern: RegExp): number {
  const context = emulator.runs()[run]?.modelCalls.at(-1)?.context ?? [];
  return context.filter((line) => pattern.test(line)).length;
}

describe("rule reminders with the user message", () => {
  it("tells a deny once, a lift once, and a restored deny again", async () => {
    await withSession("ses_rr1", async ({ emulator, turn }) => {
      await turn("::text one", () => EDIT_DENY);
      await turn("::text two", () => EDIT_DENY);
      await turn("::text three", () => LIFTED);
      await turn("::text four", () => LIFTED);
      await turn("::text five", () => EDIT_DENY);
      const texts = userTexts(emulator);
      assert.equal(texts.length, 5);
      assert.deepEqual(texts.map((text) => DENIED.test(text)), [true, false, false, false, true]);
      assert.deepEqual(texts.map((text) => ALLOWED.test(text)), [false, false, true, false, false]);
      assert.match(texts[0] ?? "", /^::text one\n\n<system-reminder>/, "after the person's text");
      // Cursor's context holds each reminder once: the conversation carries the earlier ones.
      assert.equal(seen(emulator, 1, DENIED), 1);
      assert.equal(seen(emulator, 3, ALLOWED), 1);
      assert.equal(seen(emulator, 4, DENIED), 2, "the first deny and the restored one");
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("sends none to a session that never denied edits, tool steps included", async () => {
    await withSession("ses_rr2", async ({ emulator, turn }) => {
      await turn('::mcp lookup {"word":"a"}\n::text one', () => NO_RULES);
      await turn("::text two", () => LIFTED);
      await turn("::text three", () => undefined);
      assert.equal(emulator.runs().length, 3);
      for (let run = 0; run < 3; run++) {
        assert.equal(seen(emulator, run, /system-reminder/), 0, `run ${run}`);
      }
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("still asks the plan review after a lifted deny", async () => {
    await withSession("ses_rr3", async ({ emulator, asked, turn }) => {
      await turn("::text denied", () => EDIT_DENY);
      const answer = await turn("::plan P: step one", () => LIFTED);
      assert.match(emulator.runs()[1]?.userText ?? "", ALLOWED);
      assert.deepEqual(asked.map((question) => question.header), ["P"], "the review was asked");
      assert.match(answer, /plan "P": accepted/);
      assert.deepEqual(emulator.violations(), []);
    });
  });
});

describe("rule reminders in held continuations", () => {
  it("reach Cursor with the host tool's result when the rules change while it runs", async () => {
    await withSession("ses_rr4", async ({ emulator, turn }) => {
      // Step 0 asks for the lookup; the deny arrives with its result.
      await turn(
        '::mcp lookup {"word":"a"}\n::text done',
        (step) => step === 0 ? NO_RULES : EDIT_DENY,
      );
      assert.doesNotMatch(emulator.runs()[0]?.userText ?? "", DENIED);
      assert.equal(seen(emulator, 0, DENIED), 1, "the tool result carried the reminder");
      // Lifted while the next lookup runs: the replacement reaches that continuation.
      await turn(
        '::mcp lookup {"word":"b"}\n::text done',
        (step) => step === 0 ? EDIT_DENY : LIFTED,
      );
      assert.doesNotMatch(emulator.runs()[1]?.userText ?? "", DENIED, "already told");
      assert.equal(seen(emulator, 1, ALLOWED), 1);
      // Nothing changed: the next turn tells nothing.
      await turn("::text quiet", () => LIFTED);
      assert.doesNotMatch(emulator.runs()[2]?.userText ?? "", /system-reminder/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("are told again to a conversation rebuilt from host history", async () => {
    await withSession("ses_rr5", async ({ emulator, turn }) => {
      await turn("::text one", () => EDIT_DENY);
      // The held Run drops once the lookup's result goes in: the turn is rebuilt cold.
      await turn(
        '::fault drop times=1 at=tool-result\n::mcp lookup {"word":"a"}\n::text After.',
        () => EDIT_DENY,
      );
      const runs = emulator.runs();
      assert.equal(runs.length, 3, "the first turn, the broken Run and the rebuilt one");
      assert.doesNotMatch(runs[1]?.userText ?? "", DENIED, "the conversation was told already");
      assert.notEqual(runs[2]?.conversationId, runs[1]?.conversationId);
      assert.match(runs[2]?.userText ?? "", DENIED, "the new conversation is told");
      assert.deepEqual(emulator.violations(), []);
    });
  });
});
