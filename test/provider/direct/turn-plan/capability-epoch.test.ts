import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, jsonSchema, type ModelMessage, tool, type ToolSet } from "ai";
import { emulatorProvider, withEmulator } from "../../../support/emulator.ts";
import { createSnapshotFileStore } from "../../../../src/adapters/node/files/snapshot-file-store.ts";

const quiet = { maxRetries: 0 } as const;

function hostTool(description: string) {
  return tool({
    description,
    inputSchema: jsonSchema<{ q: string }>({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    }),
    execute: () => Promise.resolve("ok"),
  });
}

const alpha = hostTool("Looks up alpha records");
const beta = hostTool("Looks up beta records");
const gamma = hostTool("Looks up gamma records");

describe("capability epochs", () => {
  it("a permission shrink keeps the advertised prefix byte-identical, also across a restart; new tools append", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-epochs-"));
      const lines: string[] = [];
      const provider = () =>
        emulatorProvider(emulator, "sse", {
          conversationSnapshots: createSnapshotFileStore({ directory }),
          debug: { enabled: true, line: (text) => lines.push(text) },
        });
      const session = { providerOptions: { cursor: { sessionId: "ses_epochs" } } };
      const history: ModelMessage[] = [];
      const ask = async (cursor: ReturnType<typeof provider>, text: string, tools: ToolSet) => {
        history.push({ role: "user", content: text });
        const result = await generateText({
          model: cursor("gpt-5"),
          messages: history,
          tools,
          ...session,
          ...quiet,
        });
        history.push({ role: "assistant", content: result.text });
      };
      const cursor = provider();
      await ask(cursor, "first", { lookup_alpha: alpha, lookup_beta: beta });
      await ask(cursor, "second", { lookup_alpha: alpha });
      const restarted = provider();
      await ask(restarted, "third, after a restart", { lookup_alpha: alpha });
      await ask(restarted, "fourth", { lookup_alpha: alpha, lookup_gamma: gamma });
      const runs = emulator.runs();
      assert.deepEqual(runs.map((r) => r.continuity), ["cold", "warm", "warm", "warm"]);
      const [h1, h2, h3, h4] = runs.map((r) => r.requestContextSha256);
      assert.ok(h1);
      assert.equal(h2, h1, "a shrink does not rewrite the advertised catalogue");
      assert.equal(h3, h1, "the restored conversation advertises the same bytes");
      assert.notEqual(h4, h1, "a new tool changes the catalogue");
      const diagnoses = lines.filter((l) => l.startsWith("cache diagnosis:"));
      assert.equal(diagnoses.length, 4);
      for (const line of diagnoses) {
        assert.match(
          line,
          / toolsCategoryChurn=(none|upstream-stable-overlay|client-overlay-changed) /,
        );
      }
      assert.match(diagnoses[1] ?? "", / requestContext=reused /);
      assert.match(diagnoses[3] ?? "", / requestContext=built /);
    });
  });
});
