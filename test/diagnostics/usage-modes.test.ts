import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

const PROMPT = "::think Weighing a few careful options before answering\n::text Done";

describe("usage modes", () => {
  it("a plain createCursor reports Cursor's real request counters, reasoning split out", async () => {
    await withEmulator({}, async (emulator) => {
      const { logger, lines } = createMemoryLogger();
      const cursor = emulatorProvider(emulator, "sse", { debug: logger });
      const result = streamText({ model: cursor("gpt-5"), prompt: PROMPT });
      await result.text;
      const usage = await result.usage;
      const run = emulator.runs()[0];
      assert.ok(run);
      const c = run.counters;
      assert.ok(c.reasoning > 0 && c.output > c.reasoning, "the script thinks and answers");
      assert.equal(usage.inputTokens, c.input);
      assert.equal(usage.inputTokenDetails.cacheReadTokens, c.cacheRead);
      assert.equal(usage.inputTokenDetails.cacheWriteTokens, c.cacheWrite);
      assert.equal(usage.inputTokenDetails.noCacheTokens, c.input - c.cacheRead - c.cacheWrite);
      assert.equal(usage.outputTokens, c.output);
      assert.equal(usage.outputTokenDetails.reasoningTokens, c.reasoning);
      assert.equal(usage.outputTokenDetails.textTokens, c.output - c.reasoning);
      const validation = lines.find((l) => l.startsWith("turn usage validation:"));
      assert.match(validation ?? "", /status=ok .*usage=request$/);
    });
  });

  it("occupancy mode (the OpenCode plugin's) reports the context-meter shape, by setting or per call", async () => {
    await withEmulator({}, async (emulator) => {
      const { logger, lines } = createMemoryLogger();
      const bySetting = emulatorProvider(emulator, "sse", { debug: logger, usage: "occupancy" });
      const first = streamText({ model: bySetting("gpt-5"), prompt: PROMPT });
      await first.text;
      const occupancy = await first.usage;
      assert.equal(occupancy.outputTokens, 1);
      assert.equal(occupancy.outputTokenDetails.reasoningTokens, 0);
      const checkpoint = lines.find((l) => l.startsWith("checkpoint: stored"));
      const used = Number(/context=(\d+)\//.exec(checkpoint ?? "")?.[1]);
      assert.equal((occupancy.inputTokens ?? 0) + (occupancy.outputTokens ?? 0), used);
      assert.match(lines.find((l) => l.startsWith("turn usage validation:")) ?? "", /status=ok/);

      const plain = emulatorProvider(emulator, "sse");
      const perCall = streamText({
        model: plain("gpt-5"),
        prompt: PROMPT,
        providerOptions: { cursor: { usage: "occupancy" } },
      });
      await perCall.text;
      assert.equal((await perCall.usage).outputTokens, 1);
    });
  });

  it("refuses an unknown usage mode with a clear error", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse");
      const result = generateText({
        model: cursor("gpt-5"),
        prompt: "Hi",
        providerOptions: { cursor: { usage: "tokens" } },
        maxRetries: 0,
      });
      await assert.rejects(result, /usage must be "occupancy" or "request", got "tokens"/);
    });
  });
});
