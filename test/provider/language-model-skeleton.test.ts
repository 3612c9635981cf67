/**
 * The shared language model on the direct backend, through `ai@6` against the
 * emulator: `generateText` runs host tools (on both transports), aborts are the AI
 * SDK's abort errors, a rate limit tells the SDK how long to wait, and a strict shell
 * schema gets only the keys it declares.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APICallError } from "@ai-sdk/provider";
import { isAbortError } from "@ai-sdk/provider-utils";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";

const session = (id: string) => ({ providerOptions: { cursor: { sessionId: id } } });

/** Runs `fn` with a fresh temporary folder (its real path), removed afterwards. */
async function inFolder(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "cursor-skeleton-")));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the emulator has seen a Run (polling, no timing assertion). */
async function runStarted(emulator: CursorEmulator): Promise<void> {
  for (let i = 0; i < 1000 && emulator.runs().length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("generateText with tools on the direct backend", () => {
  for (const transport of ["sse", "http2"] as const) {
    it(`runs the host tool and finishes with text (${transport})`, async () => {
      await inFolder(async (dir) => {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          const commands: string[] = [];
          const bash = hostTools(dir).bash;
          const run = bash.execute;
          assert.ok(run);
          const result = await generateText({
            model: cursor("gpt-5"),
            prompt: "::shell printf 'from-the-host\\n'",
            tools: {
              bash: tool({
                ...bash,
                execute: (input, options) => {
                  commands.push(input.command);
                  return run(input, options);
                },
              }),
            },
            stopWhen: stepCountIs(3),
            ...session(`ses_generate_${transport}`),
          });
          assert.equal(commands.length, 1, "the host ran the tool once");
          assert.equal(result.steps[0]?.finishReason, "tool-calls");
          assert.deepEqual(result.steps[0]?.toolCalls.map((call) => call.toolName), ["bash"]);
          assert.equal(result.finishReason, "stop");
          assert.match(result.text, /from-the-host/, "the final answer quotes the tool's output");
          assert.equal(emulator.runs().length, 1, "the result went back on the held Run");
          const response = result.steps[0]?.response;
          assert.ok(response?.id && response.id !== "", "the response id is Cursor's");
          assert.equal(response?.modelId, "gpt-5");
          assert.ok(response?.timestamp instanceof Date);
          assert.deepEqual(emulator.violations(), []);
        });
      });
    });
  }
});

describe("aborts on the direct backend", () => {
  it("an aborted generateText rejects with an error isAbortError accepts, keeping the cause", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const controller = new AbortController();
      const pending = generateText({
        model: cursor("gpt-5"),
        prompt: "::text started\n::sleep 20s\n::text never",
        abortSignal: controller.signal,
        ...session("ses_abort_generate"),
      });
      await runStarted(emulator);
      controller.abort();
      const error = await pending.then(() => undefined, (reason: unknown) => reason);
      assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
      assert.ok(!APICallError.isInstance(error));
      assert.ok(error instanceof Error && error.cause instanceof CursorError);
      assert.equal((error.cause as CursorError).code, "canceled");
    });
  });

  it("an aborted streamText reports an abort error, not an API call error", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const controller = new AbortController();
      const errors: unknown[] = [];
      const result = streamText({
        model: cursor("gpt-5"),
        prompt: "::text started\n::sleep 20s\n::text never",
        abortSignal: controller.signal,
        onError: ({ error }) => {
          errors.push(error);
        },
        ...session("ses_abort_stream"),
      });
      const seen: string[] = [];
      for await (const part of result.fullStream) {
        seen.push(part.type);
        if (part.type === "text-delta") controller.abort();
        if (part.type === "error") errors.push(part.error);
      }
      assert.ok(seen.includes("text-delta"));
      assert.ok(seen.includes("abort") || errors.length > 0, `parts: ${seen.join(",")}`);
      for (const error of errors) {
        assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
      }
    });
  });

  it("an abort during doStream ends the stream with an AbortError part", async () => {
    await withEmulator({}, async (emulator) => {
      const model = emulatorProvider(emulator)("gpt-5");
      const controller = new AbortController();
      const { stream } = await model.doStream({
        prompt: [{
          role: "user",
          content: [{ type: "text", text: "::text started\n::sleep 20s\n::text never" }],
        }],
        abortSignal: controller.signal,
        providerOptions: { cursor: { sessionId: "ses_abort_mid" } },
      });
      const failures: unknown[] = [];
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read().catch((reason: unknown) => {
          failures.push(reason);
          return { done: true as const, value: undefined };
        });
        if (next.done) break;
        if (next.value.type === "text-delta") controller.abort();
        if (next.value.type === "error") failures.push(next.value.error);
      }
      assert.equal(failures.length, 1);
      assert.ok(isAbortError(failures[0]), `expected an abort error, got ${String(failures[0])}`);
    });
  });

  it("doStream on an aborted signal throws an AbortError whose cause is the CursorError", async () => {
    await withEmulator({}, async (emulator) => {
      const model = emulatorProvider(emulator)("gpt-5");
      const error = await model.doStream({
        prompt: [{ role: "user", content: [{ type: "text", text: "::text hi" }] }],
        abortSignal: AbortSignal.abort(),
      }).then(() => undefined, (reason: unknown) => reason);
      assert.ok(isAbortError(error));
      assert.ok(error instanceof Error && error.cause instanceof CursorError);
      assert.equal((error.cause as CursorError).code, "canceled");
    });
  });

  it("a caller's timeout signal is an abort, not a retryable failure of Cursor", async () => {
    await withEmulator({}, async (emulator) => {
      const model = emulatorProvider(emulator)("gpt-5");
      const timeout = new DOMException("The caller gave up", "TimeoutError");
      const error = await model.doStream({
        prompt: [{ role: "user", content: [{ type: "text", text: "::text hi" }] }],
        abortSignal: AbortSignal.abort(timeout),
      }).then(() => undefined, (reason: unknown) => reason);
      assert.ok(isAbortError(error), `expected an abort error, got ${String(error)}`);
      assert.ok(!APICallError.isInstance(error));
    });
  });
});

