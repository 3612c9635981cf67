/**
 * The CLI backend through the AI SDK with the fake `cursor-agent` on PATH: tool
 * hand-off and provider-executed tools, cancellation, robustness against noisy
 * output, failures the user sees, and where the API key goes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "@ai-sdk/provider";
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { findCursorAgent } from "../../../src/adapters/node/process/find-cursor-agent.ts";
import { flagValue, isAlive, setupFake, waitFor } from "../../cli/helpers.ts";

const executed: string[] = [];
const bash = tool({
  description: "Runs a shell command.",
  inputSchema: jsonSchema<{ command: string; description: string }>({
    type: "object",
    properties: { command: { type: "string" }, description: { type: "string" } },
    required: ["command", "description"],
  }),
  execute: ({ command }) => {
    executed.push(command);
    return Promise.resolve("README.md");
  },
});

describe("cursor-agent backend with the fake on PATH", () => {
  it("finds the fake on PATH by name, as it would find the real CLI", async () => {
    const fake = await setupFake();
    try {
      assert.equal(findCursorAgent({ env: fake.env }), fake.binaryPath);
    } finally {
      await fake.cleanup();
    }
  });

  it("hands a shell call to the host as bash, stops the CLI, and resumes with the tool result", async () => {
    const fake = await setupFake();
    try {
      executed.length = 0;
      const result = streamText({
        model: fake.model(),
        prompt: "List the files\n::shell ls -la",
        tools: { bash },
        stopWhen: stepCountIs(2),
      });
      const steps = await result.steps;
      assert.equal(steps[0]?.finishReason, "tool-calls");
      assert.deepEqual(steps[0]?.toolCalls.map((call) => [call.toolName, call.input]), [
        ["bash", { command: "ls -la", description: "Cursor: ls -la" }],
      ]);
      assert.deepEqual(executed, ["ls -la"], "the host ran the command exactly once");
      assert.match(await result.text, /^Tool results received\./);
      const records = await fake.records();
      const starts = records.filter((record) => record.event === "start");
      assert.ok(
        records.some((record) => record.event === "signal" && record.pid === starts[0]?.pid),
        "the CLI was stopped",
      );
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId);
      assert.match(
        starts[1]?.stdin ?? "",
        /^ASSISTANT:\nTOOL_CALL \(id: [^,]+, name: bash\): \{"command":"ls -la"/,
      );
      assert.match(
        starts[1]?.stdin ?? "",
        /TOOL_RESULT \(id: [^,]+, name: bash\): README\.md\n\nCONTINUE:/,
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("surfaces tools without a host equivalent as provider-executed, so the host never runs them", async () => {
    const fake = await setupFake();
    try {
      const result = streamText({
        model: fake.model(),
        prompt: "Search the code\n::semsearch config loader",
        tools: { bash },
      });
      const parts = [];
      for await (const part of result.fullStream) parts.push(part);
      const call = parts.find((part) => part.type === "tool-call");
      const output = parts.find((part) => part.type === "tool-result");
      assert.equal(call?.type === "tool-call" && call.providerExecuted, true);
      assert.equal(call?.toolName, "cursor_semSearch");
      assert.equal(output?.type === "tool-result" && output.providerExecuted, true);
      assert.equal(await result.finishReason, "stop");
      assert.match(await result.text, /Done\./);
    } finally {
      await fake.cleanup();
    }
  });

  it('with toolExecution "cursor", even matching tools run inside Cursor', async () => {
    const fake = await setupFake();
    try {
      executed.length = 0;
      const result = await generateText({
        model: fake.model("auto", { toolExecution: "cursor", force: true }),
        prompt: "Run it\n::shell echo hi",
        tools: { bash },
      });
      assert.equal(result.finishReason, "stop");
      const call = result.content.find((part) => part.type === "tool-call");
      assert.equal(call?.toolName, "cursor_shell");
      const output = result.content.find((part) => part.type === "tool-result");
      assert.deepEqual(output?.type === "tool-result" ? output.output : undefined, {
        success: {
          command: "echo hi",
          exitCode: 0,
          stdout: "ran: echo hi\n",
          stderr: "",
          executionTime: 12,
        },
      });
      const [start] = await fake.starts();
      assert.ok(start?.argv?.includes("--force"));
      assert.deepEqual(executed, [], "the host did not run the command a second time");
    } finally {
      await fake.cleanup();
    }
  });

  it("abort kills the CLI and the processes it started", async () => {
    const fake = await setupFake();
    try {
      const controller = new AbortController();
      const result = streamText({
        model: fake.model(),
        prompt: "Work forever\n::background\n::stall",
        abortSignal: controller.signal,
        onError: () => {},
      });
      const started = Date.now();
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") controller.abort();
      }
      const records = await fake.records();
      const start = records.find((record) => record.event === "start");
      const background = records.find((record) => record.event === "background");
      assert.ok(start && background?.childPid);
      assert.ok(
        await waitFor(() => !isAlive(start.pid) && !isAlive(background.childPid ?? 0), 2000),
      );
      assert.ok(Date.now() - started < 2000, "the abort took effect promptly");
      assert.ok(
        (await fake.records()).some((record) =>
          record.event === "signal" && record.signal === "SIGTERM"
        ),
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("a CLI that ignores SIGTERM is killed after the grace period", async () => {
    const fake = await setupFake({ FAKE_CURSOR_AGENT_IGNORE_SIGTERM: "1" });
    try {
      const controller = new AbortController();
      const result = streamText({
        model: fake.model(),
        prompt: "Stall\n::stall",
        abortSignal: controller.signal,
        onError: () => {},
      });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") controller.abort();
      }
      const start = (await fake.starts())[0];
      assert.ok(start);
      assert.ok(await waitFor(() => !isAlive(start.pid), 2000), "SIGKILL followed SIGTERM");
      assert.ok(
        (await fake.records()).some((record) =>
          record.event === "signal" && record.signal === "SIGTERM"
        ),
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("skips malformed, unknown and split lines with a logged warning and still answers", async () => {
    const fake = await setupFake();
    try {
      const result = streamText({
        model: fake.model(),
        prompt: "Hello\n::malformed\n::noise\n::text All good.",
      });
      assert.equal(await result.text, "All good.");
      assert.equal(await result.finishReason, "stop");
      const skipped = fake.logLines.filter((line) =>
        line.includes("skipped malformed stdout line")
      );
      assert.equal(skipped.length, 4);
      assert.ok(
        fake.logLines.some((line) =>
          line.includes('unknown stream-json event type "fancy_new_event"')
        ),
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("reports usage from the result event, cache reads included", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const messages: ModelMessage[] = [{ role: "user", content: "Hi" }];
      const first = await generateText({ model, messages });
      messages.push(...first.response.messages, { role: "user", content: "Again" });
      const second = await generateText({ model, messages });
      assert.ok((first.usage.inputTokenDetails.cacheWriteTokens ?? 0) > 0);
      assert.ok((second.usage.inputTokenDetails.cacheReadTokens ?? 0) > 0);
      assert.ok((second.usage.outputTokens ?? 0) > 0);
    } finally {
      await fake.cleanup();
    }
  });

  it("passes the API key only through the environment, never in argv or error messages", async () => {
    const apiKey = "crsr_0123456789abcdef0123456789abcdef";
    const fake = await setupFake({ FAKE_CURSOR_AGENT_AUTH: "none" });
    try {
      await generateText({ model: fake.model("auto", { apiKey }), prompt: "Hi" });
      const [start] = await fake.starts();
      assert.ok(!(start?.argv ?? []).some((arg) => arg.includes(apiKey)));
      assert.equal(start?.env?.["CURSOR_API_KEY"], "[present]");
      await fake.scenario({ directives: "::fail quota" });
      const failure = await generateText({ model: fake.model("auto", { apiKey }), prompt: "Hi" })
        .catch((e) => e);
      assert.ok(APICallError.isInstance(failure));
      assert.ok(
        !JSON.stringify({ message: failure.message, body: failure.requestBodyValues }).includes(
          apiKey,
        ),
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("a logged-out CLI fails with an authentication error and advice", async () => {
    const fake = await setupFake({ FAKE_CURSOR_AGENT_AUTH: "none" });
    try {
      const error = await generateText({ model: fake.model(), prompt: "Hi" }).catch((e) => e);
      assert.ok(APICallError.isInstance(error));
      assert.equal((error.data as { code?: string }).code, "unauthenticated");
      assert.match(error.message, /Authentication required/);
      assert.equal(error.isRetryable, false);
    } finally {
      await fake.cleanup();
    }
  });

  it("a CLI that dies mid-stream surfaces an error with its exit status", async () => {
    const fake = await setupFake();
    try {
      const error = await generateText({ model: fake.model(), prompt: "Go\n::die" }).catch((e) =>
        e
      );
      assert.ok(APICallError.isInstance(error));
      assert.match(error.message, /signal SIGKILL/);
    } finally {
      await fake.cleanup();
    }
  });

  it("a missing binary fails with install advice", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model("auto", { binaryPath: `${fake.dir}/nowhere/cursor-agent` });
      const error = await generateText({ model, prompt: "Hi", maxRetries: 0 }).catch((e) => e);
      assert.ok(APICallError.isInstance(error));
      assert.match(error.message, /was not found; install it/);
    } finally {
      await fake.cleanup();
    }
  });

  it("OpenCode's title request never anchors or resumes a chat", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const conversation: ModelMessage[] = [{ role: "user", content: "Fix the login bug" }];
      const reply = await generateText({ model, messages: conversation });
      conversation.push(...reply.response.messages);
      await generateText({
        model,
        system: "You are a title generator. You output ONLY a thread title. Nothing else.",
        messages: [
          { role: "user", content: "Generate a title for this conversation:\n" },
          ...conversation,
        ],
      });
      conversation.push({ role: "user", content: "Now add a test" });
      await generateText({ model, messages: conversation });
      const starts = await fake.starts();
      assert.equal(
        flagValue(starts[1]?.argv, "--resume"),
        undefined,
        "the title request runs in its own chat",
      );
      assert.equal(
        flagValue(starts[2]?.argv, "--resume"),
        starts[0]?.chatId,
        "the conversation still resumes",
      );
      assert.equal(fake.cache.size, 1);
    } finally {
      await fake.cleanup();
    }
  });
});
