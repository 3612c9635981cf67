import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, type ModelMessage } from "ai";
import { emulatorProvider, withEmulator } from "../../../support/emulator.ts";
import {
  COMPACTION_CONTINUE_TEXT,
  COMPACTION_SYSTEM_PROMPT,
} from "../../../continuity/fixtures/opencode-prompts.ts";

const quiet = { maxRetries: 0 } as const;
const SYSTEM = "You are opencode, an interactive CLI tool.";

function field(line: string | undefined, name: string): string | undefined {
  return line?.match(new RegExp(`(?:^| )${name}=(\\S+)`))?.[1];
}

describe("compaction and history changes (direct backend)", () => {
  it("runs compaction ephemerally, rebases once on the summary, then stays warm in the same group", async () => {
    await withEmulator({}, async (emulator) => {
      const lines: string[] = [];
      const cursor = emulatorProvider(emulator, "sse", {
        debug: { enabled: true, line: (text) => lines.push(text) },
        conversationSnapshots: false,
      });
      const session = { providerOptions: { cursor: { sessionId: "ses_compact" } } };
      const ask = (messages: ModelMessage[], system = SYSTEM) =>
        generateText({ model: cursor("gpt-5"), system, messages, ...session, ...quiet });
      const opener: ModelMessage = { role: "user", content: "Remember the word plum" };
      const turn1 = await ask([opener]);
      const firstConversation = emulator.runs()[0]?.conversationId;

      const summary = await ask([{
        role: "user",
        content: `Summarize.\nThe following is the conversation history:\n${turn1.text}`,
      }], COMPACTION_SYSTEM_PROMPT);
      assert.notEqual(emulator.runs()[1]?.conversationId, firstConversation, "ephemeral Run");
      assert.ok(lines.some((l) => l.startsWith("compaction=true sessionKey=ses_compact ")));

      const afterCompaction: ModelMessage[] = [
        { role: "user", content: "What did we do so far?" },
        { role: "assistant", content: `${summary.text} The word is plum.` },
        { role: "user", content: COMPACTION_CONTINUE_TEXT },
      ];
      const turn3 = await ask(afterCompaction);
      const rebase = lines.find((l) =>
        l.startsWith("conversation reset: reason=post-compaction-rebase")
      );
      assert.ok(rebase, lines.filter((l) => l.startsWith("conversation reset")).join("\n"));
      const rebased = emulator.runs()[2];
      assert.equal(rebased?.continuity, "cold");
      assert.notEqual(rebased?.conversationId, firstConversation, "the conversation id rotates");
      assert.equal(field(rebase, "conversationGroupId"), firstConversation, "the group stays");

      await ask([...afterCompaction, { role: "assistant", content: turn3.text }, {
        role: "user",
        content: "And now?",
      }]);
      const warm = emulator.runs()[3];
      assert.equal(warm?.continuity, "warm");
      assert.equal(warm?.conversationId, rebased?.conversationId);
      assert.equal(warm?.userText, "And now?");
      assert.equal(
        lines.filter((l) => l.startsWith("conversation reset:")).length,
        1,
        "exactly one rebase",
      );
    });
  });

  it("keeps one conversation across a Cursor model switch and reseeds once after a foreign assistant", async () => {
    await withEmulator({}, async (emulator) => {
      const lines: string[] = [];
      const cursor = emulatorProvider(emulator, "sse", {
        debug: { enabled: true, line: (text) => lines.push(text) },
        conversationSnapshots: false,
      });
      const session = { providerOptions: { cursor: { sessionId: "ses_switch" } } };
      const ask = (model: string, messages: ModelMessage[]) =>
        generateText({ model: cursor(model), system: SYSTEM, messages, ...session, ...quiet });
      const m1: ModelMessage = { role: "user", content: "Remember the word pear" };
      const t1 = await ask("gpt-5", [m1]);
      const m2: ModelMessage[] = [m1, { role: "assistant", content: t1.text }, {
        role: "user",
        content: "Still there?",
      }];
      const t2 = await ask("claude-4.5-sonnet", m2);
      assert.equal(emulator.runs()[1]?.continuity, "warm", "a model switch stays warm");
      assert.equal(emulator.runs()[1]?.conversationId, emulator.runs()[0]?.conversationId);

      const foreign: ModelMessage[] = [
        ...m2,
        { role: "assistant", content: t2.text },
        { role: "user", content: "Question for the other provider" },
        { role: "assistant", content: "An answer this provider never gave." },
        { role: "user", content: "Back to Cursor" },
      ];
      const t3 = await ask("gpt-5", foreign);
      assert.ok(
        lines.some((l) =>
          l.startsWith("conversation reset: reason=foreign-history:foreign-assistant")
        ),
      );
      assert.equal(emulator.runs()[2]?.continuity, "cold");
      await ask("gpt-5", [...foreign, { role: "assistant", content: t3.text }, {
        role: "user",
        content: "And again",
      }]);
      assert.equal(emulator.runs()[3]?.continuity, "warm", "one reseed, then warm");
      assert.equal(lines.filter((l) => l.startsWith("conversation reset:")).length, 1);
    });
  });
});
