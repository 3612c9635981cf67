/**
 * A held pass (the host's tool results went in) that breaks past a replay barrier stays
 * final: the error is not retryable, so OpenCode does not retry the step (a retry would
 * rebuild it from host history and answer it a second time after what the user saw). One
 * case per barrier of a drop after completed tool results: new text, new reasoning, a
 * late pre-result checkpoint (which cannot authorise a resume), and a new tool request.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APICallError, type ModelMessage, stepCountIs, streamText } from "ai";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { opencodeVerdict } from "../support/opencode-retry-rule.ts";
import { complete, quiet, session, user } from "./support.ts";
import { countingTools, countOf } from "./rebuild-support.ts";

/** Each barrier: the script, and what the user saw before the failure. */
const BARRIERS: Record<string, { script: string; shown: string }> = {
  "new text after the results": {
    script: "::fault no-checkpoint times=1\n::shell echo m-17\n::text all done\n" +
      "::fault drop times=1\n::text more",
    shown: "all done",
  },
  "new reasoning after the results": {
    script: "::fault no-checkpoint times=1\n::shell echo m-17\n::think Weighing it\n" +
      "::fault drop times=1\n::text more",
    shown: "",
  },
  "a late pre-result checkpoint, then new text": {
    script: "::fault no-checkpoint times=1\n::fault late-checkpoint times=1 at=tool-result\n" +
      "::shell echo m-17\n::text all done\n::fault drop times=1\n::text more",
    shown: "all done",
  },
  "a new tool request after the results": {
    script: "::fault no-checkpoint times=1\n::shell echo m-17\n::fault drop times=1 at=exec\n" +
      "::shell echo two\n::text fin",
    shown: "",
  },
};

for (const transport of ["sse", "http2"] as const) {
  describe(`a held pass past a replay barrier stays final (${transport})`, () => {
    for (const [barrier, { script, shown }] of Object.entries(BARRIERS)) {
      it(`${barrier}: one answer, a final error OpenCode does not retry`, async () => {
        const dir = mkdtempSync(join(tmpdir(), "barrier-"));
        try {
          await withEmulator({}, async (emulator) => {
            const cursor = emulatorProvider(emulator, transport);
            const { tools, executed } = countingTools(hostTools(dir));
            let error: unknown;
            const result = streamText({
              model: cursor("gpt-5"),
              messages: [user(script)],
              tools,
              stopWhen: stepCountIs(4),
              ...session("ses_barrier"),
              ...quiet,
              onError: ({ error: e }) => {
                error = e;
              },
            });
            let text = "";
            let reasoning = "";
            for await (const part of result.fullStream) {
              if (part.type === "text-delta") text += part.text;
              if (part.type === "reasoning-delta") reasoning += part.text;
            }
            assert.equal(text, shown, "what the user saw, once, and no second answer");
            if (barrier.includes("reasoning")) assert.equal(countOf(reasoning, "Weighing it"), 1);
            assert.ok(APICallError.isInstance(error), String(error));
            assert.equal(error.isRetryable, false, error.message);
            assert.equal(opencodeVerdict(error), "final", error.message);
            assert.match(
              error.message,
              /^The answer after the tool results was cut off \((?:network|interrupted)\)/,
            );
            assert.deepEqual(executed, ["echo m-17"], "the tool ran once");
            assert.equal(emulator.runs().length, 1, "no rebuild, no replay");
            // The next turn carries what the user saw, once, and is healthy.
            const steps = await result.steps;
            const history: ModelMessage[] = [
              user(script),
              ...(steps.at(-1)?.response.messages ?? []),
            ];
            // A tool call the failed step announced never ran: the host drops it.
            const last = history.at(-1);
            if (
              last?.role === "assistant" && Array.isArray(last.content) &&
              last.content.some((part) => part.type === "tool-call")
            ) history.pop();
            if (shown !== "" && !JSON.stringify(history).includes(shown)) {
              history.push({ role: "assistant", content: shown });
            }
            const next = await complete(
              cursor,
              [...history, user("::text Next turn fine.")],
              "ses_barrier",
              tools,
            );
            assert.equal(next, "Next turn fine.");
            const context = (emulator.runs().at(-1)?.modelCalls[0]?.context ?? []).join("\n");
            if (shown !== "") {
              assert.equal(countOf(context, `<assistant>\\n${shown}\\n</assistant>`), 1, context);
            }
            assert.deepEqual(emulator.violations(), []);
          });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}
