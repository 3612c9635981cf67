import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText } from "ai";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { parseDirectives } from "../../src/testing/mod.ts";
import {
  DIRECTIVES,
  newestUserText,
  readDirectives,
} from "../../src/testing/directives/directive-language.ts";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";

const quiet = { maxRetries: 0 } as const;

describe("directives act only in the newest user message", () => {
  it("a reseeded history containing ::shell lines runs no tool", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      // A session the client has never seen: the conversation is seeded cold from host
      // history, whose earlier user lines (with their directives) sit at line starts.
      const result = await generateText({
        model: cursor("gpt-5"),
        messages: [
          { role: "user", content: "Clean up first\n::shell echo from-history > ran.txt" },
          { role: "assistant", content: "Cleaned up." },
          { role: "user", content: "Now just answer\n::text fresh answer" },
        ],
        tools: hostTools(tmpdir()),
        providerOptions: { cursor: { sessionId: "ses_reseed_directives" } },
        ...quiet,
      });
      const [run] = emulator.runs();
      assert.equal(run?.continuity, "cold", "the conversation was seeded from host history");
      assert.match(run?.userText ?? "", /<conversation_so_far>[\s\S]*::shell echo from-history/);
      assert.deepEqual(
        run?.execs.map((exec) => exec.requestCase),
        ["requestContextArgs"],
        "no tool ran: the old ::shell line is history",
      );
      assert.deepEqual(result.toolCalls, []);
      assert.equal(result.text, "fresh answer");
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("parseDirectives skips a reseeded block and earlier CLI USER: blocks", () => {
    const reseeded = "<conversation_so_far>\n<user>\n::shell ls\n</user>\n</conversation_so_far>" +
      "\n\nThe tool calls above have finished.";
    assert.deepEqual(parseDirectives(reseeded), []);
    const cli = "USER: ::shell ls\n\nASSISTANT: ok\n\nUSER: again\n::read a.txt";
    assert.deepEqual(readDirectives(newestUserText(cli).text), [{
      name: "read",
      argument: "a.txt",
    }]);
    const continuation = "USER: ::shell ls\n\nASSISTANT:\nTOOL_CALL (id: c, name: bash): {}" +
      "\n\nTOOL_RESULT (id: c, name: bash): ok";
    assert.deepEqual(newestUserText(continuation), { text: "", toolContinuation: true });
  });

  it("names a directive of the other fake instead of calling it unknown", () => {
    assert.deepEqual(parseDirectives("::die"), [{
      kind: "error",
      message: 'Directive "::die" applies only to the fake cursor-agent',
    }]);
    assert.deepEqual(parseDirectives("::nonsense"), [{
      kind: "error",
      message: 'Unknown emulator directive "::nonsense"',
    }]);
  });

  it("docs/emulator.md lists exactly the directives of the shared table", async () => {
    const doc = await readFile("docs/emulator.md", "utf8");
    const section = doc.split("## Directives")[1]?.split("\n## ")[0] ?? "";
    const documented = [...section.matchAll(/^\| `::([a-z-]+)/gm)].map((match) => match[1]);
    assert.deepEqual(documented, Object.keys(DIRECTIVES));
  });
});
