/** Failure classification, argv building and tool routing. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyCliFailure, isResumeSpecificFailure } from "../../src/cli/cli-error.ts";
import { buildCursorAgentArgv } from "../../src/cli/argv.ts";
import { routeToolCall } from "../../src/cli/tool-routing.ts";
import {
  AUTH_REQUIRED_TEXT,
  chatNotFoundText,
  modelErrorText,
  NETWORK_TEXT,
  OOM_TEXT,
  QUOTA_TEXT,
  RESUME_TRANSIENT_TEXT,
} from "../../src/testing/fake-cursor-agent/texts.ts";

const failure = (stderr: string, extra: Partial<Parameters<typeof classifyCliFailure>[0]> = {}) =>
  classifyCliFailure({ stderr, exitCode: 1, signal: null, resumed: true, ...extra });

describe("failure classification", () => {
  it("evicts only on failures that say the chat is gone", () => {
    const evicting = [
      chatNotFoundText("0ef42bbf-3b80"),
      'Session "abc" not found',
      "Error: conversation has been deleted",
      "thread is missing",
      "failed to resume chat",
      "Cannot resume: no such chat",
      "invalid session id",
      "chat id expired",
      "session has expired due to inactivity timeout",
    ];
    for (const text of evicting) assert.equal(isResumeSpecificFailure(text), true, text);
    const keeping = [
      RESUME_TRANSIENT_TEXT,
      "session not found; please re-authenticate",
      "RetriableError: Agent turn stopped after repeated resume attempts made no progress",
      "the user presumed the chatting session was fine",
      AUTH_REQUIRED_TEXT,
      QUOTA_TEXT,
      NETWORK_TEXT,
      OOM_TEXT,
    ];
    for (const text of keeping) assert.equal(isResumeSpecificFailure(text), false, text);
  });

  it("never evicts for a run that was not a resume", () => {
    assert.equal(failure(chatNotFoundText("x"), { resumed: false }).resumeSpecific, false);
  });

  it("sorts failures into the error codes a host acts on", () => {
    const cases: [string, string][] = [
      [AUTH_REQUIRED_TEXT, "unauthenticated"],
      [QUOTA_TEXT, "usage_limit"],
      [modelErrorText("gpt-9"), "bad_model"],
      [NETWORK_TEXT, "network"],
      [OOM_TEXT, "process"],
      ["Error: Workspace is not trusted. pass --trust", "config"],
      ["\u001b[31mSomething odd\u001b[0m", "process"],
    ];
    for (const [text, code] of cases) assert.equal(failure(text).error.code, code, text);
    assert.equal(failure(NETWORK_TEXT).error.retryable, true);
    assert.equal(failure(AUTH_REQUIRED_TEXT).error.retryable, false);
  });

  it("names the exit status or signal and the CLI's own words", () => {
    assert.equal(
      failure("Error: boom\n  at x", { exitCode: 2 }).error.message,
      "Cursor CLI failed (exit code 2): Error: boom | at x",
    );
    assert.equal(
      failure("", { exitCode: null, signal: "SIGKILL" }).error.message,
      "Cursor CLI failed (signal SIGKILL): no error output",
    );
    assert.match(
      failure("", { resultError: "Agent failed", exitCode: 0 }).error.message,
      /\(error result\): Agent failed/,
    );
  });
});

describe("argv", () => {
  it("has the print flags, workspace, model, resume and the chosen permissions, never a prompt or key", () => {
    assert.deepEqual(
      buildCursorAgentArgv({
        binaryPath: "/bin/cursor-agent",
        model: "claude-opus-4-8[context=1m,effort=high]",
        workspace: "/home/me/my project",
        resumeChatId: "chat_1",
        force: true,
        approveMcps: true,
        sandbox: "enabled",
      }),
      [
        "/bin/cursor-agent",
        "--print",
        "--output-format",
        "stream-json",
        "--stream-partial-output",
        "--workspace",
        "/home/me/my project",
        "--model",
        "claude-opus-4-8[context=1m,effort=high]",
        "--resume",
        "chat_1",
        "--force",
        "--trust",
        "--approve-mcps",
        "--sandbox",
        "enabled",
      ],
    );
    assert.ok(
      !buildCursorAgentArgv({ binaryPath: "a", model: "auto", workspace: "/w", trust: false })
        .includes("--trust"),
    );
  });

  it("refuses values that could change the command", () => {
    assert.throws(
      () => buildCursorAgentArgv({ binaryPath: "a", model: "auto; rm", workspace: "/w" }),
      /model id "auto; rm"/,
    );
    assert.throws(
      () => buildCursorAgentArgv({ binaryPath: "a", model: "auto", workspace: '/w"' }),
      /workspace/,
    );
    assert.throws(
      () =>
        buildCursorAgentArgv({
          binaryPath: "a",
          model: "auto",
          workspace: "/w",
          resumeChatId: "-x",
        }),
      /unsafe/,
    );
  });
});

describe("tool routing", () => {
  const tools = [
    {
      name: "bash",
      properties: ["command", "timeout", "workdir", "description"],
      required: ["command", "description"],
    },
    { name: "read", properties: ["filePath", "offset", "limit"], required: ["filePath"] },
    {
      name: "edit",
      properties: ["filePath", "oldString", "newString", "replaceAll"],
      required: ["filePath", "oldString", "newString"],
    },
    { name: "write", properties: ["filePath", "content"], required: ["filePath", "content"] },
    { name: "glob", properties: ["pattern", "path"], required: ["pattern"] },
    { name: "todowrite", properties: ["todos"], required: ["todos"] },
  ];

  it("gives a shell tool only the keys its schema declares, the directory as cwd where it has one", () => {
    const shell = (properties: string[]) => [{ name: "bash", properties, required: ["command"] }];
    const args = { command: "ls", workingDirectory: "/w", timeout: 30000 };
    assert.deepEqual(routeToolCall("shell", args, shell(["command", "cwd"])).input, {
      command: "ls",
      cwd: "/w",
    });
    assert.deepEqual(routeToolCall("shell", args, shell(["command"])).input, { command: "ls" });
  });

  it("maps Cursor's tools and argument names onto the host's", () => {
    assert.deepEqual(
      routeToolCall("shell", { command: "ls", workingDirectory: "/w", timeout: 30000 }, tools),
      {
        kind: "host",
        toolName: "bash",
        input: { command: "ls", timeout: 30000, workdir: "/w", description: "Cursor: ls" },
      },
    );
    assert.deepEqual(routeToolCall("read", { path: "/w/a.ts", limit: 10 }, tools).input, {
      filePath: "/w/a.ts",
      limit: 10,
    });
    assert.deepEqual(
      routeToolCall("edit", { path: "a", strReplace: { oldText: "x", newText: "y" } }, tools).input,
      {
        filePath: "a",
        oldString: "x",
        newString: "y",
      },
    );
    assert.deepEqual(routeToolCall("edit", { path: "a", streamContent: "all" }, tools), {
      kind: "host",
      toolName: "write",
      input: { filePath: "a", content: "all" },
    });
    assert.deepEqual(
      routeToolCall("glob", { targetDirectory: "/w", globPattern: "*.ts" }, tools).input,
      {
        pattern: "*.ts",
        path: "/w",
      },
    );
    assert.equal(routeToolCall("updateTodos", { todos: [] }, tools).toolName, "todowrite");
  });

  it("leaves Cursor-only tools, and calls the host could not run, to Cursor", () => {
    assert.deepEqual(routeToolCall("semSearch", { query: "q" }, tools), {
      kind: "cursor",
      toolName: "cursor_semSearch",
      input: { query: "q" },
    });
    assert.equal(
      routeToolCall("edit", { path: "a" }, tools).kind,
      "cursor",
      "no old/new text: the host edit would fail",
    );
    assert.equal(routeToolCall("shell", { command: "ls" }, []).kind, "cursor");
  });
});
