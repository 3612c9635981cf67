/**
 * The host's Stop cancels the Run on Cursor's side: `cancel_action` on the live Run, then
 * close, on both transports — while the answer streams, and while the Run is held for a
 * tool the host is still running. The next message follows the interrupted-turn rules:
 * the interrupted request and what the user saw of it stay in Cursor's context.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { HELD_STOP_GRACE_MS } from "../../src/provider/direct/run/held-stop.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import {
  assistant,
  complete,
  interruptAfter,
  lastModelContext,
  quiet,
  session,
  user,
} from "./support.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const transport of ["sse", "http2"] as const) {
  describe(`Stop cancels the Run (${transport})`, () => {
    it("mid-stream: the emulator sees cancel_action, the next turn holds the partial answer", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const hi = await complete(cursor, [user("Say hi")], "ses_stop_stream");
        const asked = "Tell a story\n::text First half.\n::sleep 3s\n::text Second half.";
        const seen = await interruptAfter(
          cursor,
          [user("Say hi"), assistant(hi), user(asked)],
          "ses_stop_stream",
          "First half.",
        );
        assert.ok(seen.endsWith("First half."), JSON.stringify(seen));
        await emulator.idle();
        const stopped = emulator.runs().find((run) => run.userText.includes("Tell a story"));
        assert.equal(stopped?.status, "canceled");
        assert.equal(stopped?.clientCancel?.reason, "", "an empty CancelAction");
        assert.equal(stopped?.clientCancel?.openExecs, 0);
        assert.equal(stopped?.turnEnded, false);
        const text = await complete(cursor, [
          user("Say hi"),
          assistant(hi),
          user(asked),
          assistant("First half."),
          user("::text Going on."),
        ], "ses_stop_stream");
        assert.equal(text, "Going on.");
        const context = lastModelContext(emulator);
        assert.match(context, /Tell a story/, "the interrupted request");
        assert.match(context, /First half\./, "what the user saw of it");
        assert.doesNotMatch(context, /^assistant: .*Second half/m);
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it("mid-tool: the held Run is cancelled once the step's results do not follow its abort", async () => {
      const { logger, lines } = createMemoryLogger();
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport, { debug: logger });
        const hi = await complete(cursor, [user("Say hi")], "ses_stop_tool");
        const asked = "Build it\n::shell echo building-42\n::text Built.";
        const controller = new AbortController();
        let toolCall: { toolCallId: string; input: unknown } | undefined;
        const slowBash = tool({
          description: "Run a shell command",
          inputSchema: jsonSchema<{ command: string }>({
            type: "object",
            properties: { command: { type: "string" } },
            required: ["command"],
          }),
          execute: async (input, options) => {
            toolCall = { toolCallId: options.toolCallId, input };
            controller.abort(); // Stop while the tool runs
            await sleep(200);
            return "never delivered";
          },
        });
        const result = streamText({
          model: cursor("gpt-5"),
          messages: [user("Say hi"), assistant(hi), user(asked)],
          tools: { bash: slowBash },
          stopWhen: stepCountIs(4),
          abortSignal: controller.signal,
          ...session("ses_stop_tool"),
          ...quiet,
          onError: () => {},
        });
        try {
          for await (const _ of result.textStream) { /* drain */ }
        } catch {
          // the abort ends the stream
        }
        assert.ok(toolCall !== undefined, "the tool was running when the host stopped");
        const held = () => emulator.runs().find((run) => run.userText.includes("Build it"));
        assert.equal(held()?.status, "running", "held for the tool's result at first");
        await sleep(HELD_STOP_GRACE_MS + 1_000);
        await emulator.idle();
        assert.equal(held()?.status, "canceled");
        assert.equal(held()?.clientCancel?.openExecs, 1, "cancelled with the shell still open");
        assert.ok(
          lines.some((l) => /held Run released: .*reason=host-stopped/.test(l)),
          lines.filter((l) => l.startsWith("held Run")).join("\n"),
        );
        const next: ModelMessage[] = [
          user("Say hi"),
          assistant(hi),
          user(asked),
          {
            role: "assistant",
            content: [{
              type: "tool-call",
              toolCallId: toolCall.toolCallId,
              toolName: "bash",
              input: toolCall.input,
            }],
          },
          {
            role: "tool",
            content: [{
              type: "tool-result",
              toolCallId: toolCall.toolCallId,
              toolName: "bash",
              output: { type: "error-text", value: "Tool execution aborted" },
            }],
          },
          user("::text Going on."),
        ];
        const text = await complete(cursor, next, "ses_stop_tool");
        assert.equal(text, "Going on.");
        const last = emulator.runs().at(-1);
        assert.equal(last?.continuity, "warm", "continued from the turn before the Stop");
        const context = lastModelContext(emulator);
        assert.match(context, /Build it/, "the interrupted request");
        assert.match(context, /echo building-42/, "the tool call");
        assert.match(context, /Tool execution aborted/, "and what became of it");
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it("a step whose results follow its abort keeps its held Run (OpenCode aborts every finished step)", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const model = cursor("gpt-5");
        const controller = new AbortController();
        const first = await model.doStream({
          prompt: [{
            role: "user",
            content: [{ type: "text", text: "::shell echo held-7\n::text Done." }],
          }],
          tools: [{
            type: "function",
            name: "bash",
            inputSchema: { type: "object", properties: { command: { type: "string" } } },
          }],
          abortSignal: controller.signal,
          providerOptions: { cursor: { sessionId: "ses_step_abort" } },
        });
        let call: { toolCallId: string; input: string } | undefined;
        for await (const part of first.stream) {
          if (part.type === "tool-call") call = { toolCallId: part.toolCallId, input: part.input };
        }
        assert.ok(call);
        controller.abort(); // the host's end-of-step abort
        await sleep(HELD_STOP_GRACE_MS / 5);
        const second = await model.doStream({
          prompt: [
            {
              role: "user",
              content: [{ type: "text", text: "::shell echo held-7\n::text Done." }],
            },
            {
              role: "assistant",
              content: [{
                type: "tool-call",
                toolCallId: call.toolCallId,
                toolName: "bash",
                input: JSON.parse(call.input),
              }],
            },
            {
              role: "tool",
              content: [{
                type: "tool-result",
                toolCallId: call.toolCallId,
                toolName: "bash",
                output: { type: "text", value: "held-7" },
              }],
            },
          ],
          tools: [{
            type: "function",
            name: "bash",
            inputSchema: { type: "object", properties: { command: { type: "string" } } },
          }],
          providerOptions: { cursor: { sessionId: "ses_step_abort" } },
        });
        let text = "";
        for await (const part of second.stream) if (part.type === "text-delta") text += part.delta;
        assert.match(text, /Done\./);
        await sleep(HELD_STOP_GRACE_MS);
        assert.equal(emulator.runs().length, 1, "the results went back on the held Run");
        assert.equal(emulator.runs()[0]?.status, "ok");
        assert.equal(emulator.runs()[0]?.clientCancel, undefined);
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
}
