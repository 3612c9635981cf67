import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { COMPACTION_SYSTEM_PROMPT } from "./fixtures/opencode-prompts.ts";

const quiet = { maxRetries: 0 } as const;
/** A first message large enough that re-sending it would dwarf the new one. */
const LONG_OPENER = `Remember the word kumquat. ${"Background detail. ".repeat(1200)}`;

/** A provider instance as a fresh process would build it: its own stores, the shared folder. */
function freshProvider(emulator: CursorEmulator, directory: string, lines: string[]) {
  const uploads: number[] = [];
  const countingFetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (
      /(AgentService\/RunSSE|BidiService\/BidiAppend)$/.test(url) &&
      init?.body instanceof Uint8Array
    ) {
      uploads.push(init.body.length);
    }
    return await fetch(input, init);
  };
  const cursor = emulatorProvider(emulator, "sse", {
    conversationSnapshots: createSnapshotFileStore({ directory }),
    debug: { enabled: true, line: (text) => lines.push(text) },
    fetch: countingFetch,
  });
  return {
    cursor,
    uploaded: () => uploads.reduce((a, b) => a + b, 0),
    /** The run request: the first append after the RunSSE opener. */
    runRequestBytes: () => uploads[1] ?? 0,
    /** Bodies uploaded so far (RunSSE openers and appends). */
    uploads,
  };
}

describe("restart continuity (direct backend)", () => {
  it("continues warm after a restart, sending only the new message", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-snapshots-"));
      const session = { providerOptions: { cursor: { sessionId: "ses_restart" } } };
      const firstLines: string[] = [];
      const first = freshProvider(emulator, directory, firstLines);
      const turn1 = await generateText({
        model: first.cursor("gpt-5"),
        prompt: LONG_OPENER,
        ...session,
        ...quiet,
      });
      assert.ok(first.uploaded() > LONG_OPENER.length, "turn 1 uploads the whole opener");

      const lines: string[] = [];
      const second = freshProvider(emulator, directory, lines);
      const turn2 = await generateText({
        model: second.cursor("gpt-5"),
        messages: [
          { role: "user", content: LONG_OPENER },
          { role: "assistant", content: turn1.text },
          { role: "user", content: "What was the word?" },
        ],
        ...session,
        ...quiet,
      });
      assert.match(turn2.text, /kumquat/);
      const run = emulator.runs()[1];
      assert.equal(run?.continuity, "warm", "the emulator saw the checkpoint of turn 1");
      assert.equal(run?.conversationId, emulator.runs()[0]?.conversationId);
      assert.equal(run?.userText, "What was the word?", "only the new message is the user turn");
      assert.ok((run?.counters.cacheRead ?? 0) > 0, "the prefix was read from the cache");
      assert.equal(run?.kv.misses, 0, "every blob the checkpoint reaches came back");
      // The snapshot is recent and its writer saw the server hold the conversation, so
      // nothing is pushed and the server needs no GET: the history is sent neither as a user
      // turn nor as blobs (an old snapshot pushes them once: test/provider/blob-traffic).
      assert.equal(run?.kv.gets, 0, "the server still held every blob");
      assert.equal(run?.variants.preFetchedBlobs, undefined);
      assert.ok(
        second.runRequestBytes() < LONG_OPENER.length,
        `turn 2 sent neither the opener nor its blobs: ${second.runRequestBytes()} bytes`,
      );
      const before = second.uploads.length;
      const turn3 = await generateText({
        model: second.cursor("gpt-5"),
        messages: [
          { role: "user", content: LONG_OPENER },
          { role: "assistant", content: turn1.text },
          { role: "user", content: "What was the word?" },
          { role: "assistant", content: turn2.text },
          { role: "user", content: "Thanks" },
        ],
        ...session,
        ...quiet,
      });
      assert.ok(turn3.text.length > 0);
      const turn3Request = second.uploads[before + 1] ?? 0;
      assert.ok(
        turn3Request < LONG_OPENER.length / 4,
        `turn 3's run request is ${turn3Request} bytes, not the ${LONG_OPENER.length}-byte history`,
      );
      assert.equal(emulator.runs()[2]?.kv.gets, 0, "the server held the conversation");
      assert.equal(emulator.runs()[2]?.variants.preFetchedBlobs, undefined, "nothing pushed");
      assert.ok(
        lines.some((l) => /^conversation persistence: restored sessionKey=ses_restart /.test(l)),
      );
      assert.ok(lines.some((l) => /continuity=warm/.test(l)), lines.join("\n"));
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("starts cold with the reason logged when the snapshot is corrupt, and replaces it", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-snapshots-"));
      const session = { providerOptions: { cursor: { sessionId: "ses_corrupt" } } };
      const store = createSnapshotFileStore({ directory });
      const first = freshProvider(emulator, directory, []);
      const turn1 = await generateText({
        model: first.cursor("gpt-5"),
        prompt: "Remember the word fig",
        ...session,
        ...quiet,
      });
      const fileKey = `${emulator.url}#ses_corrupt`;
      const written = await store.read(fileKey);
      assert.equal(written.status, "found");
      if (written.status !== "found") return;
      await store.write(fileKey, written.bytes.subarray(0, written.bytes.length - 9));
      const lines: string[] = [];
      const second = freshProvider(emulator, directory, lines);
      const turn2 = await generateText({
        model: second.cursor("gpt-5"),
        messages: [
          { role: "user", content: "Remember the word fig" },
          { role: "assistant", content: turn1.text },
          { role: "user", content: "What was the word?" },
        ],
        ...session,
        ...quiet,
      });
      assert.match(turn2.text, /fig/, "the cold turn still carries the history");
      assert.equal(emulator.runs()[1]?.continuity, "cold");
      assert.ok(
        lines.includes("conversation persistence: invalid sessionKey=ses_corrupt reason=corrupt"),
        lines.filter((l) => l.startsWith("conversation persistence")).join("\n"),
      );
      const replaced = await store.read(fileKey);
      assert.equal(replaced.status, "found", "the cold turn wrote a fresh snapshot");
    });
  });

  it("a compaction before a restart still rebases once, in the same group", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-snapshots-"));
      const session = { providerOptions: { cursor: { sessionId: "ses_compacted" } } };
      const first = freshProvider(emulator, directory, []);
      await generateText({
        model: first.cursor("gpt-5"),
        prompt: "Remember the word lime",
        ...session,
        ...quiet,
      });
      const summary = await generateText({
        model: first.cursor("gpt-5"),
        system: COMPACTION_SYSTEM_PROMPT,
        prompt: "Summarize: the user asked to remember the word lime.",
        ...session,
        ...quiet,
      });
      const lines: string[] = [];
      const second = freshProvider(emulator, directory, lines);
      await generateText({
        model: second.cursor("gpt-5"),
        messages: [
          { role: "user", content: "What did we do so far?" },
          { role: "assistant", content: summary.text },
          { role: "user", content: "Continue" },
        ],
        ...session,
        ...quiet,
      });
      const reset = lines.find((l) => l.startsWith("conversation reset:"));
      assert.match(reset ?? "", /reason=post-compaction-rebase /);
      assert.match(
        reset ?? "",
        new RegExp(`conversationGroupId=${emulator.runs()[0]?.conversationId}$`),
      );
    });
  });
});
