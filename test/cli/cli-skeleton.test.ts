/**
 * The shared language model on the CLI backend, through `ai@6` with the fake
 * `cursor-agent` on PATH: `generateText` runs host tools and finishes with text, and
 * an abort is the AI SDK's abort error.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isAbortError } from "@ai-sdk/provider-utils";
import { APICallError } from "@ai-sdk/provider";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { CursorError } from "../../src/core/cursor-error.ts";
import { isAlive, setupFake, waitFor } from "./helpers.ts";

/** Waits until every CLI process the fake started has exited (before its folder is removed). */
async function allExited(fake: Awaited<ReturnType<typeof setupFake>>): Promise<void> {
  const starts = await fake.starts();
  await waitFor(() => starts.every((start) => !isAlive(start.pid)), 5000);
}

describe("generateText on the CLI backend", () => {
  it("runs the host tool and finishes with text", async () => {
    const fake = await setupFake();
    try {
      const commands: string[] = [];
      const result = await generateText({
        model: fake.model(),
        prompt: "List the files\n::shell ls -la",
        tools: {
          bash: tool({
            description: "Runs a shell command.",
            inputSchema: jsonSchema<{ command: string }>({
              type: "object",
              properties: { command: { type: "string" } },
              required: ["command"],
            }),
            execute: ({ command }) => {
              commands.push(command);
              return Promise.resolve("README.md");
            },
          }),
        },
        stopWhen: stepCountIs(3),
      });
      assert.deepEqual(commands, ["ls -la"], "the host ran the command once");
      assert.equal(result.steps[0]?.finishReason, "tool-calls");
      assert.equal(result.finishReason, "stop");
      assert.match(result.text, /^Tool results received\./);
      const response = result.steps[0]?.response;
      assert.ok(response?.id && response.id !== "", "the response id is the CLI's chat id");
      assert.ok(response?.timestamp instanceof Date);
    } finally {
      await fake.cleanup();
    }
  });
});

describe("aborts on the CLI backend", () => {
  it("an aborted generateText rejects with an error isAbortError accepts", async () => {
    const fake = await setupFake();
    try {
      const controller = new AbortController();
      const pending = generateText({
        model: fake.model(),
        prompt: "Stall\n::hang-after-init",
        abortSignal: controller.signal,
      });
      for (let i = 0; i < 1000 && (await fake.starts()).length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      controller.abort("the user pressed Escape");
      const error = await pending.then(() => undefined, (reason: unknown) => reason);
      assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
      assert.ok(!APICallError.isInstance(error));
      await allExited(fake);
    } finally {
      await fake.cleanup();
    }
  });

  it("an abort during doStream ends the stream with an AbortError that keeps the reason", async () => {
    const fake = await setupFake();
    try {
      const controller = new AbortController();
      const { stream } = await fake.model().doStream({
        prompt: [{ role: "user", content: [{ type: "text", text: "Stall\n::stall" }] }],
        abortSignal: controller.signal,
      });
      const failures: unknown[] = [];
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read().catch((reason: unknown) => {
          failures.push(reason);
          return { done: true as const, value: undefined };
        });
        if (next.done) break;
        if (next.value.type === "text-delta") controller.abort("stop now");
        if (next.value.type === "error") failures.push(next.value.error);
      }
      assert.equal(failures.length, 1);
      const error = failures[0];
      assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
      assert.ok(error instanceof Error && error.cause instanceof CursorError);
      assert.equal((error.cause as CursorError).cause, "stop now");
      await allExited(fake);
    } finally {
      await fake.cleanup();
    }
  });

  it("an aborted streamText ends with an abort part, not an API error", async () => {
    const fake = await setupFake();
    try {
      const controller = new AbortController();
      const errors: unknown[] = [];
      const result = streamText({
        model: fake.model(),
        prompt: "Stall\n::stall",
        abortSignal: controller.signal,
        onError: ({ error }) => {
          errors.push(error);
        },
      });
      const seen: string[] = [];
      for await (const part of result.fullStream) {
        seen.push(part.type);
        if (part.type === "text-delta") controller.abort();
      }
      assert.ok(seen.includes("abort"), `parts: ${seen.join(",")}`);
      assert.ok(errors.every((error) => isAbortError(error)));
      await allExited(fake);
    } finally {
      await fake.cleanup();
    }
  });
});
