/** The LanguageModelV3 over stub runners that play recorded output. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, type LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { ProcessRunner } from "../../src/cli/process-runner.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import {
  type CliBackendConfig,
  createCliLanguageModel,
  createResumeCache,
} from "../../src/provider/cli/cli-backend.ts";
import { collect, createStubRunner, readFixture, textOf } from "../cli/helpers.ts";

const PROMPT: LanguageModelV3CallOptions["prompt"] = [{
  role: "user",
  content: [{ type: "text", text: "Hi" }],
}];

/** Resolves to what the work rejected with (undefined when it succeeded). */
async function failureOf(work: PromiseLike<unknown>): Promise<unknown> {
  try {
    await work;
    return undefined;
  } catch (error) {
    return error;
  }
}

function model(runner: ProcessRunner, overrides: Partial<CliBackendConfig> = {}) {
  return createCliLanguageModel("auto", {
    runner,
    binaryPath: "/usr/local/bin/cursor-agent",
    workspace: "/w",
    env: {},
    resumeCache: createResumeCache(),
    ...overrides,
  });
}

describe("cursor-agent language model", () => {
  it("identifies itself as a v3 model of the cursor-agent provider", () => {
    const { runner } = createStubRunner({ stdout: "" });
    const instance = model(runner);
    assert.equal(instance.specificationVersion, "v3");
    assert.equal(instance.provider, "cursor.cli");
    assert.equal(instance.modelId, "auto");
  });

  it("warns about options the CLI cannot honour in stream-start", async () => {
    const { runner } = createStubRunner({ stdout: readFixture("shell-turn.jsonl") });
    const { stream } = await model(runner).doStream({
      prompt: PROMPT,
      temperature: 0.3,
      maxOutputTokens: 100,
      toolChoice: { type: "required" },
      responseFormat: { type: "json" },
    });
    const [start] = await collect(stream);
    assert.deepEqual(
      start?.type === "stream-start"
        ? start.warnings.map((warning) => warning.type === "other" ? "" : warning.feature)
        : [],
      ["temperature", "maxOutputTokens", "responseFormat", "toolChoice"],
    );
  });

  it("runs the binary in the workspace with the prompt on stdin and the key only in the environment", async () => {
    const { runner, calls } = createStubRunner({ stdout: readFixture("shell-turn.jsonl") });
    const result = await model(runner, {
      apiKey: "crsr_abcdefabcdef",
      env: { HOME: "/home/me", GONE: undefined },
    })
      .doGenerate({ prompt: PROMPT });
    const call = calls[0];
    assert.equal(call?.argv[0], "/usr/local/bin/cursor-agent");
    assert.equal(call?.options.cwd, "/w");
    assert.equal(call?.options.stdin, "USER: Hi");
    assert.deepEqual(call?.options.env, { HOME: "/home/me", CURSOR_API_KEY: "crsr_abcdefabcdef" });
    assert.ok(!call?.argv.some((arg) => arg.includes("crsr_")));
    assert.deepEqual(result.request?.body, {
      argv: [
        "--print",
        "--output-format",
        "stream-json",
        "--stream-partial-output",
        "--workspace",
        "/w",
        "--model",
        "auto",
        "--trust",
      ],
      resume: "fresh",
      resumeReason: "disabled",
      workspace: "/w",
      promptBytes: 8,
    });
  });

  it("folds the stream into generate content in order", async () => {
    const { runner } = createStubRunner({ stdout: readFixture("shell-turn.jsonl") });
    const result = await model(runner).doGenerate({ prompt: PROMPT });
    assert.deepEqual(result.content.map((part) => part.type), [
      "reasoning",
      "text",
      "tool-call",
      "tool-result",
      "text",
    ]);
    assert.equal(
      result.content[1]?.type === "text" ? result.content[1].text : "",
      "Running it now.",
    );
    assert.equal(result.finishReason.unified, "stop");
    assert.equal(result.usage.outputTokens.total, 103);
    assert.equal(result.response?.modelId, "Auto");
  });

  it("emits every stdout line as a raw part when asked", async () => {
    const { runner } = createStubRunner({ stdout: readFixture("error-result.jsonl") });
    const { stream } = await model(runner).doStream({ prompt: PROMPT, includeRawChunks: true });
    const raw = (await collect(stream)).filter((part) => part.type === "raw");
    assert.equal(raw.length, 2);
  });

  it("turns an error result into an APICallError with the CLI's words", async () => {
    const { runner } = createStubRunner({ stdout: readFixture("error-result.jsonl"), code: 1 });
    const error = await failureOf(model(runner).doGenerate({ prompt: PROMPT }));
    assert.ok(APICallError.isInstance(error));
    assert.match(error.message, /Cannot use this model: gpt-9/);
    assert.equal((error.data as { code: string }).code, "bad_model");
  });

  it("treats a successful result as success even when the exit code is not zero (quota notice after output)", async () => {
    const { logger, lines } = createMemoryLogger();
    const { runner } = createStubRunner({
      stdout: readFixture("shell-turn.jsonl"),
      stderr: "Error: You've hit your usage limit",
      code: 1,
    });
    const result = await model(runner, { logger }).doGenerate({ prompt: PROMPT });
    assert.equal(result.finishReason.unified, "stop");
    assert.ok(lines.some((line) => line.includes("usage limit")));
  });

  it("fails a run that ends without a result and with a non-zero exit", async () => {
    const lines = readFixture("shell-turn.jsonl").split("\n").slice(0, 5).join("\n");
    const { runner } = createStubRunner({
      stdout: lines,
      stderr: "ConnectError: fetch failed",
      code: 1,
    });
    const { stream } = await model(runner).doStream({ prompt: PROMPT });
    const parts = await collect(stream);
    const error = parts.find((part) => part.type === "error");
    assert.ok(error?.type === "error" && APICallError.isInstance(error.error));
    assert.equal((error.error.data as { code: string }).code, "network");
    assert.equal(textOf(parts), "Running ");
    assert.equal(parts.at(-1)?.type, "finish");
  });

  it("stops a CLI that stays silent past the idle timeout", async () => {
    let killed = false;
    const runner: ProcessRunner = {
      spawn: () => {
        let close: () => void = () => {};
        const stdout = new ReadableStream<Uint8Array>({
          start: (controller) => void (close = () => controller.close()),
          cancel: () => void (close = () => {}),
        });
        return {
          pid: 1,
          stdout,
          stderr: new ReadableStream({ start: (controller) => controller.close() }),
          exited: new Promise(() => {}),
          kill: () => {
            killed = true;
            close();
          },
        };
      },
    };
    const error = await failureOf(
      model(runner, { idleTimeoutMs: 50 }).doGenerate({ prompt: PROMPT }),
    );
    assert.ok(APICallError.isInstance(error));
    assert.match(error.message, /no output for 50 ms/);
    assert.equal(killed, true);
  });

  it("fails before spawning when no binary was found or the model id is unsafe", async () => {
    const { runner, calls } = createStubRunner({ stdout: "" });
    await assert.rejects(
      async () => await model(runner, { binaryPath: undefined }).doStream({ prompt: PROMPT }),
      /Cannot find cursor-agent/,
    );
    const unsafe = createCliLanguageModel("auto && rm", {
      runner,
      binaryPath: "cursor-agent",
      workspace: "/w",
      env: {},
      resumeCache: createResumeCache(),
    });
    await assert.rejects(
      async () => await unsafe.doStream({ prompt: PROMPT }),
      /model id "auto && rm"/,
    );
    assert.equal(calls.length, 0);
  });

  it("with toolChoice none hands nothing to the host", async () => {
    const { runner, calls } = createStubRunner({ stdout: readFixture("shell-turn.jsonl") });
    const result = await model(runner).doGenerate({
      prompt: PROMPT,
      tools: [{
        type: "function",
        name: "bash",
        inputSchema: { type: "object", properties: { command: {} } },
      }],
      toolChoice: { type: "none" },
    });
    assert.equal(result.finishReason.unified, "stop");
    assert.doesNotMatch(calls[0]?.options.stdin ?? "", /HOST TOOLS/);
  });
});
