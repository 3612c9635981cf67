/**
 * Plan mode through an AI SDK host against the emulator: an approved plan ends its Run and
 * is built by an `execute_plan_action` Run in the same host turn; declining or dismissing
 * ends the turn and keeps Cursor in plan mode for the next message; typed feedback keeps
 * the turn open; the session's permission rules (as the classic plugin hands them over)
 * block plans when unreadable and hold a plan under an edit deny, read afresh at every
 * continuation.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelMessage, stepCountIs, streamText, type Tool } from "ai";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { type AskedQuestion, type Person, questionTool, writeTool } from "./host-tools.ts";

type Rules =
  | { status: "readable"; rules: { permission: string; pattern: string; action: string }[] }
  | { status: "unreadable"; reason: string };

const EDIT_DENY: Rules = {
  status: "readable",
  rules: [{ permission: "edit", pattern: "*", action: "deny" }],
};
const PLAN_FILE_ALLOWED: Rules = {
  status: "readable",
  rules: [
    { permission: "edit", pattern: "*", action: "deny" },
    { permission: "edit", pattern: ".opencode/plans/*.md", action: "allow" },
  ],
};

interface Host {
  readonly dir: string;
  readonly emulator: CursorEmulator;
  readonly asked: AskedQuestion[];
  /** One host turn: the prompt, the person's answers, the rules of each step (by step number). */
  turn(
    messages: string | ModelMessage[],
    options?: {
      person?: Person;
      rules?: (step: number) => Rules | undefined;
      refuseWrite?: (path: string) => string | undefined;
      /** The host offers no write tool (OpenCode drops it under a session-wide edit deny). */
      noWrite?: boolean;
      steps?: number;
    },
  ): Promise<{ text: string; messages: ModelMessage[]; outputTokens: number | undefined }>;
}

