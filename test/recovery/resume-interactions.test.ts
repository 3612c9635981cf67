/**
 * Question, mode-switch and plan replies use the same acknowledgement guard as tool results:
 * a drop after Cursor acknowledged the reply and saved its checkpoint resumes from it (the
 * answer once, the question asked once); a drop before the acknowledgement has no checkpoint
 * to resume from.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonSchema, type Tool, tool } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { streamToolTurn, user } from "./support.ts";

/** OpenCode's question tool, answered with the first option each time. */
function questionTool(asked: string[]): Tool {
  return tool({
    description: "Ask the user questions",
    inputSchema: jsonSchema<{ questions: { question: string; options: { label: string }[] }[] }>({
      type: "object",
      properties: { questions: { type: "array" } },
      required: ["questions"],
    }),
    execute: ({ questions }) => {
      asked.push(...questions.map((q) => q.question));
      const pairs = questions.map((q) => `"${q.question}"="${q.options[0]?.label ?? ""}"`);
      return `User has answered your questions: ${pairs.join(", ")}.`;
    },
  });
}

const DIRECTIVES = {
  question: "::ask Pick one | alpha | beta",
  "mode switch": "::mode plan Needs a plan first",
  plan: "::plan Ship it: step one",
};

for (const transport of ["sse", "http2"] as const) {
  describe(`interaction replies and resume (${transport})`, () => {
    for (const [name, directive] of Object.entries(DIRECTIVES)) {
      it(`a drop after the ${name} reply was acknowledged resumes, answered once`, async () => {
        const { logger, lines } = createMemoryLogger();
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport, { debug: logger });
          const script = `${directive}\n::fault drop times=1\n::text After the reply.`;
          const clean = `${directive}\n::text After the reply.`;
          const reference = await streamToolTurn(cursor, [user(clean)], "ses_ref", {
            question: questionTool([]),
          });
          assert.equal(reference.error, undefined, String(reference.error));
          const asked: string[] = [];
          const before = emulator.runs().length;
          const outcome = await streamToolTurn(cursor, [user(script)], "ses_ask", {
            question: questionTool(asked),
          });
          assert.equal(outcome.error, undefined, String(outcome.error));
          assert.equal(outcome.text, reference.text, "the answer, exactly once");
          const runs = emulator.runs().slice(before);
          assert.deepEqual(runs.map((run) => run.action), ["user_message_action", "resume_action"]);
          assert.ok(asked.length <= 1, "the person is asked at most once");
          assert.ok(lines.some((l) => /^resuming .* checkpoint/.test(l)));
          assert.deepEqual(emulator.violations(), []);
        });
      });
    }

    it("a drop before the question reply was acknowledged does not resume", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const script = "::fault drop times=1 at=tool-result\n::ask Pick one | alpha | beta\n" +
          "::text After the reply.";
        const outcome = await streamToolTurn(cursor, [user(script)], "ses_early", {
          question: questionTool([]),
        });
        assert.equal(outcome.error, undefined, String(outcome.error));
        const actions = emulator.runs().map((run) => run.action);
        assert.ok(!actions.includes("resume_action"), actions.join());
        assert.equal(emulator.runs().at(-1)?.continuity, "cold", "rebuilt from host history");
      });
    });
  });
}
