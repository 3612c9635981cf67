/** The fake cursor-agent's program logic, run in memory (the process tests use it through PATH). */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Step } from "../../src/testing/fake-cursor-agent/beats.ts";
import {
  createMemoryChatStore,
  type FakeChatStore,
} from "../../src/testing/fake-cursor-agent/chat-store.ts";
import { runFakeProgram } from "../../src/testing/fake-cursor-agent/program.ts";
import { readScenario } from "../../src/testing/fake-cursor-agent/scenario.ts";

const PRINT = [
  "--print",
  "--output-format",
  "stream-json",
  "--stream-partial-output",
  "--workspace",
  "/w",
  "--trust",
];

async function run(
  argv: string[],
  options: {
    stdin?: string;
    env?: Record<string, string>;
    scenario?: string;
    store?: FakeChatStore;
  } = {},
) {
  let ids = 0;
  const result = await runFakeProgram({
    argv,
    env: options.env ?? {},
    cwd: "/cwd",
    stdinIsTTY: options.stdin === undefined,
    readStdin: () => Promise.resolve(options.stdin ?? ""),
    scenario: readScenario(options.env ?? {}, options.scenario),
    store: options.store ?? createMemoryChatStore(),
    newChatId: () => `chat-${++ids}`,
    now: () => 1_000,
  });
  const text = (kind: "stdout" | "stderr") =>
    result.steps.map((step: Step) => (step.kind === kind ? step.text : "")).join("");
  const exit = result.steps.find((step) => step.kind === "exit");
  const events = text("stdout").split(/\r?\n/).filter((line) => line.startsWith("{")).map((line) =>
    JSON.parse(line) as Record<string, unknown>
  );
  return {
    result,
    stdout: text("stdout"),
    stderr: text("stderr"),
    exit: exit?.kind === "exit" ? exit.code : undefined,
    events,
  };
}

describe("fake cursor-agent: command line", () => {
  it("prints its version and rejects unknown options like the CLI", async () => {
    assert.equal((await run(["-v"])).stdout, "2026.08.11-fake000\n");
    const unknown = await run(["--print", "--session", "x"]);
    assert.deepEqual([unknown.stderr, unknown.exit], ["error: unknown option '--session'\n", 1]);
    const format = await run(["-p", "--output-format", "xml", "hi"]);
    assert.match(format.stderr, /argument 'xml' is invalid/);
  });

  it("answers status, models and create-chat", async () => {
    assert.match((await run(["status"])).stdout, /Logged in as test@example\.com/);
    assert.match(
      (await run(["whoami"], { env: { FAKE_CURSOR_AGENT_AUTH: "none" } })).stdout,
      /Not logged in/,
    );
    assert.match(
      (await run(["models"])).stdout,
      /^Available models\n\nauto - Auto \(current, default\)/,
    );
    const store = createMemoryChatStore();
    const created = await run(["create-chat", "--workspace", "/w"], { store });
    assert.equal(created.stdout, "chat-1\n");
    assert.ok(store.load("/w", "chat-1"));
    assert.match((await run(["ls"], { stdin: "" })).stderr, /Raw mode is not supported/);
  });

  it("takes a positional prompt without reading stdin, or reads the whole stdin", async () => {
    const positional = await run(["-p", "--output-format=stream-json", "--", "hello", "there"], {
      stdin: "ignored",
    });
    assert.deepEqual([positional.result.promptSource, positional.events[1]?.["type"]], [
      "argv",
      "user",
    ]);
    const piped = await run(PRINT, { stdin: "from stdin" });
    assert.equal(piped.result.promptSource, "stdin");
    assert.match(JSON.stringify(piped.events[1]), /from stdin/);
    const empty = await run(PRINT, { stdin: "  " });
    assert.equal(empty.exit, 1);
  });

  it("writes text or a single JSON object in the other formats, and nothing on stdout on failure", async () => {
    const text = await run(["-p", "--output-format", "text", "::text Plain."]);
    assert.equal(text.stdout, "Plain.\n");
    const json = await run(["-p", "--output-format", "json", "::text Plain."]);
    assert.equal(JSON.parse(json.stdout).result, "Plain.");
    const failed = await run(["-p", "--output-format", "json", "::fail network"]);
    assert.deepEqual([failed.stdout, failed.exit], ["", 1]);
  });
});

