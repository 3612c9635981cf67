/**
 * A drop right after the host's tool results went in, before Cursor saved a checkpoint
 * that holds them (while the result drains, or right after Cursor acknowledged it): there
 * is nothing to resume from, so the turn is rebuilt from the complete host history (the
 * tool result is in the rebuilt Run's context) and carries on, nothing shown twice.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stepCountIs, streamText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { complete, lastModelContext, quiet, session, user } from "./support.ts";

for (const transport of ["sse", "http2"] as const) {
  describe(`rebuild after tool results (${transport})`, () => {
    const cases = ["drop", "error code=unavailable", "goaway"].flatMap((fault) =>
      (["tool-result", "tool-ack"] as const).map((at) => ({ fault, at }))
    );
    for (const { fault, at } of cases) {
      it(`${fault} at ${at}: rebuilt from host history, answered once`, async () => {
        const dir = mkdtempSync(join(tmpdir(), "recovery-"));
        const { logger, lines } = createMemoryLogger();
        try {
          await withEmulator({}, async (emulator) => {
            const cursor = emulatorProvider(emulator, transport, { debug: logger });
            const prompt =
              `::fault ${fault} times=1 at=${at}\n::shell echo marker-42\n::text After tools.`;
            const result = streamText({
              model: cursor("gpt-5"),
              messages: [user(prompt)],
              tools: hostTools(dir),
              stopWhen: stepCountIs(4),
              ...session("ses_rebuild"),
              ...quiet,
            });
            let text = "";
            for await (const delta of result.textStream) text += delta;
            assert.equal(await result.finishReason, "stop");
            const context = lastModelContext(emulator);
            assert.match(context, /marker-42/, "the tool result is in the rebuilt context");
            assert.match(context, /echo marker-42/, "and the request that made it");
            assert.ok(text.length > 0, "the rebuilt Run answers");
            assert.ok(
              lines.some((l) => l.startsWith("conversation reset: reason=interrupted-run")),
            );
            // The broken Run shows either on the stream (a rebuild of the failed pass) or on the
            // delivery of the result itself (the held Run is gone): both rebuild.
            assert.ok(
              lines.some((l) =>
                l.includes("retry=rebuild") || /^continuation: .* heldRun=remote-error$/.test(l)
              ),
              lines.join("\n"),
            );
            const runs = emulator.runs().filter((r) => r.transport === transport);
            assert.equal(runs.length, 2, "the broken Run and the rebuilt one");
            const steps = await result.steps;
            const next = await complete(cursor, [
              user(prompt),
              ...steps.flatMap((s) => s.response.messages).slice(-3),
              user("::text Next turn fine."),
            ], "ses_rebuild");
            assert.equal(next, "Next turn fine.");
            assert.deepEqual(emulator.violations(), []);
          });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}
