/**
 * Stop during the answer that follows earlier tool steps of the same turn, then a new
 * message: the interrupted request, its tool step and the partial answer stay in Cursor's
 * context (the host history is ours, not foreign), and nothing streams twice.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelMessage, stepCountIs, streamText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { assistant, complete, lastModelContext, quiet, session, user } from "./support.ts";

for (const transport of ["sse", "http2"] as const) {
  describe(`interrupt after tool steps of the same turn (${transport})`, () => {
    it("keeps the request, the tool and the partial answer in Cursor's context", async () => {
      const dir = mkdtempSync(join(tmpdir(), "interrupt-"));
      const { logger, lines } = createMemoryLogger();
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport, { debug: logger });
          const tools = hostTools(dir);
          const hi = await complete(cursor, [user("Say hi")], "ses_steps", tools);
          const asked = "Make the notes\n::shell echo marker-77\n::text First half.\n" +
            "::sleep 3s\n::text Second half.";
          const before: ModelMessage[] = [user("Say hi"), assistant(hi), user(asked)];
          const steps: ModelMessage[] = [];
          const controller = new AbortController();
          const result = streamText({
            model: cursor("gpt-5"),
            messages: before,
            tools,
            stopWhen: stepCountIs(4),
            abortSignal: controller.signal,
            ...session("ses_steps"),
            ...quiet,
            onError: () => {},
            onStepFinish: (step) => {
              steps.splice(0, steps.length, ...step.response.messages);
            },
          });
          let seen = "";
          try {
            for await (const delta of result.textStream) {
              seen += delta;
              if (seen.includes("First half.")) controller.abort();
            }
          } catch {
            // the abort ends the stream
          }
          assert.ok(seen.endsWith("First half."), JSON.stringify(seen));
          assert.ok(steps.some((m) => m.role === "tool"), "the tool step finished first");
          const next = [...before, ...steps, assistant("First half."), user("::text Going on.")];
          const text = await complete(cursor, next, "ses_steps", tools);
          assert.equal(text, "Going on.", "nothing of the interrupted answer streams again");
          const context = lastModelContext(emulator);
          assert.match(context, /Make the notes/, "the interrupted request");
          assert.match(context, /marker-77/, "its tool result");
          assert.match(context, /First half\./, "its partial answer");
          assert.doesNotMatch(
            context,
            /^assistant: .*Second half/m,
            "nothing the user did not see",
          );
          assert.ok(
            !lines.some((l) => l.includes("reason=foreign-history")),
            lines.filter((l) => l.startsWith("conversation reset")).join("\n"),
          );
          assert.equal(emulator.runs().at(-1)?.continuity, "warm", "no cold reseed");
          assert.deepEqual(emulator.violations(), []);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
