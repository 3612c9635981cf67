/**
 * The CLI backend treats the API key as the direct backend does: trimmed and checked up
 * front with the same `config` error (nothing started for a malformed key), handed to
 * cursor-agent only through its environment, and never shown by the debug log, any view
 * of an error, or stderr, even when cursor-agent echoes it back.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { inspect } from "node:util";
import { APICallError, generateText, streamText } from "ai";
import { createCursorProvider } from "../../src/provider/cursor-provider.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";
import type { ProcessRunner, ProcessSpawnOptions } from "../../src/cli/process-runner.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { CursorError } from "../../src/core/cursor-error.ts";

const KEY = "crsr_RECOGNISABLE_cli_fake_key_4242";

/** One recorded start of the stub cursor-agent. */
interface Start {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** A cursor-agent stand-in that prints `stdout` and `stderr`, then exits with `code`. */
function stubRunner(
  output: { stdout: string[]; stderr?: string; code?: number },
): { runner: ProcessRunner; starts: Start[] } {
  const starts: Start[] = [];
  const stream = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        if (text !== "") controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
  const runner: ProcessRunner = {
    spawn(argv: readonly string[], options: ProcessSpawnOptions) {
      starts.push({ argv, env: options.env });
      return {
        pid: 1,
        stdout: stream(output.stdout.map((line) => `${line}\n`).join("")),
        stderr: stream(output.stderr ?? ""),
        exited: Promise.resolve({ code: output.code ?? 0, signal: null }),
        kill() {},
      };
    },
  };
  return { runner, starts };
}

const SUCCESS = [
  '{"type":"system","subtype":"init","session_id":"chat-1","model":"Auto"}',
  '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}]},"session_id":"chat-1"}',
  '{"type":"result","subtype":"success","is_error":false,"result":"Hi!","session_id":"chat-1"}',
];

function cliProvider(settings: CursorProviderSettings, runner: ProcessRunner) {
  return createCursorProvider({ backend: "cli", env: {}, ...settings }, {
    processRunner: () => runner,
    findCursorAgent: () => "/opt/cursor-agent",
    cwd: () => process.cwd(),
  });
}

/** Every text a person or a log could see of an error and its causes. */
function everyView(error: unknown): string[] {
  const views = [inspect(error, { depth: 20 }), JSON.stringify(error) ?? ""];
  for (let current: unknown = error, depth = 0; current && depth < 10; depth++) {
    const record = current as { message?: unknown; stack?: unknown; cause?: unknown };
    views.push(String(record.message), String(record.stack));
    try {
      views.push(JSON.stringify(current) ?? "");
    } catch {
      // circular: inspect above covers it
    }
    current = record.cause;
  }
  return views;
}

describe("the CLI backend's API key", () => {
  const padded: Array<[string, string]> = [
    ["a leading space", ` ${KEY}`],
    ["a leading tab", `\t${KEY}`],
    ["a trailing newline (a .env line)", `${KEY}\n`],
  ];
  for (const [name, key] of padded) {
    it(`with ${name} reaches cursor-agent trimmed, only through its environment`, async () => {
      const { runner, starts } = stubRunner({ stdout: SUCCESS });
      const result = await generateText({
        model: cliProvider({ apiKey: key }, runner)("auto"),
        prompt: "Hi",
      });
      assert.equal(result.text, "Hi!");
      assert.equal(starts.length, 1);
      assert.equal(starts[0]?.env["CURSOR_API_KEY"], KEY);
      assert.ok(!starts[0]?.argv.some((arg) => arg.includes(KEY)), "not in argv");
    });
  }

  it("read from CURSOR_API_KEY is trimmed the same way", async () => {
    const { runner, starts } = stubRunner({ stdout: SUCCESS });
    await generateText({
      model: cliProvider({ env: { CURSOR_API_KEY: `  ${KEY}\r\n` } }, runner)("auto"),
      prompt: "Hi",
    });
    assert.equal(starts[0]?.env["CURSOR_API_KEY"], KEY);
  });

  const malformed: Array<[string, string, RegExp]> = [
    ["an inner newline", `${KEY.slice(0, 10)}\n${KEY.slice(10)}`, /a line break at position 11/],
    ["an inner tab", `${KEY.slice(0, 10)}\t${KEY.slice(10)}`, /a tab/],
    ["no crsr_ prefix", "sk-hardening-0123456789", /starts with "crsr_"/],
  ];
  for (const [name, key, pattern] of malformed) {
    it(`with ${name} fails with the direct backend's config error and starts nothing`, async () => {
      const { runner, starts } = stubRunner({ stdout: SUCCESS });
      const error = await generateText({
        model: cliProvider({ apiKey: key }, runner)("auto"),
        prompt: "Hi",
        maxRetries: 0,
      }).then(() => undefined, (reason: unknown) => reason);
      assert.ok(APICallError.isInstance(error), `an APICallError, got ${String(error)}`);
      const cause = error.cause;
      assert.ok(cause instanceof CursorError, "caused by a CursorError");
      assert.equal(cause.code, "config");
      assert.match(cause.message, /^Invalid Cursor API key/);
      assert.match(cause.message, pattern);
      assert.ok(!cause.message.includes(key.trim()), "the key is not repeated");
      assert.deepEqual(starts, [], "cursor-agent was not started");
    });
  }

  it("a blank key counts as none: cursor-agent starts with its own login", async () => {
    const { runner, starts } = stubRunner({ stdout: SUCCESS });
    await generateText({ model: cliProvider({ apiKey: " \n" }, runner)("auto"), prompt: "Hi" });
    assert.equal(starts.length, 1);
    assert.equal(starts[0]?.env["CURSOR_API_KEY"], undefined);
  });
});

describe("the CLI backend never shows the API key", () => {
  it("when cursor-agent echoes it on stdout, in its result and on stderr", async () => {
    const { runner } = stubRunner({
      stdout: [
        SUCCESS[0] ?? "",
        `not json: the key ${KEY} was refused`,
        `{"type":"result","subtype":"error","is_error":true,"result":"Invalid key ${KEY}","session_id":"chat-1"}`,
      ],
      stderr: `Error: authentication failed for ${KEY.slice(5)} (${KEY})\n`,
      code: 1,
    });
    const { logger, lines } = createMemoryLogger();
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      return true;
    }) as typeof process.stderr.write;
    let failure: unknown;
    try {
      const result = streamText({
        model: cliProvider({ apiKey: ` ${KEY}`, debug: logger }, runner)("auto"),
        prompt: "Hi",
        maxRetries: 0,
        onError: ({ error }) => void (failure = error),
      });
      await result.consumeStream();
    } finally {
      process.stderr.write = write;
    }
    assert.ok(failure instanceof Error, "the run failed");
    assert.match(failure.message, /Invalid key \[redacted\]/, "the CLI's words are kept");
    assert.ok(lines.some((line) => line.includes("skipped malformed stdout line")));
    for (const text of [...everyView(failure), ...lines, ...stderr]) {
      assert.ok(!text.includes(KEY), `shows the key: ${text.slice(0, 300)}`);
    }
  });
});
