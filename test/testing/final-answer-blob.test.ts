/**
 * The sources disagree on when the final answer's blob is SET: after `turn_ended`
 * (captures; AGENT-SCHEMA.md §11 Open questions 2) or with the other final SETs before it
 * (AGENT-SCHEMA.md §5.5). The emulator plays either; the client must keep a warm
 * multi-turn conversation with both.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, type ModelMessage } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";

const quiet = { maxRetries: 0 } as const;

/** Server frame kinds of one Run, in order. */
function serverKinds(emulator: CursorEmulator, runId: string): string[] {
  return emulator.log({ runId }).filter((entry) => entry.direction === "server").map((entry) =>
    entry.kind
  );
}

for (const finalAnswerBlob of ["after-turn-ended", "before-turn-ended"] as const) {
  describe(`final answer blob ${finalAnswerBlob}`, () => {
    it("a warm three-turn session keeps every answer in the conversation", async () => {
      await withEmulator({ finalAnswerBlob }, async (emulator) => {
        {
          // SSE, the default transport (the HTTP/2 Run frames are the same messages).
          const transport = "sse";
          const cursor = emulatorProvider(emulator, transport);
          const session = { providerOptions: { cursor: { sessionId: `ses_final_${transport}` } } };
          const messages: ModelMessage[] = [];
          for (const word of ["alpha", "bravo", "charlie"]) {
            messages.push({ role: "user", content: `Say ${word}\n::text ${word} noted` });
            const result = await generateText({
              model: cursor("gpt-5"),
              messages,
              ...session,
              ...quiet,
            });
            assert.equal(result.text, `${word} noted`);
            messages.push({ role: "assistant", content: result.text });
          }
          messages.push({ role: "user", content: "What did we say?" });
          const last = await generateText({
            model: cursor("gpt-5"),
            messages,
            ...session,
            ...quiet,
          });
          assert.match(last.text, /History holds 6 message\(s\)/, "every earlier answer survived");

          const runs = emulator.runs({ transport });
          assert.equal(runs.length, 4);
          assert.deepEqual(runs.map((run) => run.continuity), ["cold", "warm", "warm", "warm"]);
          assert.deepEqual(runs.map((run) => run.status), ["ok", "ok", "ok", "ok"]);
          const kinds = serverKinds(emulator, runs[1]?.runId ?? "");
          const turnEnded = kinds.indexOf("interaction_update.turn_ended");
          const setsAfter = kinds.slice(turnEnded).filter((kind) =>
            kind === "kv_server_message.set_blob_args"
          ).length;
          assert.ok(turnEnded > 0, "the Run reached turn_ended");
          assert.equal(
            setsAfter,
            finalAnswerBlob === "after-turn-ended" ? 1 : 0,
            "the final answer's blob is SET on the chosen side of turn_ended",
          );
        }
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
}
