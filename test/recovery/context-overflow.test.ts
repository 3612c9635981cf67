/**
 * A rebuild or a reseed from host history that does not fit the model's context is a
 * context overflow: an `APICallError` with status 413 and `isRetryable: false` (OpenCode
 * compacts on it), whether the provider sees it coming (the seed is larger than the window
 * Cursor reported) or Cursor refuses the seeded Run (`ERROR_CONVERSATION_TOO_LONG`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APICallError, jsonSchema, tool } from "ai";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { assistant, complete, streamToolTurn, user } from "./support.ts";

/** The host shell, arming a fault for the next Run once it has run. */
function armingShell(dir: string, emulator: CursorEmulator) {
  const { bash } = hostTools(dir);
  return {
    bash: tool({
      description: "Run a shell command",
      inputSchema: jsonSchema<{ command: string }>({
        type: "object",
        properties: { command: { type: "string" } },
        required: ["command"],
      }),
      execute: async (input, options) => {
        emulator.faults.next("context-too-long");
        return await bash.execute?.(input, options) ?? "";
      },
    }),
  };
}

/** A host shell whose output is larger than any model's context (1.3 MB). */
const hugeShell = {
  bash: tool({
    description: "Run a shell command",
    inputSchema: jsonSchema<{ command: string }>({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    }),
    execute: () => "a".repeat(1_300_000),
  }),
};

function assertOverflow(error: unknown): void {
  assert.ok(APICallError.isInstance(error), String(error));
  assert.equal(error.statusCode, 413);
  assert.equal(error.isRetryable, false);
}

for (const transport of ["sse", "http2"] as const) {
  describe(`context overflow on rebuild (${transport})`, () => {
    it("a rebuild larger than the model's window fails with 413 before any Run", async () => {
      const dir = mkdtempSync(join(tmpdir(), "overflow-"));
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          const prompt = "::fault drop times=1 at=tool-result\n::shell cat big.txt\n::text Done.";
          const outcome = await streamToolTurn(cursor, [user(prompt)], "ses_big", hugeShell);
          assertOverflow(outcome.error);
          assert.match(String(outcome.error), /too long to rebuild/);
          assert.equal(emulator.runs().length, 1, "no rebuilt Run was opened");
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("Cursor refusing the rebuilt Run as too long is a 413 too", async () => {
      const dir = mkdtempSync(join(tmpdir(), "overflow-"));
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          const prompt = "::fault drop times=1 at=tool-result\n::shell echo small\n::text Done.";
          const tools = armingShell(dir, emulator);
          const outcome = await streamToolTurn(cursor, [user(prompt)], "ses_refused", tools);
          assertOverflow(outcome.error);
          const runs = emulator.runs();
          assert.equal(runs.length, 2, "the broken Run and the refused rebuild");
          assert.equal(runs[1]?.continuity, "cold");
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** gpt-5's context window in the emulator's catalogue, reported in every checkpoint. */
const GPT5_WINDOW = 272_000;

/**
 * A history OpenCode holds but this conversation never saw (edited, or from another
 * provider): a long earlier answer of `bytes` bytes, then a new user message.
 */
const foreignHistory = (bytes: number) => [
  user("Summarise the build log"),
  assistant("b".repeat(bytes)),
  user("::text Done."),
];

for (const transport of ["sse", "http2"] as const) {
  describe(`context overflow on reseed (${transport})`, () => {
    it("a reseed larger than the model's window fails with 413 before any Run", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        assert.equal(await complete(cursor, [user("::text Hi.")], "ses_reseed"), "Hi.");
        const before = emulator.runs().length;
        const history = foreignHistory(GPT5_WINDOW * 4 + 4_000);
        const outcome = await streamToolTurn(cursor, history, "ses_reseed", {});
        assertOverflow(outcome.error);
        assert.match(String(outcome.error), /too long to start over from its history/);
        assert.equal(emulator.runs().length - before, 0, "no reseeded Run was opened");
      });
    });

    it("a reseed just under the model's window goes through", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        assert.equal(await complete(cursor, [user("::text Hi.")], "ses_fits"), "Hi.");
        const history = foreignHistory(GPT5_WINDOW * 4 - 40_000);
        const outcome = await streamToolTurn(cursor, history, "ses_fits", {});
        assert.equal(outcome.error, undefined);
        assert.equal(outcome.text, "Done.");
        const runs = emulator.runs();
        assert.equal(runs.length, 2);
        assert.equal(runs[1]?.continuity, "cold", "the second turn was reseeded");
      });
    });
  });
}

describe("context overflow on reseed after a restart", () => {
  it("the window restored with the snapshot refuses an oversized reseed before any upload", async () => {
    const directory = mkdtempSync(join(tmpdir(), "overflow-snapshots-"));
    try {
      await withEmulator({}, async (emulator) => {
        const snapshots = () => ({
          conversationSnapshots: createSnapshotFileStore({ directory }),
        });
        const before = emulatorProvider(emulator, "sse", snapshots());
        assert.equal(await complete(before, [user("::text Hi.")], "ses_restart"), "Hi.");
        const agentRequests: string[] = [];
        const after = emulatorProvider(emulator, "sse", {
          ...snapshots(),
          fetch: async (input, init) => {
            const url = input instanceof Request ? input.url : String(input);
            if (/AgentService|BidiService/.test(url)) agentRequests.push(url);
            return await fetch(input, init);
          },
        });
        const history = foreignHistory(GPT5_WINDOW * 4 + 4_000);
        const outcome = await streamToolTurn(after, history, "ses_restart", {});
        assertOverflow(outcome.error);
        assert.deepEqual(agentRequests, [], "nothing was sent to the agent service");
        assert.equal(emulator.runs().length, 1, "only the turn before the restart ran");
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