describe("fake cursor-agent: gates and tools", () => {
  it("refuses to run logged out, or in an untrusted workspace when asked to", async () => {
    const loggedOut = await run(PRINT, { stdin: "hi", env: { FAKE_CURSOR_AGENT_AUTH: "none" } });
    assert.match(
      loggedOut.stderr,
      /^Error: Authentication required\. Please run 'agent login' first/,
    );
    assert.equal(loggedOut.stdout, "");
    const withKey = await run(PRINT, {
      stdin: "hi",
      env: { FAKE_CURSOR_AGENT_AUTH: "none", CURSOR_API_KEY: "k" },
    });
    assert.equal(withKey.exit, 0);
    const untrusted = await run(["-p", "--output-format", "stream-json", "hi"], {
      env: { FAKE_CURSOR_AGENT_REQUIRE_TRUST: "1" },
    });
    assert.match(untrusted.stderr, /pass --trust, --yolo or -f/);
  });

  it("rejects shell commands without --force and runs them with it", async () => {
    const outcome = (events: Record<string, unknown>[]) =>
      JSON.stringify(events.find((event) => event["subtype"] === "completed"));
    assert.match(outcome((await run(PRINT, { stdin: "::shell ls" })).events), /"rejected"/);
    assert.match(
      outcome((await run([...PRINT, "--yolo"], { stdin: "::shell ls" })).events),
      /"exitCode":0/,
    );
  });

  it("starts parallel calls together and completes them in reverse order", async () => {
    const { events } = await run(PRINT, { stdin: "::read a\n::glob *.ts\n::parallel" });
    const calls = events.filter((event) => event["type"] === "tool_call").map((event) =>
      `${event["subtype"]}:${event["call_id"]}`
    );
    assert.equal(calls.length, 4);
    assert.deepEqual(calls.map((call) => call.split(":")[0]), [
      "started",
      "started",
      "completed",
      "completed",
    ]);
    assert.equal(calls[0]?.split(":")[1], calls[3]?.split(":")[1]);
  });

  it("repeats text as the CLI does: deltas, a flush before tools, a cumulative final", async () => {
    const { events } = await run(PRINT, { stdin: "::text Answer.\n::shell ls" });
    const assistant = events.filter((event) => event["type"] === "assistant");
    const shapes = assistant.map((event) =>
      event["model_call_id"] ? "flush" : event["timestamp_ms"] ? "delta" : "final"
    );
    assert.ok(shapes.includes("flush"));
    assert.equal(shapes.at(-1), "final");
    assert.match(JSON.stringify(assistant.at(-1)), /Let me check that with a tool\. Answer\./);
    const result = events.at(-1);
    assert.deepEqual(Object.keys(result?.["usage"] as object), [
      "inputTokens",
      "outputTokens",
      "cacheReadTokens",
      "cacheWriteTokens",
    ]);
  });

  it("ignores directives of earlier turns once tool results follow them", async () => {
    const prompt =
      "USER: run\n::shell ls\n\nASSISTANT:\nTOOL_CALL (id: c, name: bash): {}\n\nTOOL_RESULT (id: c, name: bash): ok";
    const { events } = await run(PRINT, { stdin: prompt });
    assert.equal(events.filter((event) => event["type"] === "tool_call").length, 0);
    assert.match(JSON.stringify(events.at(-1)), /Tool results received\./);
  });
});

describe("fake cursor-agent: chats and --resume", () => {
  it("continues a known chat and proves it remembers", async () => {
    const store = createMemoryChatStore();
    const first = await run(PRINT, { stdin: "Remember codeword OMEGA", store });
    const second = await run([...PRINT, "--resume", "chat-1"], { stdin: "What was it?", store });
    assert.equal(first.result.chatId, "chat-1");
    assert.equal(second.result.chatSource, "resumed");
    assert.ok(second.events.every((event) => event["session_id"] === "chat-1"));
    assert.match(
      String(second.events.at(-1)?.["result"]),
      /has seen 2 prompts\. I remember codeword OMEGA\./,
    );
  });

  it("treats a chat from another workspace as unknown", async () => {
    const store = createMemoryChatStore();
    await run(PRINT, { stdin: "hi", store });
    const elsewhere = await run([
      ...PRINT.slice(0, 4),
      "--workspace",
      "/other",
      "--resume",
      "chat-1",
    ], { stdin: "x", store });
    assert.equal(elsewhere.result.chatSource, "unknown-new");
  });

  it("handles unknown ids in each configured way", async () => {
    const resume = [...PRINT, "--resume", "gone-1"];
    const silentNew = await run(resume, { stdin: "x" });
    assert.deepEqual([silentNew.result.chatSource, silentNew.events[0]?.["session_id"]], [
      "unknown-new",
      "chat-1",
    ]);
    const silentSame = await run(resume, {
      stdin: "x",
      scenario: '{"unknownResume":"silent-same"}',
    });
    assert.equal(silentSame.events[0]?.["session_id"], "gone-1");
    const error = await run(resume, { stdin: "x", scenario: '{"unknownResume":"error"}' });
    assert.deepEqual([error.stderr, error.stdout, error.exit], [
      "Error: Chat not found: gone-1\n",
      "",
      1,
    ]);
    const custom = await run(resume, {
      stdin: "x",
      scenario: '{"unknownResume":"error-after-init","resumeErrorText":"session <id> has expired"}',
    });
    assert.deepEqual([custom.events.length, custom.stderr, custom.exit], [
      2,
      "session gone-1 has expired\n",
      1,
    ]);
  });

  it("resumes the latest chat on a bare --resume or --continue", async () => {
    const store = createMemoryChatStore();
    await run(PRINT, { stdin: "one", store });
    assert.equal(
      (await run([...PRINT, "--continue"], { stdin: "two", store })).result.chatId,
      "chat-1",
    );
    assert.equal(
      (await run([...PRINT, "--resume"], { stdin: "three", store })).result.chatSource,
      "latest",
    );
  });
});
