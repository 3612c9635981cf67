/**
 * An instance whose conversation another instance moved on, with the newer snapshot
 * unusable here (a format this version cannot read): the snapshot is dropped, and the
 * host's history (which holds the turn this instance never saw) makes the turn reseed
 * instead of continuing the stale checkpoint in this instance's memory.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText } from "ai";
import { createMemorySnapshotStore } from "../../src/snapshot/store.ts";
import { snapshotStoreKey } from "../../src/snapshot/persistence.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

describe("a newer snapshot this instance cannot restore", () => {
  it("reseeds from host history rather than continue the stale checkpoint", async () => {
    await withEmulator({}, async (emulator) => {
      const snapshots = createMemorySnapshotStore();
      const lines: string[] = [];
      const cursor = emulatorProvider(emulator, "sse", {
        conversationSnapshots: snapshots,
        debug: { enabled: true, line: (text) => lines.push(text) },
      });
      const session = { providerOptions: { cursor: { sessionId: "ses_newer" } }, maxRetries: 0 };
      const first = await generateText({
        model: cursor("gpt-5"),
        prompt: "Remember the word kumquat.",
        ...session,
      });
      // Another instance finished turn 2 and wrote it in a snapshot format this one cannot read.
      const written = await snapshots.write(
        snapshotStoreKey(emulator.url, "ses_newer"),
        new Uint8Array([0x43, 0x53, 0x4e, 0x50, 99, 1, 2, 3]),
      );
      assert.equal(written.status, "written");
      await generateText({
        model: cursor("gpt-5"),
        messages: [
          { role: "user", content: "Remember the word kumquat." },
          { role: "assistant", content: first.text },
          { role: "user", content: "Also remember the word mango." },
          { role: "assistant", content: "Noted: mango." },
          { role: "user", content: "Which words?" },
        ],
        ...session,
      });
      assert.ok(
        lines.some((l) => /^conversation persistence: invalid sessionKey=ses_newer /.test(l)),
        lines.join("\n"),
      );
      const run = emulator.runs()[1];
      assert.equal(run?.checkpointSupplied, false, "turn 1's checkpoint was not continued");
      const context = run?.modelCalls[0]?.context ?? [];
      const said = (word: string) =>
        context.filter((l) => l.startsWith("user:") && l.includes(word)).length;
      assert.equal(said("mango"), 1, `the host's turn 2 is in the model's context:\n${context}`);
      assert.equal(said("kumquat"), 1, context.join("\n"));
      assert.deepEqual(emulator.violations(), []);
    });
  });
});
