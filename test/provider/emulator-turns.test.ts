import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, generateText, streamText } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

const quiet = { maxRetries: 0 } as const;

describe("plain turns against the emulator", () => {
  for (const transport of ["sse", "http2"] as const) {
    it(`streams text over ${transport} with zero protocol violations`, async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const result = streamText({ model: cursor("gpt-5"), prompt: "Hello emulator", ...quiet });
        const deltas: string[] = [];
        for await (const text of result.textStream) deltas.push(text);
        assert.ok(deltas.length > 1, "the reply arrives in several deltas");
        assert.match(deltas.join(""), /You said: "Hello emulator"/);
        assert.equal(await result.finishReason, "stop");
        const usage = await result.usage;
        assert.ok((usage.inputTokens ?? 0) > 0, "occupancy usage from the checkpoint");
        assert.deepEqual(emulator.violations(), []);
        assert.equal(emulator.runs()[0]?.transport, transport);
      });
    });
  }

  it("streams thinking as reasoning parts for a thinking variant", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const result = await generateText({
        model: cursor("claude-4.5-sonnet"),
        prompt: "::think Considering the options\n::text Done",
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
      assert.match(result.reasoningText ?? "", /Considering the options/);
      assert.equal(result.text, "Done");
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("sends the variant tuple and Max Mode for a 1M selection", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      await generateText({
        model: cursor("claude-4.5-sonnet-1m"),
        prompt: "hi",
        providerOptions: {
          cursor: {
            cursorModelId: "claude-4.5-sonnet",
            cursorVariantParameters: [{ id: "thinking", value: "false" }, {
              id: "context",
              value: "1m",
            }],
          },
        },
        ...quiet,
      });
      const run = emulator.runs()[0];
      assert.equal(run?.modelId, "claude-4.5-sonnet");
      assert.equal(run?.maxMode, true);
      assert.deepEqual(run?.parameters, { thinking: "false", context: "1m" });
    });
  });

  it("renews an API-key token that expires between turns without the caller noticing", async () => {
    // One clock for both sides, moved past the token's lifetime between the turns.
    let now = Date.now();
    const clock = () => now;
    const lifetime = 60 * 60 * 1000;
    await withEmulator(
      { now: clock, auth: { accessTokenLifetimeMs: lifetime } },
      async (emulator) => {
        const cursor = emulatorProvider(emulator, "sse", { now: clock });
        const first = await generateText({ model: cursor("gpt-5"), prompt: "one", ...quiet });
        now += lifetime + 60_000;
        const second = await generateText({ model: cursor("gpt-5"), prompt: "two", ...quiet });
        assert.match(first.text, /one/);
        assert.match(second.text, /two/);
        const exchanges = emulator.auth.events().filter((event) =>
          event.kind === "exchange" && event.ok
        );
        assert.equal(
          exchanges.length,
          2,
          "the key was exchanged again once the first token expired",
        );
        assert.deepEqual(emulator.violations(), []);
      },
    );
  });
});

