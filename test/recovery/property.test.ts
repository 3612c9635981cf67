/**
 * Random fault schedules (seeded) over scripted three-turn sessions with host tools:
 * whatever transient fault hits whichever point of a turn (before any checkpoint: a
 * replay; after a tool step's settled checkpoint: a resume), every turn shows exactly its
 * intended answer, no turn takes more than one recovery per fault, and the session
 * carries on warm.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelMessage } from "ai";
import { seededRandom } from "../support/random.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { streamToolTurn, user } from "./support.ts";

const SEGMENTS = [
  (n: number) => `::text Part ${n}.`,
  (n: number) => `::deltas ${2 + (n % 4)}`,
  (n: number) => `::think Step ${n}`,
  (n: number) => `::shell echo tool-${n}`,
];
const FAULTS = ["drop", "goaway", "rst-stream", "error code=unavailable", "error code=internal"];

/** One turn's script: 2–4 segments and, sometimes, one fault between them. */
function script(random: () => number, turn: number): { text: string; faulted: boolean } {
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(random() * items.length)];
    if (item === undefined) throw new Error("Nothing to pick from");
    return item;
  };
  const lines = Array.from(
    { length: 2 + Math.floor(random() * 3) },
    (_, i) => pick(SEGMENTS)(turn * 10 + i),
  );
  lines.push(`::text End ${turn}.`);
  const faulted = random() < 0.7;
  if (faulted) {
    const at = Math.floor(random() * lines.length);
    lines.splice(at, 0, `::fault ${pick(FAULTS)} times=1`);
  }
  return { text: lines.join("\n"), faulted };
}

for (const transport of ["sse", "http2"] as const) {
  describe(`random fault schedules (${transport})`, () => {
    let resumes = 0;
    for (const seed of [11, 23, 37, 41, 59, 67]) {
      it(`seed ${seed}: every answer once, at most one recovery per fault`, async () => {
        const random = seededRandom(seed);
        const dir = mkdtempSync(join(tmpdir(), "property-"));
        try {
          await withEmulator({}, async (emulator) => {
            const cursor = emulatorProvider(emulator, transport);
            const tools = hostTools(dir);
            const history: ModelMessage[] = [];
            const reference: ModelMessage[] = [];
            for (let turn = 1; turn <= 3; turn++) {
              const { text, faulted } = script(random, turn);
              const clean = text.split("\n").filter((l) => !l.startsWith("::fault")).join("\n");
              const intended = await streamToolTurn(
                cursor,
                [...reference, user(clean)],
                `ref_${seed}`,
                tools,
              );
              reference.push(user(clean), ...intended.messages);
              const before = emulator.runs().length;
              const shown = await streamToolTurn(
                cursor,
                [...history, user(text)],
                `ses_${seed}`,
                tools,
              );
              const runs = emulator.runs().length - before;
              assert.equal(shown.error, undefined, `turn ${turn}: ${String(shown.error)}`);
              assert.equal(shown.text, intended.text, `turn ${turn} of ${JSON.stringify(text)}`);
              assert.ok(runs <= (faulted ? 2 : 1), `turn ${turn}: ${runs} Runs`);
              history.push(user(text), ...shown.messages);
              if (runs === 2 && emulator.runs().at(-1)?.action === "resume_action") resumes++;
            }
            assert.equal(emulator.runs().at(-1)?.continuity, "warm");
            assert.deepEqual(emulator.violations(), []);
          });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
    it("the schedules included resumes from a checkpoint", () => {
      assert.ok(resumes > 0, "no schedule faulted after a tool step");
    });
  });
}