async function withHost(session: string, body: (host: Host) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cursor-plan-mode-"));
  try {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot: dir } });
      const asked: AskedQuestion[] = [];
      await body({
        dir,
        emulator,
        asked,
        async turn(messages, options = {}) {
          const tools: Record<string, Tool> = {
            ...(options.noWrite ? {} : { write: writeTool([], options.refuseWrite) }),
            question: questionTool(options.person ?? (() => ["Implement the plan"]), asked),
          };
          const result = streamText({
            model: cursor("gpt-5"),
            ...(typeof messages === "string" ? { prompt: messages } : { messages }),
            tools,
            stopWhen: stepCountIs(options.steps ?? 8),
            prepareStep: ({ stepNumber }) => {
              const rules = options.rules?.(stepNumber);
              return {
                providerOptions: {
                  cursor: rules === undefined ? { sessionId: session } : {
                    sessionId: session,
                    sessionRules: rules,
                  },
                },
              };
            },
          });
          // Every step's text: the plan Run's and the build Run's answers.
          const text = (await result.steps).map((step) => step.text).join("\n");
          const usage = await result.totalUsage;
          return {
            text,
            messages: (await result.response).messages,
            outputTokens: usage.outputTokens,
          };
        },
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ran = (emulator: CursorEmulator) => emulator.runs().map((run) => `${run.action}:${run.mode}`);

describe("an approved plan is built in the same host turn", () => {
  it("ends the plan Run, then builds the plan with execute_plan_action", async () => {
    await withHost("ses_pm1", async ({ dir, emulator, turn }) => {
      const { text, outputTokens } = await turn(
        "::plan Notes: ::write notes.txt built from the plan",
      );
      const saved = join(dir, ".opencode/plans/notes.md");
      assert.equal(readFileSync(saved, "utf8"), "::write notes.txt built from the plan");
      assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "built from the plan");
      assert.deepEqual(ran(emulator), ["user_message_action:agent", "execute_plan_action:agent"]);
      const [plan, build] = emulator.runs();
      assert.equal(plan?.status, "ok", "the plan Run ended before the build Run");
      assert.ok((plan?.endedAt ?? Infinity) <= (build?.startedAt ?? 0));
      assert.match(text, /plan "Notes": accepted at .*notes\.md/);
      assert.match(text, /write `notes\.txt`/);
      const billed = emulator.runs().reduce((sum, run) => sum + run.counters.output, 0);
      assert.ok((plan?.counters.output ?? 0) > 0);
      assert.equal(outputTokens, billed, "the host's usage covers the plan Run and the build Run");
      assert.deepEqual(emulator.violations(), []);
    });
  });
});

describe("a plan that is not approved keeps Cursor in plan mode", () => {
  it("ends the turn at a decline: later work of the Run is refused, the next message plans", async () => {
    await withHost("ses_pm2", async ({ dir, emulator, turn }) => {
      const first = await turn("::plan Later: maybe\n::write early.txt too soon", {
        person: () => ["Keep planning"],
      });
      assert.match(first.text, /plan "Later": error \(The user did not approve the plan/);
      assert.equal(existsSync(join(dir, "early.txt")), false, "no work after the decline");
      assert.match(first.text, /The user did not approve the plan; wait for the user's next/);
      await turn([
        { role: "user", content: "::plan Later: maybe\n::write early.txt too soon" },
        ...first.messages,
        { role: "user", content: "::write later.txt now" },
      ]);
      assert.equal(existsSync(join(dir, "later.txt")), false);
      assert.deepEqual(ran(emulator), ["user_message_action:agent", "user_message_action:plan"]);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("keeps plan mode after a dismissed review, settled when the next message starts", async () => {
    await withHost("ses_pm3", async ({ dir, emulator, turn }) => {
      // The host stops at the dismissal and calls the model no more, as OpenCode does.
      const first = await turn("::plan Later: maybe", { person: () => "dismiss", steps: 2 });
      assert.equal(emulator.runs()[0]?.interactions[0]?.resultCase, undefined, "still waiting");
      await turn([
        { role: "user", content: "::plan Later: maybe" },
        ...first.messages,
        { role: "user", content: "::write later.txt now" },
      ]);
      assert.equal(
        emulator.runs()[0]?.interactions[0]?.resultCase,
        "createPlanRequestResponse",
      );
      assert.equal(existsSync(join(dir, "later.txt")), false);
      assert.equal(emulator.runs().at(-1)?.mode, "plan");
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("sends typed feedback back as the reply and keeps the turn open", async () => {
    await withHost("ses_pm4", async ({ dir, emulator, turn }) => {
      const { text } = await turn("::plan Later: maybe\n::write next.txt revised", {
        person: () => ["Split step 2"],
      });
      assert.match(text, /error \(The user asked for changes to the plan: Split step 2\)/);
      assert.equal(readFileSync(join(dir, "next.txt"), "utf8"), "revised");
      assert.deepEqual(ran(emulator), ["user_message_action:agent"]);
    });
  });
});

describe("the session's permission rules", () => {
  it("blocks a plan and an implementing switch when the rules are unreadable", async () => {
    await withHost("ses_pm5", async ({ dir, emulator, asked, turn }) => {
      const unreadable: Rules = { status: "unreadable", reason: "lookup failed twice" };
      const { text } = await turn("::plan P: step\n::mode agent build it\n::mode plan think", {
        rules: () => unreadable,
        person: () => ["Yes"],
      });
      assert.match(text, /plan "P": error \(This plan needs the session's permission rules/);
      assert.match(text, /mode `agent`: rejected \(Switching to agent mode needs the session's/);
      assert.match(text, /mode `plan`: approved/);
      assert.equal(existsSync(join(dir, ".opencode/plans/p.md")), false, "nothing saved");
      assert.deepEqual(asked.map((q) => q.header), ["Switch to plan mode?"]);
      assert.match(text, /Cursor's plan "P" was not saved: the session's permission rules could/);
      const ordinary = await turn("::text still here", { rules: () => unreadable });
      assert.match(ordinary.text, /still here/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("ends a CreatePlan whose save an edit deny refuses, before any queued tool runs", async () => {
    await withHost("ses_pm6", async ({ dir, emulator, asked, turn }) => {
      const { text } = await turn("::plan P: step\n::write after.txt no", {
        rules: () => EDIT_DENY,
        refuseWrite: () => "The user has specified a rule which prevents you from using this tool",
      });
      assert.match(text, /plan "P": error \(The plan could not be saved \(.*prevents you/);
      assert.deepEqual(asked, [], "no implementation question");
      assert.equal(existsSync(join(dir, "after.txt")), false);
      assert.match(text, /write `after\.txt`: rejected \(The plan is held by the session's/);
      assert.deepEqual(ran(emulator), ["user_message_action:agent"]);
      // With no edit tool offered at all, the person is still told why.
      const bare = await turn("::plan Q: step", { rules: () => EDIT_DENY, noWrite: true });
      assert.match(bare.text, /plan "Q": error \(The plan could not be saved \(no host tool/);
      assert.match(bare.text, /Cursor's plan "Q" could not be saved .*This session denies file/);
    });
  });

  it("keeps a plan saved under a plan-file exception without asking to implement it", async () => {
    await withHost("ses_pm7", async ({ dir, emulator, asked, turn }) => {
      const { text } = await turn("::plan P: step one\n::write after.txt no", {
        rules: () => PLAN_FILE_ALLOWED,
      });
      assert.equal(readFileSync(join(dir, ".opencode/plans/p.md"), "utf8"), "step one");
      assert.deepEqual(asked, []);
      assert.match(
        text,
        /plan "P": error \(The plan is saved at .*p\.md\. Implementing it is held/,
      );
      assert.match(text, /This session denies file edits, so it is not offered for implementation/);
      assert.equal(existsSync(join(dir, "after.txt")), false);
      assert.deepEqual(ran(emulator), ["user_message_action:agent"]);
    });
  });

  it("reads the rules afresh in held continuations: a deny added or lifted meanwhile counts", async () => {
    await withHost("ses_pm8", async ({ emulator, asked, turn }) => {
      // Step 0 asks for the save; the deny arrives with the save's result.
      const held = await turn("::plan P: one", {
        rules: (step) => step === 0 ? undefined : EDIT_DENY,
      });
      assert.match(held.text, /Implementing it is held: this session denies file edits/);
      assert.equal(asked.length, 0);
      // A deny lifted while the save waited: the normal review is asked.
      const lifted = await turn("::plan Q: two", {
        rules: (step) => step === 0 ? PLAN_FILE_ALLOWED : { status: "readable", rules: [] },
      });
      assert.deepEqual(asked.map((q) => q.header), ["Q"]);
      assert.match(lifted.text, /plan "Q": accepted/);
      // A deny added while the review waited holds the approved plan.
      const late = await turn("::plan R: three", {
        rules: (step) => step < 2 ? undefined : EDIT_DENY,
      });
      assert.match(late.text, /plan "R": error \(Implementing this plan is held/);
      assert.equal(emulator.runs().filter((r) => r.action === "execute_plan_action").length, 1);
    });
  });
});
