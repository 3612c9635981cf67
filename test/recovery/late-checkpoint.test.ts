/**
 * The two acknowledgement rules of checkpoint eligibility (ADR 110), end to end: a
 * checkpoint received while a delivered tool result drains, and a late pre-result
 * checkpoint that arrives after the exec, never authorise a resume. The emulator
 * publishes the tool step's pre-result checkpoint again at that moment
 * (`::fault late-checkpoint at=…`) and the Run breaks before a settled checkpoint: the
 * turn is rebuilt from host history, not resumed from the stale checkpoint (which would
 * run the tool a second time); a break after the settled checkpoint resumes from that one.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { streamToolTurn, user } from "./support.ts";
import { countingTools, countOf, rebuiltSeed } from "./rebuild-support.ts";

/** What the uninterrupted turn shows. */
const ANSWER = "Looking.After tools.Tool results:\n- shell `echo marker-42` exited 0: marker-42";

const rebuilds = [
  {
    name: "a checkpoint received while the result drains, then a drop before the ack",
    faults: "::fault late-checkpoint at=tool-result\n::fault drop times=1 at=tool-result",
    late: "late-checkpoint at tool-result",
  },
  {
    name: "a checkpoint received while the result drains, then a drop right after the ack",
    faults: "::fault late-checkpoint at=tool-result\n::fault drop times=1 at=tool-ack",
    late: "late-checkpoint at tool-result",
  },
  {
    name: "a late pre-result checkpoint after the exec, then a drop while the result drains",
    faults: "::fault late-checkpoint at=exec\n::fault drop times=1 at=tool-result",
    late: "late-checkpoint at exec",
  },
];

for (const transport of ["sse", "http2"] as const) {
  describe(`checkpoints that must not authorise a resume (${transport})`, () => {
    for (const { name, faults, late } of rebuilds) {
      it(`${name}: rebuilt from host history, the tool run once`, async () => {
        const dir = mkdtempSync(join(tmpdir(), "recovery-"));
        const { logger, lines } = createMemoryLogger();
        try {
          await withEmulator({}, async (emulator) => {
            const cursor = emulatorProvider(emulator, transport, { debug: logger });
            const script =
              `::text Looking.\n${faults}\n::shell echo marker-42\n::text After tools.`;
            const { tools, executed } = countingTools(hostTools(dir));
            const outcome = await streamToolTurn(cursor, [user(script)], "ses_late", tools);
            assert.equal(outcome.error, undefined, String(outcome.error));
            assert.equal(outcome.text, ANSWER, "what the user saw: the answer, once");
            assert.deepEqual(executed, ["echo marker-42"], "the tool ran once");
            const runs = emulator.runs();
            assert.equal(runs.length, 2, "the broken Run and the rebuilt one");
            assert.ok(runs[0]?.faults.includes(late), runs[0]?.faults.join());
            assert.equal(runs[1]?.action, "user_message_action", "not resumed");
            assert.equal(runs[1]?.checkpointSupplied, false, "no checkpoint supplied");
            assert.notEqual(runs[1]?.conversationId, runs[0]?.conversationId);
            assert.equal(runs[1]?.variants.continuation, "history");
            assert.ok(!lines.some((l) => /^resuming .* checkpoint/.test(l)), lines.join("\n"));
            assert.ok(
              lines.some((l) => l.startsWith("conversation reset: reason=interrupted-run")),
            );
            const seed = rebuiltSeed(runs[1]);
            assert.equal(countOf(seed.context, "user: "), 1, "one user message: the seed");
            assert.equal(countOf(seed.text, '<tool name="bash">'), 1, "the tool result once");
            assert.equal(countOf(seed.text, '"value":"marker-42\\n"'), 1);
            assert.deepEqual(emulator.violations(), []);
          });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }

    it("a drain checkpoint, then a drop after the settled checkpoint: resumed from the settled one", async () => {
      const dir = mkdtempSync(join(tmpdir(), "recovery-"));
      const { logger, lines } = createMemoryLogger();
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport, { debug: logger });
          const script = "::text Looking.\n::fault late-checkpoint at=tool-result\n" +
            "::shell echo marker-42\n::fault drop times=1\n::text After tools.";
          const { tools, executed } = countingTools(hostTools(dir));
          const outcome = await streamToolTurn(cursor, [user(script)], "ses_late", tools);
          assert.equal(outcome.error, undefined, String(outcome.error));
          assert.equal(outcome.text, ANSWER, "what the user saw: the answer, once");
          assert.deepEqual(executed, ["echo marker-42"], "the tool ran once");
          const runs = emulator.runs();
          assert.equal(runs.length, 2, "the broken Run and the resumed one");
          assert.ok(runs[0]?.faults.includes("late-checkpoint at tool-result"));
          assert.equal(runs[1]?.action, "resume_action");
          assert.equal(runs[1]?.conversationId, runs[0]?.conversationId);
          assert.equal(runs[1]?.variants.checkpointKind, "settled", "the settled checkpoint");
          assert.equal(runs[1]?.variants.continuation, "checkpoint");
          assert.ok(lines.some((l) => /^resuming .* checkpoint/.test(l)), lines.join("\n"));
          const context = (runs[1]?.modelCalls[0]?.context ?? []).join("\n");
          assert.equal(countOf(context, "user: "), 1, "the user message once");
          assert.equal(countOf(context, "tool: "), 1, "the tool result once");
          assert.deepEqual(emulator.violations(), []);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
