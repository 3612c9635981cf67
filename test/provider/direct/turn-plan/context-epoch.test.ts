import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, type ModelMessage } from "ai";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { emulatorProvider, withEmulator } from "../../../support/emulator.ts";
import { createSnapshotFileStore } from "../../../../src/adapters/node/files/snapshot-file-store.ts";
import {
  admitContextEpoch,
  instructionSources,
  WHOLE_PROMPT_SOURCE,
} from "../../../../src/provider/direct/turn-plan/context-epoch.ts";

/** The tail of OpenCode 1.18.33's system prompt: one AGENTS.md, then the skills (real output). */
const OPENCODE_TAIL = readFileSync("test/fixtures/opencode/system-prompt-skills.txt", "utf8");
const ENV = "<env>\n  Working directory: /home/dev/project\n</env>\n";
const AGENTS = "/home/dev/project/AGENTS.md";
const NESTED = "/home/dev/project/sub/AGENTS.md";

/** OpenCode's read result when the read brought in a nested AGENTS.md (its read tool's shape). */
function nestedRead(text: string): LanguageModelV3Prompt {
  return [{
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "c1",
      toolName: "read",
      output: {
        type: "text",
        value: "<path>/home/dev/project/sub/a.txt</path>\n<type>file</type>\n<content>\n1: a\n\n" +
          "(End of file - total 1 lines)\n</content>\n\n<system-reminder>\n" +
          `Instructions from: ${NESTED}\n${text}\n</system-reminder>`,
      },
    }],
  }];
}

describe("instruction sources", () => {
  it("reads OpenCode's AGENTS.md section, stopping before the skills", () => {
    const sources = instructionSources(ENV + OPENCODE_TAIL, []);
    assert.deepEqual([...sources], [[AGENTS, "Be nice (agents file)."]]);
  });

  it("adds a nested AGENTS.md that a read brought in", () => {
    const sources = instructionSources(ENV + OPENCODE_TAIL, nestedRead("Use tabs in sub."));
    assert.equal(sources.get(NESTED), "Use tabs in sub.");
    assert.equal(sources.size, 2);
  });

  it("takes a system prompt that is not OpenCode's as one source", () => {
    assert.deepEqual([...instructionSources("Answer in French.", [])], [[
      WHOLE_PROMPT_SOURCE,
      "Answer in French.",
    ]]);
    assert.equal(instructionSources(ENV, []).size, 0, "OpenCode without AGENTS.md has none");
  });

  it("admits only changes, reasserts all after a restore, and says nothing on a cold Run", () => {
    const one = new Map([[AGENTS, "v1"]]);
    const two = new Map([[AGENTS, "v2"], [NESTED, "n"]]);
    assert.equal(admitContextEpoch(undefined, two, true).reminder, undefined);
    assert.equal(admitContextEpoch(two, two, false).reminder, undefined);
    const changed = admitContextEpoch(one, two, false);
    assert.deepEqual(changed.sent, [AGENTS, NESTED]);
    assert.match(changed.reminder ?? "", /changed since they were last sent/);
    const gone = admitContextEpoch(two, one, false);
    assert.deepEqual(gone.removed, [NESTED]);
    assert.match(gone.reminder ?? "", new RegExp(`Instructions from ${NESTED} no longer apply`));
    const restored = admitContextEpoch(undefined, one, false);
    assert.equal(restored.reasserted, true);
    assert.deepEqual(restored.sent, [AGENTS]);
  });
});

describe("changed instructions reach Cursor's model once, on the next Run (emulator)", () => {
  it("an edited AGENTS.md goes out once; after a restart the first Run reasserts the current ones", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-context-epoch-"));
      const lines: string[] = [];
      const provider = () =>
        emulatorProvider(emulator, "sse", {
          conversationSnapshots: createSnapshotFileStore({ directory }),
          debug: { enabled: true, line: (text) => lines.push(text) },
        });
      const history: ModelMessage[] = [];
      const system = (agents: string) =>
        `${ENV}Instructions from: ${AGENTS}\n${agents}\n\nSkills provide specialized instructions and workflows for specific tasks.`;
      const ask = async (cursor: ReturnType<typeof provider>, agents: string, text: string) => {
        history.push({ role: "user", content: text });
        const result = await generateText({
          model: cursor("gpt-5"),
          system: system(agents),
          messages: history,
          providerOptions: { cursor: { sessionId: "ses_epoch" } },
          maxRetries: 0,
        });
        history.push({ role: "assistant", content: result.text });
      };
      const cursor = provider();
      await ask(cursor, "Use spaces.", "::text one");
      await ask(cursor, "Use spaces.", "::text two");
      await ask(cursor, "Use tabs.", "::text three");
      await ask(cursor, "Use tabs.", "::text four");
      const restarted = provider();
      await ask(restarted, "Use tabs.", "::text five");
      await ask(restarted, "Use tabs.", "::text six");
      const texts = emulator.runs().map((run) => run.userText);
      assert.deepEqual(emulator.runs().map((run) => run.continuity), [
        "cold",
        "warm",
        "warm",
        "warm",
        "warm",
        "warm",
      ]);
      assert.equal(texts[0], "::text one", "the first Run's rule carries the instructions");
      assert.equal(texts[1], "::text two");
      assert.match(texts[2] ?? "", /^::text three\n\n<system-reminder>\n.*changed since/s);
      assert.match(texts[2] ?? "", new RegExp(`Instructions from: ${AGENTS}\nUse tabs\\.`));
      assert.equal(texts[3], "::text four", "a change goes out once");
      assert.match(
        texts[4] ?? "",
        /^::text five\n\n<system-reminder>\nThe host's current instructions/,
      );
      assert.match(texts[4] ?? "", /Use tabs\./);
      assert.equal(texts[5], "::text six");
      // What the model's context holds: the change once, in the user turn that carried it.
      const context = (emulator.runs().at(-1)?.modelCalls.at(-1)?.context ?? []).join("\n");
      assert.equal(
        context.split("Use tabs.").length - 1,
        2,
        "three's change and five's reassertion",
      );
      assert.equal(lines.filter((line) => line.startsWith("context epoch:")).length, 2);
      assert.ok(lines.some((l) => l.startsWith("context epoch: reason=changed ")));
      assert.ok(lines.some((l) => l.startsWith("context epoch: reason=reassert ")));
    });
  });
});
