/**
 * The recovery fault matrix: each fault at each point of a turn, on SSE and HTTP/2,
 * through `ai` against the emulator. A replay-safe failure is replayed and the host sees
 * the intended answer exactly once; a failure after stateful work stays an error whose
 * visible text is a prefix of the answer (never a duplicate). Every case stays within the
 * Run budget, and the next turn of the session is healthy.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { assistant, complete, streamTurn as turn, user } from "./support.ts";

/** Where in the turn the fault fires (the directive script around it). */
const POINTS = {
  "before the first text": (fault: string) => `${fault}\n::text Alpha one. Beta two.`,
  "after the first text": (fault: string) => `::text Alpha one.\n${fault}\n::text Beta two.`,
  "after reasoning": (fault: string) => `::think Weighing it\n${fault}\n::text Alpha one.`,
  "mid-deltas": (fault: string) => `::deltas 6\n${fault}\n::deltas 3`,
} as const;

/** Faults a replay recovers from (once), and faults that stay final. */
const REPLAYED = ["drop", "goaway", "rst-stream", "error code=unavailable"] as const;
const FINAL = ["quota", "error code=invalid_argument"] as const;

/** The answer the script gives without the fault (a clean session of the same emulator). */
async function intended(
  cursor: ReturnType<typeof emulatorProvider>,
  script: string,
  name: string,
): Promise<string> {
  const clean = script.split("\n").filter((line) => !line.startsWith("::fault")).join("\n");
  return (await turn(cursor, clean, `ref_${name}`)).text;
}

async function nextTurnHealthy(
  emulator: CursorEmulator,
  cursor: ReturnType<typeof emulatorProvider>,
  sessionId: string,
  history: Parameters<typeof complete>[1],
): Promise<void> {
  const text = await complete(cursor, [...history, user("::text Next turn fine.")], sessionId);
  assert.equal(text, "Next turn fine.");
  assert.equal(emulator.runs().at(-1)?.status, "ok");
}

for (const transport of ["sse", "http2"] as const) {
  describe(`recovery fault matrix (${transport})`, () => {
    for (const [point, script] of Object.entries(POINTS)) {
      for (const fault of [...REPLAYED, ...FINAL]) {
        const replayed = (REPLAYED as readonly string[]).includes(fault);
        it(`${fault} ${point}: ${replayed ? "replayed once" : "final"}`, async () => {
          const { logger, lines } = createMemoryLogger();
          await withEmulator({}, async (emulator) => {
            const cursor = emulatorProvider(emulator, transport, { debug: logger });
            const prompt = script(`::fault ${fault} times=1`);
            const answer = await intended(cursor, prompt, "case");
            assert.ok(answer.length > 0);
            const before = emulator.runs().length;
            const outcome = await turn(cursor, prompt, "ses_case");
            const runs = emulator.runs().length - before;
            if (replayed) {
              assert.equal(outcome.error, undefined, String(outcome.error));
              assert.equal(outcome.text, answer, "the answer, exactly once");
              assert.equal(runs, 2, "one replay");
              assert.ok(lines.some((l) => l.startsWith("Run interrupted: ")));
              assert.ok(lines.some((l) => l.startsWith("rebasing fresh Run: ")));
            } else {
              assert.notEqual(outcome.error, undefined, "the failure surfaces");
              assert.ok(answer.startsWith(outcome.text), "no duplicate, nothing invented");
              assert.equal(runs, 1, "no replay of a final failure");
            }
            await nextTurnHealthy(emulator, cursor, "ses_case", [
              user(prompt),
              assistant(outcome.text),
            ]);
            assert.deepEqual(emulator.violations(), []);
          });
        });
      }
    }
  });
}

for (const transport of ["sse", "http2"] as const) {
  describe(`persistent failure (${transport})`, () => {
    it("a persistent unavailable makes 1 + 3 Runs, then a final error the host does not retry", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const prompt = "::text Alpha.\n::fault error code=unavailable";
        const outcome = await turn(cursor, prompt, "ses_persistent");
        assert.equal(emulator.runs().length, 4, "the first Run and three server replays");
        assert.ok(APICallError.isInstance(outcome.error), String(outcome.error));
        assert.equal(outcome.error.isRetryable, false, "spent: the host must not multiply it");
        assert.match(outcome.error.message, /server retries are spent/);
        assert.equal(outcome.text, "Alpha.", "the partial answer, once");
        await nextTurnHealthy(emulator, cursor, "ses_persistent", [
          user(prompt),
          assistant(outcome.text),
        ]);
      });
    });

    it("a stream lost four times in a row draws on the 10 transport retries: answered once", async () => {
      const { logger, lines } = createMemoryLogger();
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport, { debug: logger });
        const prompt = "::text Alpha.\n::fault drop times=4\n::text Beta.";
        const outcome = await turn(cursor, prompt, "ses_lost");
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.equal(outcome.text, "Alpha.Beta.", "the answer, exactly once");
        assert.equal(emulator.runs().length, 5, "four lost Runs and the one that answered");
        const rebases = lines.filter((l) => l.startsWith("rebasing fresh Run: "));
        assert.equal(rebases.length, 4, lines.join("\n"));
        assert.ok(rebases.every((l) => l.includes(" retry=transport ")), rebases.join("\n"));
      });
    });
  });
}