describe("failures against the emulator", () => {
  const cases: [string, string, RegExp, boolean][] = [
    ["rate-limit", "rate_limited", /Too many requests/, true],
    ["quota", "usage_limit", /usage limit/i, false],
    ["unavailable", "unavailable", /Provider error/, true],
    ["unauthenticated", "unauthenticated", /Sign in to Cursor again/, false],
    ["bad-model", "bad_model", /AI Model Not Found/, false],
  ];
  for (const [preset, code, message, retryable] of cases) {
    it(`surfaces the ${preset} end-of-stream error as a ${retryable ? "retryable" : "final"} APICallError`, async () => {
      await withEmulator({}, async (emulator) => {
        emulator.faults.next(preset);
        const cursor = emulatorProvider(emulator);
        const error = await generateText({ model: cursor("gpt-5"), prompt: "x", ...quiet }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(APICallError.isInstance(error), `got ${String(error)}`);
        assert.equal(error.isRetryable, retryable);
        assert.match(error.message, message);
        assert.equal((error.data as { code?: string }).code, code);
        assert.doesNotMatch(error.message, /crsr_|Bearer/);
      });
    });
  }

  it("reports a stream dropped before turn_ended as an interruption, never a stop", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      // After an exec the turn is not replay-safe, so the drop surfaces.
      const prompt = "::ls\n::deltas 5\n::fault drop\n::deltas 5";
      const result = streamText({ model: cursor("gpt-5"), prompt, ...quiet });
      const errors: unknown[] = [];
      for await (const part of result.fullStream) {
        if (part.type === "error") errors.push(part.error);
      }
      assert.equal(errors.length, 1);
      assert.match(String((errors[0] as Error).message), /before turn_ended|failed/);
    });
  });

  it("names the region problem when the agent host closes at once", async () => {
    await withEmulator({}, async (emulator) => {
      emulator.faults.next({ kind: "wrong-region" });
      const cursor = emulatorProvider(emulator);
      await assert.rejects(
        generateText({ model: cursor("gpt-5"), prompt: "x", ...quiet }),
        /region/,
      );
    });
  });

  it("fails with a protocol error on an oversized frame instead of buffering it", async () => {
    await withEmulator({}, async (emulator) => {
      emulator.faults.next({ kind: "oversized-frame", afterFrames: 1 });
      const cursor = emulatorProvider(emulator);
      const result = streamText({ model: cursor("gpt-5"), prompt: "::deltas 5", ...quiet });
      const errors: unknown[] = [];
      for await (const part of result.fullStream) {
        if (part.type === "error") errors.push(part.error);
      }
      assert.match(String((errors[0] as Error | undefined)?.message), /exceeds limit/);
    });
  });

  it("skips a frame of an unknown kind and still completes the turn", async () => {
    await withEmulator({}, async (emulator) => {
      emulator.faults.next({ kind: "unknown-message", afterFrames: 1 });
      const cursor = emulatorProvider(emulator);
      const { text } = await generateText({
        model: cursor("gpt-5"),
        prompt: "::text still fine",
        ...quiet,
      });
      assert.equal(text, "still fine");
    });
  });

  it("fails a Run whose stream goes silent past the limit", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse", { timeouts: { readIdleMs: 500 } });
      const prompt = "::ls\n::fault stall ms=3000\n::deltas 4";
      const result = streamText({ model: cursor("gpt-5"), prompt, ...quiet });
      const errors: unknown[] = [];
      for await (const part of result.fullStream) {
        if (part.type === "error") errors.push(part.error);
      }
      assert.match(String((errors[0] as Error | undefined)?.message), /No frame from Cursor/);
    });
  });
});

describe("abort", () => {
  it("cancels the Run promptly when the caller aborts mid-stream", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const controller = new AbortController();
      const result = streamText({
        model: cursor("gpt-5"),
        prompt: "::deltas 200\n::sleep 5s\n::text never",
        abortSignal: controller.signal,
        maxRetries: 0,
      });
      const started = Date.now();
      let seen = 0;
      try {
        for await (const part of result.fullStream) {
          if (part.type === "text-delta" && ++seen === 3) controller.abort();
        }
      } catch {
        // an abort may surface as a rejection
      }
      assert.ok(Date.now() - started < 3000, "the stream ended well before the reply would have");
      assert.ok(seen >= 3);
      for (let i = 0; i < 40 && emulator.stats().liveRuns > 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(emulator.stats().liveRuns, 0, "the emulator saw the Run end");
    });
  });
});

describe("lost blobs", () => {
  it("reseeds from host history when Cursor asks for a blob the client no longer holds, instead of failing", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const session = { providerOptions: { cursor: { sessionId: "ses_blobs" } } };
      const first = await generateText({
        model: cursor("gpt-5"),
        prompt: "Remember the word kumquat",
        ...session,
        ...quiet,
      });
      emulator.faults.next({ kind: "blob-miss" });
      const second = await generateText({
        model: cursor("gpt-5"),
        messages: [
          { role: "user", content: "Remember the word kumquat" },
          { role: "assistant", content: first.text },
          { role: "user", content: "What was the word?" },
        ],
        ...session,
        ...quiet,
      });
      assert.match(
        second.text,
        /kumquat/,
        "the reseeded conversation still holds the earlier turn",
      );
      assert.match(
        emulator.runs()[2]?.userText ?? "",
        /What was the word\?/,
        "and the new question",
      );
      const runs = emulator.runs();
      assert.equal(runs.length, 3, "turn 1, the failed warm attempt, the reseeded Run");
      assert.match(JSON.stringify(runs[1]?.error ?? ""), /Blob not found/i);
      assert.equal(runs[2]?.continuity, "cold");
      assert.notEqual(runs[2]?.conversationId, runs[0]?.conversationId);
    });
  });
});
