/**
 * Two provider instances (two app instances behind a load balancer) sharing one snapshot
 * store, as test scenarios any shared store runs: turns alternating between the instances
 * and a race of two turns finishing at once. Each asserts the model's context (the
 * emulator's record of what it saw), never only that no error was thrown.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import { generateText, type ModelMessage } from "ai";
import type { ConversationSnapshotStore } from "../../src/snapshot/store.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { emulatorProvider, withEmulator } from "./emulator.ts";

const quiet = { maxRetries: 0 } as const;

/**
 * Defines the scenarios; `sharedStore(prefix)` opens one instance's handle on the shared
 * store (a separate connection each time), namespaced by `prefix`.
 */
export function defineSharedStoreScenarios(
  sharedStore: (prefix: string) => Promise<ConversationSnapshotStore>,
): void {
  /** An app instance: its own provider (own memory), the shared store, its log lines. */
  const instance = (emulator: CursorEmulator, snapshots: ConversationSnapshotStore) => {
    const lines: string[] = [];
    const cursor = emulatorProvider(emulator, "sse", {
      conversationSnapshots: snapshots,
      debug: { enabled: true, line: (text) => lines.push(text) },
    });
    const turn = async (sessionId: string, messages: ModelMessage[]) =>
      (await generateText({
        model: cursor("gpt-5"),
        messages,
        providerOptions: { cursor: { sessionId } },
        ...quiet,
      })).text;
    return { turn, lines };
  };
  const user = (content: string): ModelMessage => ({ role: "user", content });
  const assistant = (content: string): ModelMessage => ({ role: "assistant", content });
  const contextOf = (emulator: CursorEmulator, index: number) =>
    emulator.runs()[index]?.modelCalls[0]?.context ?? [];

  it("continues the newest turn when turns alternate between the instances", async () => {
    await withEmulator({}, async (emulator) => {
      const prefix = `alt-${crypto.randomUUID()}:`;
      const a = instance(emulator, await sharedStore(prefix));
      const b = instance(emulator, await sharedStore(prefix));
      const u1 = user("Remember the word kumquat.");
      const a1 = assistant(await a.turn("ses_alt", [u1]));
      const u2 = user("Also remember the word mango.");
      const a2 = assistant(await b.turn("ses_alt", [u1, a1, u2]));
      // Instance A still holds turn 1 in memory; the store holds turn 2.
      await a.turn("ses_alt", [u1, a1, u2, a2, user("Which words?")]);
      const run = emulator.runs()[2];
      assert.equal(run?.continuity, "warm");
      assert.equal(run?.conversationId, emulator.runs()[0]?.conversationId);
      assert.equal(run?.turn, 3, "the Run continues from turn 2's checkpoint");
      assert.equal(run?.userText, "Which words?");
      const context = contextOf(emulator, 2);
      const said = (word: string) =>
        context.filter((l) => l.startsWith("user:") && l.includes(word)).length;
      assert.equal(said("mango"), 1, context.join("\n"));
      assert.equal(said("kumquat"), 1, context.join("\n"));
      assert.ok(
        a.lines.some((l) => /^conversation persistence: restored sessionKey=ses_alt /.test(l)),
      );
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("keeps one winner when both instances finish a turn at once; the other continues from it", async () => {
    await withEmulator({}, async (emulator) => {
      const prefix = `race-${crypto.randomUUID()}:`;
      const sharedA = await sharedStore(prefix);
      const sharedB = await sharedStore(prefix);
      // In turn 2, B has read turn 1's snapshot before A may write: both continue from turn 1.
      let bHasRead = Promise.resolve();
      let bRead = () => {};
      const a = instance(emulator, {
        ...sharedA,
        write: async (key, bytes, options) => {
          await bHasRead;
          return await sharedA.write(key, bytes, options);
        },
      });
      const b = instance(emulator, {
        ...sharedB,
        read: async (key) => {
          const read = await sharedB.read(key);
          bRead();
          return read;
        },
      });
      const u1 = user("Remember the word kumquat.");
      const a1 = assistant(await a.turn("ses_race", [u1]));
      bHasRead = new Promise<void>((resolve) => (bRead = resolve));
      const uA = user("Also remember the word mango.");
      const uB = user("Also remember the word papaya.");
      const [textA, textB] = await Promise.all([
        a.turn("ses_race", [u1, a1, uA]),
        b.turn("ses_race", [u1, a1, uB]),
      ]);
      const conflict = /^conversation persistence: save conflict sessionKey=ses_race /;
      const lost = [a, b].filter((side) => side.lines.some((l) => conflict.test(l)));
      assert.equal(lost.length, 1, "exactly one instance lost the race");
      const loser = lost[0] === a ? a : b;
      const winner = loser === b ? { said: uA, text: textA, word: "mango", other: "papaya" } : {
        said: uB,
        text: textB,
        word: "papaya",
        other: "mango",
      };
      // The loser's next turn carries the host's history, which holds the winner's turn.
      await loser.turn("ses_race", [u1, a1, winner.said, assistant(winner.text), user("Words?")]);
      const run = emulator.runs()[3];
      assert.equal(run?.continuity, "warm", [...loser.lines].join("\n"));
      assert.equal(run?.turn, 3, "the Run continues from the winner's checkpoint");
      assert.equal(run?.userText, "Words?");
      const context = contextOf(emulator, 3);
      const said = (word: string) =>
        context.filter((l) => l.startsWith("user:") && l.includes(word)).length;
      assert.equal(said(winner.word), 1, context.join("\n"));
      assert.equal(said(winner.other), 0, context.join("\n"));
      assert.deepEqual(emulator.violations(), []);
    });
  });
}
