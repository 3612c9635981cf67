/**
 * The provider contract on both AI SDK majors, against the emulator: `ai` 6 with the
 * root entry's `LanguageModelV3`, `ai` 7 with the `/v4` entry's `LanguageModelV4`. The
 * same cases run on each: stream parts, usage, finish reasons, warnings, errors,
 * aborts, `doGenerate`, tools, and a provider registry that takes the model as it is.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "@ai-sdk/provider";
import { isAbortError } from "@ai-sdk/provider-utils";
import { CursorError } from "../../src/core/cursor-error.ts";
import { CursorLanguageModel } from "../../src/provider/language-model.ts";
import { CursorLanguageModelV4 } from "../../src/provider/v4/language-model-v4.ts";
import { withEmulator } from "../support/emulator.ts";
import { AI_MAJORS } from "../support/ai-majors.ts";

const quiet = { maxRetries: 0 } as const;

for (const major of AI_MAJORS) {
  describe(`the provider contract on ${major.name}`, () => {
    it("streams text parts, then a finish with usage and the stop reason", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const model = cursor("gpt-5");
        assert.equal(model.specificationVersion, major.spec);
        const result = major.streamText({ model, prompt: "::text Hello from both", ...quiet });
        const kinds: string[] = [];
        for await (const part of result.fullStream) kinds.push(part.type);
        assert.equal(await result.text, "Hello from both");
        assert.equal(await result.finishReason, "stop");
        assert.ok(((await result.usage).inputTokens ?? 0) > 0, "request usage from Cursor");
        for (const kind of ["start", "text-start", "text-delta", "text-end", "finish"]) {
          assert.ok(kinds.includes(kind), `${kind} in ${kinds.join(",")}`);
        }
        assert.ok(!kinds.includes("error"), kinds.join(","));
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it("generates (doGenerate) text, reasoning, usage and the options it cannot honour as warnings", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const result = await major.generateText({
          model: cursor("claude-4.5-sonnet"),
          prompt: "::think Weighing it\n::text Done",
          temperature: 0.3,
          providerOptions: {
            cursor: {
              cursorVariantParameters: [{ id: "thinking", value: "true" }, {
                id: "context",
                value: "200k",
              }],
            },
          },
          ...quiet,
        });
        assert.equal(result.text, "Done");
        assert.match(result.reasoningText ?? "", /Weighing it/);
        assert.equal(result.finishReason, "stop");
        assert.ok((result.usage.outputTokens ?? 0) > 0);
        assert.deepEqual(
          result.warnings?.map((w) => [w.type, w.feature]),
          [["unsupported", "temperature"]],
        );
      });
    });

    it("runs a host tool: a tool-calls step, then the final text on the same Run", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const commands: string[] = [];
        const result = await major.generateText({
          model: cursor("gpt-5"),
          prompt: "::shell printf 'from-the-host\\n'",
          tools: {
            bash: {
              description: "Runs a shell command",
              inputSchema: major.jsonSchema({
                type: "object",
                properties: { command: { type: "string" } },
                required: ["command"],
              }),
              execute: (input: { command: string }) => {
                commands.push(input.command);
                return "from-the-host\n";
              },
            },
          },
          stopWhen: major.stepCountIs(3),
          providerOptions: { cursor: { sessionId: `ses_tools_${major.spec}` } },
          ...quiet,
        });
        assert.equal(commands.length, 1, "the host ran the tool once");
        assert.match(commands[0] ?? "", /printf 'from-the-host/);
        assert.equal(result.steps[0]?.finishReason, "tool-calls");
        assert.deepEqual(result.steps[0]?.toolCalls.map((call) => call.toolName), ["bash"]);
        assert.equal(result.finishReason, "stop");
        assert.match(result.text, /from-the-host/);
        assert.equal(emulator.runs().length, 1, "the result went back on the held Run");
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it("fails a malformed call with an APICallError carrying the CursorError code", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const error = await major.generateText({
          model: cursor("gpt-5"),
          prompt: "Hi",
          providerOptions: { cursor: { sesionId: "chat-1" } },
          ...quiet,
        }).then(() => undefined, (reason: unknown) => reason);
        assert.ok(APICallError.isInstance(error), String(error));
        assert.equal((error.data as { code?: string }).code, "invalid_argument");
        assert.match(error.message, /did you mean "sessionId"/);
        assert.equal(emulator.runs().length, 0);
      });
    });

    it("rejects an aborted call with an abort error whose cause is the CursorError", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const controller = new AbortController();
        const pending = major.generateText({
          model: cursor("gpt-5"),
          prompt: "::text started\n::sleep 20s\n::text never",
          abortSignal: controller.signal,
          providerOptions: { cursor: { sessionId: `ses_abort_${major.spec}` } },
          ...quiet,
        });
        for (let i = 0; i < 1000 && emulator.runs().length === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        controller.abort();
        const error = await pending.then(() => undefined, (reason: unknown) => reason);
        assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
        assert.ok(error instanceof Error && error.cause instanceof CursorError);
        assert.equal((error.cause as CursorError).code, "canceled");
      });
    });

    it("is taken as it is by createProviderRegistry (no adapter in between)", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const model = major.registryModel(cursor, "cursor:gpt-5");
        const own = major.spec === "v4" ? CursorLanguageModelV4 : CursorLanguageModel;
        assert.ok(model instanceof own, "the registry hands out the provider's own model");
        assert.equal(model.specificationVersion, major.spec);
        const result = await major.generateText({ model, prompt: "::text via registry", ...quiet });
        assert.equal(result.text, "via registry");
        assert.ok((result.usage.inputTokens ?? 0) > 0);
      });
    });

    it("is taken as it is by customProvider, as an alias and as the fallback", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const own = major.spec === "v4" ? CursorLanguageModelV4 : CursorLanguageModel;
        const aliased = major.customModel(cursor("gpt-5"), cursor, "fast");
        const fallback = major.customModel(cursor("gpt-5"), cursor, "claude-4.5-sonnet");
        for (const model of [aliased, fallback]) {
          assert.ok(model instanceof own, `${model.modelId} is the provider's own model`);
        }
        assert.equal(fallback.modelId, "claude-4.5-sonnet");
        const result = await major.generateText({
          model: aliased,
          prompt: "::text aliased",
          ...quiet,
        });
        assert.equal(result.text, "aliased");
      });
    });
  });
}

describe("AI SDK 7's reasoning option", () => {
  const v7 = AI_MAJORS.find((major) => major.spec === "v4");
  assert.ok(v7);

  it("selects the model's variant for the level", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = v7.provider(emulator);
      const result = await v7.generateText({
        model: cursor("gpt-5"),
        prompt: "::text ok",
        reasoning: "high",
        ...quiet,
      });
      assert.equal(result.text, "ok");
      assert.deepEqual(emulator.runs()[0]?.parameters, { reasoning: "high", fast: "false" });
      assert.deepEqual(result.warnings ?? [], []);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("turns thinking off for none on a model with a thinking switch", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = v7.provider(emulator);
      await v7.generateText({
        model: cursor("claude-4.5-sonnet"),
        prompt: "hi",
        reasoning: "none",
        ...quiet,
      });
      assert.equal(emulator.runs()[0]?.parameters?.thinking, "false");
    });
  });

  it("warns, naming what the model offers, when it has no variant for the level", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = v7.provider(emulator);
      const result = await v7.generateText({
        model: cursor("gpt-5"),
        prompt: "::text ok",
        reasoning: "xhigh",
        ...quiet,
      });
      assert.equal(result.text, "ok");
      assert.equal(result.warnings?.[0]?.feature, "reasoning");
      assert.match(
        result.warnings?.[0]?.details ?? "",
        /no "xhigh" reasoning \(its reasoning values: low, medium, high\)/,
      );
      const plain = await v7.generateText({
        model: cursor("composer-1"),
        prompt: "::text ok",
        reasoning: "high",
        ...quiet,
      });
      assert.match(plain.warnings?.[0]?.details ?? "", /"composer-1" has no reasoning variants/);
    });
  });

  it("leaves an explicit variant tuple in charge, with a warning", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = v7.provider(emulator);
      const result = await v7.generateText({
        model: cursor("gpt-5"),
        prompt: "::text ok",
        reasoning: "high",
        providerOptions: {
          cursor: {
            cursorVariantParameters: [{ id: "reasoning", value: "low" }, {
              id: "fast",
              value: "true",
            }],
          },
        },
        ...quiet,
      });
      assert.deepEqual(emulator.runs()[0]?.parameters, { reasoning: "low", fast: "true" });
      assert.match(
        result.warnings?.[0]?.details ?? "",
        /cursorVariantParameters chose the variant/,
      );
    });
  });
});
