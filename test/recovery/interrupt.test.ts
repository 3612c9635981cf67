import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ModelMessage, streamText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import {
  assistant,
  complete,
  declaredBash,
  interruptAfter,
  lastModelContext,
  quiet,
  session,
  user,
} from "./support.ts";

for (const transport of ["sse", "http2"] as const) {
  describe(`interrupt then type (${transport})`, () => {
    it("keeps the interrupted request and its partial answer in Cursor's context, streamed once", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const firstAnswer = await complete(cursor, [user("Say hi")], "ses_mid");
        const asked = "Write the report\n::text First half.\n::sleep 3s\n::text Second half.";
        const history = [user("Say hi"), assistant(firstAnswer), user(asked)];
        const seen = await interruptAfter(cursor, history, "ses_mid", "First half.");
        assert.equal(seen, "First half.");
        const next = [...history, assistant(seen), user("::text Continuing now.")];
        const text = await complete(cursor, next, "ses_mid");
        assert.equal(text, "Continuing now.", "nothing of the interrupted answer streams again");
        const context = lastModelContext(emulator);
        assert.match(context, /Write the report/, "the interrupted request is in Cursor's context");
        assert.match(context, /First half\./, "the partial answer is in Cursor's context");
        assert.doesNotMatch(context, /^assistant: .*Second half/m, "nothing the user did not see");
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
}

for (const transport of ["sse", "http2"] as const) {
  describe(`interrupt during a tool, then type (${transport})`, () => {
    for (const ending of ["ran", "aborted", "missing"] as const) {
      const ran = ending === "ran";
      it(`keeps the request and the tool (${ending}) in Cursor's context`, async () => {
        const { logger, lines } = createMemoryLogger();
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport, { debug: logger });
          const hi = await complete(cursor, [user("Say hi")], "ses_tool", { bash: declaredBash });
          const asked = "Make the edit\n::shell echo edited > notes.txt";
          const before = [user("Say hi"), assistant(hi), user(asked)];
          const step = streamText({
            model: cursor("gpt-5"),
            messages: before,
            tools: { bash: declaredBash },
            ...session("ses_tool"),
            ...quiet,
          });
          await step.consumeStream();
          assert.equal(await step.finishReason, "tool-calls");
          const calls = await step.toolCalls;
          const call = calls[0];
          assert.ok(call !== undefined, "Cursor asked for the shell");
          const output = ran
            ? { type: "text" as const, value: "notes.txt written" }
            : { type: "error-text" as const, value: "Tool execution aborted" };
          const next: ModelMessage[] = [
            ...before,
            // A host that drops an unfinished call sends neither the call nor a result.
            ...(ending === "missing" ? [] : (await step.response).messages),
            ...(ending === "missing" ? [] : [{
              role: "tool" as const,
              content: [{
                type: "tool-result" as const,
                toolCallId: call.toolCallId,
                toolName: call.toolName,
                output,
              }],
            }]),
            user("::text Carrying on."),
          ];
          const text = await complete(cursor, next, "ses_tool", { bash: declaredBash });
          const context = lastModelContext(emulator);
          assert.match(context, /Make the edit/, "the interrupted request is in Cursor's context");
          assert.match(context, /echo edited > notes\.txt/, "the tool call is in Cursor's context");
          if (ran) assert.match(context, /notes\.txt written/, "the edit's result is too");
          else if (ending === "aborted") assert.match(context, /Tool execution aborted/);
          else assert.match(context, /notes\.txt` rejected/, "the cancellation is too");
          assert.equal(text, "Carrying on.");
          const cancelled = ending === "missing" ? 1 : 0;
          assert.ok(lines.some((l) => l.startsWith(`fresh turn: cancelled ${cancelled} pending`)));
          assert.ok(lines.some((l) => l.startsWith("drain outcome=turn-ended")), lines.join("\n"));
          assert.ok(
            lines.some((l) =>
              /^held Run released: .* reason=superseded-by-new-run pending=1$/.test(l)
            ),
            lines.join("\n"),
          );
          const runs = emulator.runs();
          assert.equal(
            runs.at(-1)?.continuity,
            "warm",
            "the next Run continues the drained checkpoint",
          );
          assert.deepEqual(emulator.violations(), []);
        });
      });
    }
  });
}
