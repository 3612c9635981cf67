import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, type ModelMessage } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { PROBE_EVERY } from "../../src/agent-run/blobs/blob-push.ts";
import { SERVER_BLOBS_TRUSTED_MS } from "../../src/provider/direct/turn-plan/persistence.ts";

const TRANSPORTS = ["sse", "http2"] as const;
const quiet = { maxRetries: 0 } as const;

/** A provider whose BidiAppends are counted (SSE: every client message after the opener). */
function countedProvider(
  emulator: CursorEmulator,
  transport: "sse" | "http2",
  extra: Parameters<typeof emulatorProvider>[2] = {},
) {
  let appends = 0;
  const countingFetch: typeof fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith("BidiService/BidiAppend")) appends++;
    return fetch(input, init);
  };
  const cursor = emulatorProvider(emulator, transport, { fetch: countingFetch, ...extra });
  return { cursor, appends: () => appends };
}

/** One host session: each call adds a user turn and the reply to the history. */
function hostSession(cursor: ReturnType<typeof emulatorProvider>, sessionId: string) {
  const messages: ModelMessage[] = [];
  return async (text: string): Promise<string> => {
    messages.push({ role: "user", content: text });
    const result = await generateText({
      model: cursor("gpt-5"),
      messages,
      providerOptions: { cursor: { sessionId } },
      ...quiet,
    });
    messages.push({ role: "assistant", content: result.text });
    return result.text;
  };
}

describe("blob traffic of warm turns", () => {
  for (const transport of TRANSPORTS) {
    it(`a warm server gets no GET and no extra append for old blobs, however long the history (${transport})`, async () => {
      await withEmulator({ auth: { required: false } }, async (emulator) => {
        const { cursor, appends } = countedProvider(emulator, transport);
        const turn = hostSession(cursor, `ses_warm_${transport}`);
        const perTurn: number[] = [];
        for (let i = 1; i <= 8; i++) {
          const before = appends();
          await turn(`Turn ${i} ${"history ".repeat(50)}`);
          perTurn.push(appends() - before);
        }
        const runs = emulator.runs();
        assert.equal(runs.length, 8);
        for (const run of runs.slice(1)) {
          assert.equal(run.continuity, "warm");
          assert.equal(run.kv.gets, 0, "the server holds the history");
          assert.equal(run.variants.preFetchedBlobs, undefined, "nothing pushed to a warm server");
        }
        if (transport === "sse") {
          assert.equal(perTurn[7], perTurn[1], `appends per turn stay flat: ${perTurn.join(",")}`);
        }
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it(`a cold server: GETs answered, then the blobs pushed up front, the context intact (${transport})`, async () => {
      await withEmulator(
        { auth: { required: false }, serverBlobCache: false },
        async (emulator) => {
          const { cursor } = countedProvider(emulator, transport);
          const turn = hostSession(cursor, `ses_cold_${transport}`);
          const turns = PROBE_EVERY + 2;
          let last = "";
          for (let i = 1; i <= turns; i++) last = await turn(`Turn ${i}`);
          const runs = emulator.runs();
          assert.equal(runs.length, turns);
          const gets = runs.map((run) => run.kv.gets);
          const pushed = runs.map((run) => run.variants.preFetchedBlobs === true);
          assert.ok((gets[1] ?? 0) > 0, "turn 2: the server lacked the blobs and GOT them");
          assert.equal(pushed[1], false, "turn 2: no reason to push yet");
          for (let i = 2; i < turns; i++) {
            if (pushed[i]) assert.equal(gets[i], 0, `turn ${i + 1}: pushed, so no GET`);
          }
          assert.equal(
            pushed.filter((p) => !p).length,
            3,
            "turn 1, turn 2 and one probe go without",
          );
          assert.equal(
            pushed[PROBE_EVERY + 1],
            false,
            "the probe turn, after PROBE_EVERY - 1 pushes",
          );
          assert.match(last, new RegExp(`History holds ${2 * (turns - 1)} message`));
          const context = runs.at(-1)?.modelCalls[0]?.context.join("\n") ?? "";
          for (let i = 1; i < turns; i++) assert.match(context, new RegExp(`Turn ${i}\\b`));
          assert.deepEqual(emulator.violations(), []);
        },
      );
    });

    for (const handOff of ["old", "recent"] as const) {
      it(`a session restored from an ${handOff} snapshot on a server that lost it continues warm with the context intact (${transport})`, async () => {
        await withEmulator({ auth: { required: false } }, async (emulator) => {
          const directory = mkdtempSync(join(tmpdir(), "cursor-blob-push-"));
          const snapshots = () => ({
            conversationSnapshots: createSnapshotFileStore({ directory }),
          });
          const sessionId = `ses_restored_${handOff}_${transport}`;
          const first = countedProvider(emulator, transport, snapshots());
          const messages: ModelMessage[] = [];
          for (const text of ["Remember the word kumquat", "And the number 7"]) {
            messages.push({ role: "user", content: text });
            const result = await generateText({
              model: first.cursor("gpt-5"),
              messages,
              providerOptions: { cursor: { sessionId } },
              ...quiet,
            });
            messages.push({ role: "assistant", content: result.text });
          }
          emulator.forgetServerBlobs();
          // An old snapshot: its writer's belief that the server held the blobs has lapsed.
          const later = handOff === "old" ? SERVER_BLOBS_TRUSTED_MS + 60_000 : 0;
          const second = countedProvider(emulator, transport, {
            ...snapshots(),
            now: () => Date.now() + later,
          });
          const ask = async (text: string) => {
            messages.push({ role: "user", content: text });
            const result = await generateText({
              model: second.cursor("gpt-5"),
              messages,
              providerOptions: { cursor: { sessionId } },
              ...quiet,
            });
            messages.push({ role: "assistant", content: result.text });
            return { result, run: emulator.runs().at(-1) };
          };
          const { result, run } = await ask("What was the word?");
          assert.equal(run?.continuity, "warm");
          assert.equal(run?.userText, "What was the word?");
          if (handOff === "old") {
            assert.equal(run?.variants.preFetchedBlobs, true);
            assert.equal(run?.kv.gets, 0, "every blob the server needed came with the run request");
          } else {
            // A recent hand-off trusts its writer (the server held the blobs then): nothing is
            // pushed, the server GETs what it lost, and the next turn pushes.
            assert.equal(run?.variants.preFetchedBlobs, undefined);
            assert.ok((run?.kv.gets ?? 0) > 0, "the server fetched the blobs it had lost");
          }
          assert.equal(run?.kv.misses, 0, "every blob the server asked for came back");
          assert.match(result.text, /History holds 4 message/);
          const context = run?.modelCalls[0]?.context.join("\n") ?? "";
          assert.match(context, /Remember the word kumquat/, "the model still sees turn 1");
          assert.match(context, /And the number 7/, "and turn 2");
          if (handOff === "recent") {
            emulator.forgetServerBlobs();
            const next = await ask("And the number?");
            assert.equal(next.run?.variants.preFetchedBlobs, true, "the GETs taught it to push");
            assert.equal(next.run?.kv.gets, 0);
          }
          assert.deepEqual(emulator.violations(), []);
        });
      });
    }
  }
});
