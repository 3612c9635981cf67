/**
 * A drop right after the host's tool results went in, before Cursor saved a checkpoint
 * that holds them (while the result drains, or right after Cursor acknowledged it): there
 * is nothing to resume from, so the turn is rebuilt from the complete host history and
 * the model carries on from the results: the reply is the uninterrupted turn's, each
 * tool result is in the rebuilt context once, and nothing is shown twice.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stepCountIs, streamText } from "ai";
import { createMemoryLogger } from "../../../../src/core/logger.ts";
import { emulatorProvider, hostTools, withEmulator } from "../../../support/emulator.ts";
import { complete, quiet, session, streamToolTurn, user } from "../../../recovery/support.ts";
import { countingTools, countOf, rebuiltSeed } from "../../../recovery/rebuild-support.ts";

/** What the uninterrupted turn shows: the text before the tool, then the reply after it. */
const UNINTERRUPTED =
  "Looking.After tools.Tool results:\n- shell `echo marker-42` exited 0: marker-42";

for (const transport of ["sse", "http2"] as const) {
  describe(`rebuild after tool results (${transport})`, () => {
    const cases = ["drop", "error code=unavailable", "goaway"].flatMap((fault) =>
      (["tool-result", "tool-ack"] as const).map((at) => ({ fault, at }))
    );
    for (const { fault, at } of cases) {
      it(`${fault} at ${at}: rebuilt from host history, the model carries on from the result`, async () => {
        const dir = mkdtempSync(join(tmpdir(), "recovery-"));
        const { logger, lines } = createMemoryLogger();
        try {
          await withEmulator({}, async (emulator) => {
            const cursor = emulatorProvider(emulator, transport, { debug: logger });
            const prompt = `::text Looking.\n::fault ${fault} times=1 at=${at}\n` +
              "::shell echo marker-42\n::text After tools.";
            const { tools, executed } = countingTools(hostTools(dir));
            const result = streamText({
              model: cursor("gpt-5"),
              messages: [user(prompt)],
              tools,
              stopWhen: stepCountIs(4),
              ...session("ses_rebuild"),
              ...quiet,
            });
            let text = "";
            for await (const delta of result.textStream) text += delta;
            assert.equal(await result.finishReason, "stop");
            assert.equal(text, UNINTERRUPTED, "the uninterrupted reply, nothing shown twice");
            assert.deepEqual(executed, ["echo marker-42"], "the tool ran once");
            const runs = emulator.runs().filter((r) => r.transport === transport);
            assert.equal(runs.length, 2, "the broken Run and the rebuilt one");
            assert.equal(runs[1]?.action, "user_message_action");
            assert.notEqual(runs[1]?.conversationId, runs[0]?.conversationId);
            assert.equal(runs[1]?.variants.continuation, "history");
            assert.equal(
              runs[1]?.execs.filter((e) => e.requestCase !== "requestContextArgs").length,
              0,
            );
            const seed = rebuiltSeed(runs[1]);
            assert.equal(countOf(seed.context, "user: "), 1, "one user message: the seed");
            assert.equal(countOf(seed.text, "<user>"), 1, "the host's message once");
            assert.equal(countOf(seed.text, "::shell echo marker-42"), 1);
            assert.equal(countOf(seed.text, '[tool call bash {"command":"echo marker-42"'), 1);
            assert.equal(countOf(seed.text, '<tool name="bash">'), 1, "the tool result once");
            assert.equal(countOf(seed.text, '"value":"marker-42\\n"'), 1);
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
            const steps = await result.steps;
            const next = await complete(cursor, [
              user(prompt),
              ...steps.flatMap((s) => s.response.messages),
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

    it("a drop after the first of two tools: the rebuilt Run runs only the second", async () => {
      const dir = mkdtempSync(join(tmpdir(), "recovery-"));
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          const prompt = "::text Looking.\n::fault drop times=1 at=tool-result\n" +
            "::shell echo one\n::shell echo two\n::text Done.";
          const { tools, executed } = countingTools(hostTools(dir));
          const outcome = await streamToolTurn(cursor, [user(prompt)], "ses_rebuild2", tools);
          assert.equal(outcome.error, undefined, String(outcome.error));
          assert.equal(
            outcome.text,
            "Looking.Done.Tool results:\n- shell `echo one` exited 0: one\n" +
              "- shell `echo two` exited 0: two",
          );
          assert.deepEqual(executed, ["echo one", "echo two"], "each tool ran once");
          const runs = emulator.runs();
          assert.equal(runs.length, 2, "the broken Run and the rebuilt one (held for `two`)");
          assert.equal(runs[1]?.variants.continuation, "history");
          const ids = outcome.messages.flatMap((m) =>
            m.role === "assistant" && Array.isArray(m.content)
              ? m.content.flatMap((p) => p.type === "tool-call" ? [p.toolCallId] : [])
              : []
          );
          assert.equal(new Set(ids).size, ids.length, `tool call ids are unique: ${ids.join()}`);
          const final = (runs[1]?.modelCalls.at(-1)?.context ?? []).join("\n");
          assert.equal(countOf(final, "user: "), 1, "the seed once, no second user message");
          assert.deepEqual(emulator.violations(), []);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a failed command: the rebuilt reply quotes its status as the uninterrupted turn did", async () => {
      const dir = mkdtempSync(join(tmpdir(), "recovery-"));
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          const script = "::shell echo oops; exit 3\n::text After.";
          const tools = hostTools(dir);
          const clean = await streamToolTurn(cursor, [user(script)], "ses_clean", tools);
          assert.equal(clean.error, undefined, String(clean.error));
          const broken = await streamToolTurn(
            cursor,
            [user(`::fault drop times=1 at=tool-result\n${script}`)],
            "ses_broken",
            tools,
          );
          assert.equal(broken.error, undefined, String(broken.error));
          assert.equal(broken.text, clean.text);
          assert.match(clean.text, /^After\.Tool results:\n- shell `echo oops; exit 3` exited 3:/);
          assert.equal(emulator.runs().at(-1)?.variants.continuation, "history");
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