describe("rate limits on the direct backend", () => {
  it("carry the server's retry delay in the APICallError's response headers", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const error = await generateText({
        model: cursor("gpt-5"),
        prompt: "::fault rate-limit",
        maxRetries: 0,
      }).then(() => undefined, (reason: unknown) => reason);
      assert.ok(APICallError.isInstance(error), `expected an APICallError, got ${String(error)}`);
      assert.equal(error.isRetryable, true);
      assert.equal(error.responseHeaders?.["retry-after-ms"], "2000");
      assert.equal(error.responseHeaders?.["retry-after"], "2");
    });
  });
});

describe("shell calls follow the host tool's schema", () => {
  /** A shell tool with exactly these properties that runs commands from `/`. */
  function strictShell(properties: string[], inputs: Record<string, unknown>[]) {
    return tool({
      description: "Run a shell command",
      inputSchema: jsonSchema<{ command: string; cwd?: string }>({
        type: "object",
        properties: Object.fromEntries(properties.map((name) => [name, { type: "string" }])),
        required: ["command"],
        additionalProperties: false,
      }),
      execute: (input) => {
        inputs.push(input);
        const run = spawnSync("sh", ["-c", input.command], {
          cwd: input.cwd ?? "/",
          encoding: "utf8",
          timeout: 10_000,
        });
        return (run.stdout ?? "") + (run.stderr ?? "");
      },
    });
  }

  it("a schema with neither workdir nor cwd gets no directory key, and the command still runs in the directory", async () => {
    await inFolder(async (dir) => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot: dir } });
        const inputs: Record<string, unknown>[] = [];
        const result = await generateText({
          model: cursor("gpt-5"),
          prompt: "::shell pwd",
          tools: { bash: strictShell(["command"], inputs) },
          stopWhen: stepCountIs(3),
          ...session("ses_strict"),
        });
        assert.equal(inputs.length, 1);
        assert.deepEqual(Object.keys(inputs[0] ?? {}), ["command"]);
        assert.ok(result.text.includes(dir), `the command ran in ${dir}: ${result.text}`);
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });

  it("a schema with cwd gets the directory as cwd", async () => {
    await inFolder(async (dir) => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot: dir } });
        const inputs: Record<string, unknown>[] = [];
        const result = await generateText({
          model: cursor("gpt-5"),
          prompt: "::shell pwd",
          tools: { bash: strictShell(["command", "cwd"], inputs) },
          stopWhen: stepCountIs(3),
          ...session("ses_cwd"),
        });
        assert.deepEqual(Object.keys(inputs[0] ?? {}).sort(), ["command", "cwd"]);
        assert.equal(inputs[0]?.cwd, dir);
        assert.ok(result.text.includes(dir));
      });
    });
  });
});
