import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, type ModelMessage } from "ai";
import { emulatorProvider, withEmulator } from "../../../support/emulator.ts";
import { createSnapshotFileStore } from "../../../../src/adapters/node/files/snapshot-file-store.ts";
import { advertisedSkills, hostSkills } from "../../../../src/provider/direct/turn-plan/skills.ts";

/** The tail of OpenCode 1.18.33's system prompt with one project skill (real binary output). */
const OPENCODE_PROMPT = readFileSync("test/fixtures/opencode/system-prompt-skills.txt", "utf8");
const DEMO = "/home/dev/project/.opencode/skill/demo-skill/SKILL.md";
const LATER = "/home/dev/.config/opencode/skill/later-skill/SKILL.md";

/** The same prompt with a second skill listed, as OpenCode lists one added later. */
function withLaterSkill(prompt: string): string {
  return prompt.replace(
    "</available_skills>",
    "  <skill>\n    <name>later-skill</name>\n    <description>Added later</description>\n" +
      `    <location>${LATER}</location>\n  </skill>\n</available_skills>`,
  );
}

describe("host skills from OpenCode's system prompt", () => {
  it("reads each skill with a file, leaving out the built-in one", () => {
    assert.deepEqual(hostSkills(OPENCODE_PROMPT), [
      { description: "Explains the demo widget", path: DEMO },
    ]);
    assert.equal(hostSkills("You are a title generator."), undefined);
    assert.deepEqual(hostSkills("No skills.\n<available_skills>\n</available_skills>"), []);
  });

  it("appends new skills after the ones advertised before, keeping their order", () => {
    const before = hostSkills(OPENCODE_PROMPT);
    const after = advertisedSkills(before, hostSkills(withLaterSkill(OPENCODE_PROMPT)));
    assert.deepEqual(after?.map((skill) => skill.path), [DEMO, LATER]);
    // A skill the host no longer lists stays advertised: the prefix is not rewritten.
    assert.deepEqual(advertisedSkills(after, before)?.map((skill) => skill.path), [DEMO, LATER]);
  });
});

describe("skills reach Cursor as agent_skills (emulator)", () => {
  it("the model lists the skills it was given; a skill added later is appended, also after a restart", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-skills-"));
      const lines: string[] = [];
      const provider = () =>
        emulatorProvider(emulator, "sse", {
          conversationSnapshots: createSnapshotFileStore({ directory }),
          debug: { enabled: true, line: (text) => lines.push(text) },
        });
      const history: ModelMessage[] = [];
      const ask = async (cursor: ReturnType<typeof provider>, system: string, text: string) => {
        history.push({ role: "user", content: text });
        const result = await generateText({
          model: cursor("gpt-5"),
          system,
          messages: history,
          providerOptions: { cursor: { sessionId: "ses_skills" } },
          maxRetries: 0,
        });
        history.push({ role: "assistant", content: result.text });
        return result.text;
      };
      const cursor = provider();
      const first = await ask(cursor, OPENCODE_PROMPT, "::skills");
      assert.equal(first, `Skills:\n- demo-skill (${DEMO}): Explains the demo widget`);
      await ask(cursor, OPENCODE_PROMPT, "::text same skills");
      const restarted = provider();
      const third = await ask(restarted, withLaterSkill(OPENCODE_PROMPT), "::skills");
      assert.equal(
        third,
        `Skills:\n- demo-skill (${DEMO}): Explains the demo widget\n` +
          `- later-skill (${LATER}): Added later`,
      );
      const runs = emulator.runs();
      assert.deepEqual(runs.map((r) => r.continuity), ["cold", "warm", "warm"]);
      const [h1, h2, h3] = runs.map((r) => r.requestContextSha256);
      assert.equal(h2, h1, "unchanged skills keep the request context byte-identical");
      assert.notEqual(h3, h1, "a new skill changes the request context");
      assert.deepEqual(emulator.violations(), []);
      const diagnoses = lines.filter((line) => line.startsWith("cache diagnosis:"));
      assert.equal(diagnoses.length, 3);
      assert.doesNotMatch(diagnoses[1] ?? "", /skillsAppended=/);
      assert.match(diagnoses[2] ?? "", / requestContext=built .* skillsAppended=1 /);
    });
  });
});
