import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ExecServerMessageSchema } from "../../../src/gen/agent/v1/exec_pb.ts";
import {
  parseWrappedOutput,
  wrapCommand,
} from "../../../src/provider/direct/tools/shell/shell-wrapper.ts";
import { rawReadContent } from "../../../src/provider/direct/tools/files/read-output.ts";
import { patchForWrite } from "../../../src/provider/direct/tools/files/apply-patch.ts";
import { classifyHostTools } from "../../../src/provider/direct/tools/host-tools.ts";
import { bridgeExec } from "../../../src/provider/direct/tools/exec-to-tool-call.ts";
import { execResultMessages } from "../../../src/provider/direct/tools/exec-results.ts";
import { spawnSync } from "node:child_process";

const schema = (...names: string[]) => ({
  type: "object" as const,
  properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
});
const opencodeTools = classifyHostTools([
  {
    type: "function",
    name: "bash",
    inputSchema: schema("command", "timeout", "workdir", "description"),
  },
  { type: "function", name: "read", inputSchema: schema("filePath", "offset", "limit") },
  { type: "function", name: "write", inputSchema: schema("filePath", "content") },
  { type: "function", name: "edit", inputSchema: schema("filePath", "oldString", "newString") },
  { type: "function", name: "glob", inputSchema: schema("pattern", "path") },
  { type: "function", name: "grep", inputSchema: schema("pattern", "path", "include") },
  { type: "function", name: "task", inputSchema: schema("description", "prompt", "subagent_type") },
  {
    type: "function",
    name: "jira_search",
    description: "Search Jira",
    inputSchema: schema("query"),
  },
  { type: "function", name: "invalid", inputSchema: schema("tool") },
]);
const context = {
  tools: opencodeTools,
  reads: new Map<string, string>(),
  nonce: () => "n0",
  workspaceRoot: "/ws",
};

function sh(command: string): string {
  const run = spawnSync("sh", ["-c", command], { encoding: "utf8" });
  return run.stdout + run.stderr;
}

describe("shell wrapper", () => {
  for (
    const [command, code, output] of [
      ["printf 'a\\n  b  \\n'", 0, "a\n  b  \n"],
      ["echo out; exit 7", 7, "out\n"],
      ["printf 'no newline'", 0, "no newline"],
      ["true", 0, ""],
    ] as const
  ) {
    it(`reports exit ${code} and keeps output byte for byte for ${JSON.stringify(command)}`, () => {
      const parsed = parseWrappedOutput(sh(wrapCommand(command, "abc")), "abc");
      assert.equal(parsed.exitCode, code);
      assert.equal(parsed.output, output);
    });
  }

  it("maps the host's timeout notice to exit 124", () => {
    const parsed = parseWrappedOutput(
      "partial\n\nshell tool terminated command after exceeding timeout 1000 ms. If this…",
      "abc",
    );
    assert.equal(parsed.exitCode, 124);
    assert.equal(parsed.timedOut, true);
  });

  it("leaves timeout-shaped text from a successful command alone", () => {
    const parsed = parseWrappedOutput(
      sh(wrapCommand("echo 'Command exceeded timeout of 5 ms'", "z")),
      "z",
    );
    assert.equal(parsed.exitCode, 0);
    assert.equal(parsed.output, "Command exceeded timeout of 5 ms\n");
  });
});

describe("read output", () => {
  it("recovers raw text from OpenCode's numbered read output", () => {
    const text =
      "<path>/ws/a.ts</path>\n<type>file</type>\n<content>\n1: const a = 1;\n2:   indented\n3: \n\n(End of file - total 3 lines)\n</content>";
    assert.deepEqual(rawReadContent(text), {
      content: "const a = 1;\n  indented\n\n",
      truncated: false,
      totalLines: 3,
    });
  });

  it("passes undecorated text through", () => {
    assert.equal(rawReadContent("plain text").content, "plain text");
  });
});

describe("apply_patch conversion", () => {
  it("turns a whole-file write into a targeted update, keeping CRLF", () => {
    const patch = patchForWrite("f.txt", "a\nB\nc\n", { bom: false, text: "a\r\nb\r\nc\r\n" });
    assert.equal(
      patch,
      [
        "*** Begin Patch",
        "*** Update File: f.txt",
        "@@",
        " a\r",
        "-b\r",
        "+B\r",
        " c\r",
        "*** End Patch",
      ].join("\n"),
    );
  });

  it("adds a file whose earlier content is unknown", () => {
    assert.equal(
      patchForWrite("n.txt", "x\ny\n", undefined),
      "*** Begin Patch\n*** Add File: n.txt\n+x\n+y\n*** End Patch",
    );
  });
});

describe("exec → host tool call", () => {
  it("maps read, write, grep, glob-only grep, ls, shell, MCP and subagent requests", () => {
    const decide = (message: Parameters<typeof create<typeof ExecServerMessageSchema>>[1]) =>
      bridgeExec(create(ExecServerMessageSchema, message), context);
    const read = decide({
      id: 1,
      message: { case: "readArgs", value: { path: "/ws/a", offset: 5 } },
    });
    assert.deepEqual(read.type === "call" && [read.call.toolName, read.call.input], ["read", {
      filePath: "/ws/a",
      offset: 5,
    }]);
    const write = decide({
      id: 2,
      message: { case: "writeArgs", value: { path: "/ws/b", fileText: "hi" } },
    });
    assert.deepEqual(write.type === "call" && [write.call.toolName, write.call.input], ["write", {
      filePath: "/ws/b",
      content: "hi",
    }]);
    const grep = decide({
      id: 3,
      message: { case: "grepArgs", value: { pattern: "TODO", glob: "*.ts" } },
    });
    assert.deepEqual(grep.type === "call" && [grep.call.toolName, grep.call.input], ["grep", {
      pattern: "TODO",
      path: "/ws",
      include: "*.ts",
    }]);
    const glob = decide({
      id: 4,
      message: { case: "grepArgs", value: { pattern: "", glob: "**/*.md", path: "/ws/docs" } },
    });
    assert.deepEqual(glob.type === "call" && [glob.call.toolName, glob.call.input], ["glob", {
      pattern: "**/*.md",
      path: "/ws/docs",
    }]);
    const shell = decide({
      id: 5,
      message: {
        case: "shellStreamArgs",
        value: { command: "ls", workingDirectory: "/ws/sub", timeout: 30000, timeoutBehavior: 2 },
      },
    });
    assert.ok(shell.type === "call" && shell.call.toolName === "bash");
    assert.ok(
      shell.type === "call" && shell.call.input.workdir === "/ws/sub" &&
        !("timeout" in shell.call.input),
      "a background hand-off wait is not a kill timeout",
    );
    const mcp = decide({
      id: 6,
      message: {
        case: "mcpArgs",
        value: {
          name: "opencode-jira_search",
          toolName: "jira_search",
          args: { query: { kind: { case: "stringValue", value: "bug" } } },
        },
      },
    });
    assert.deepEqual(mcp.type === "call" && [mcp.call.toolName, mcp.call.input], ["jira_search", {
      query: "bug",
    }]);
    const task = decide({
      id: 7,
      message: {
        case: "subagentArgs",
        value: { prompt: "Review '/ws/a.ts'", subagentType: "explore" },
      },
    });
    assert.ok(
      task.type === "call" && task.call.toolName === "task" &&
        task.call.input.subagent_type === "explore",
    );
  });

  it("refuses unoffered tools and unknown exec kinds instead of guessing", () => {
    const readOnly = {
      ...context,
      tools: classifyHostTools([{
        type: "function",
        name: "read",
        inputSchema: schema("filePath"),
      }]),
    };
    const shell = bridgeExec(
      create(ExecServerMessageSchema, {
        id: 1,
        message: { case: "shellStreamArgs", value: { command: "rm -rf /" } },
      }),
      readOnly,
    );
    assert.deepEqual(shell, {
      type: "refuse",
      reason: "No host tool for shell is available in this session",
    });
    const unknownMcp = bridgeExec(
      create(ExecServerMessageSchema, {
        id: 2,
        message: { case: "mcpArgs", value: { toolName: "invalid" } },
      }),
      readOnly,
    );
    assert.equal(unknownMcp.type, "refuse");
    const screen = bridgeExec(
      create(ExecServerMessageSchema, { id: 3, message: { case: "recordScreenArgs", value: {} } }),
      context,
    );
    assert.equal(screen.type, "refuse");
  });

  it("never advertises the host's invalid tool or its native-equivalent tools as MCP tools", () => {
    assert.deepEqual([...opencodeTools.mcp.keys()], ["jira_search"]);
  });
});

describe("host result → exec result", () => {
  it("streams shell results as start, stdout, exit with the real status", () => {
    const frames = execResultMessages(
      { kind: "shell", command: "x", cwd: "/ws", nonce: "q", stream: true, background: false },
      { text: "boom\n\n__CURSOR_EXEC_EXIT_q=2__\n", isError: false, denied: false },
    );
    assert.deepEqual(frames.map((f) => f.case === "shellStream" ? f.value.event?.case : f.case), [
      "start",
      "stdout",
      "exit",
    ]);
    const exit = frames[2];
    assert.ok(
      exit?.case === "shellStream" && exit.value.event?.case === "exit" &&
        exit.value.event.value.code === 2,
    );
  });

  it("reports a host timeout as exit 124, aborted, and a background hand-off as exit 0", () => {
    const timeout = execResultMessages(
      {
        kind: "shell",
        command: "sleep 9",
        cwd: "/ws",
        nonce: "q",
        stream: true,
        background: false,
      },
      {
        text: "shell tool terminated command after exceeding timeout 10 ms.",
        isError: false,
        denied: false,
      },
    ).at(-1);
    assert.ok(timeout?.case === "shellStream" && timeout.value.event?.case === "exit");
    if (timeout?.case !== "shellStream" || timeout.value.event?.case !== "exit") return;
    assert.equal(timeout.value.event.value.code, 124);
    assert.equal(timeout.value.event.value.aborted, true);
    const background = execResultMessages(
      { kind: "shell", command: "server", cwd: "/ws", nonce: "q", stream: true, background: true },
      {
        text: "started background process 42\n\n__CURSOR_EXEC_EXIT_q=0__\n",
        isError: false,
        denied: false,
      },
    );
    assert.deepEqual(
      background.map((f) => f.case === "shellStream" ? f.value.event?.case : f.case),
      ["start", "stdout", "backgrounded", "exit"],
    );
  });

  it("counts a read's total_lines as Cursor's client does: newline-separated segments", () => {
    const read = (text: string) => {
      const [frame] = execResultMessages({ kind: "read", path: "/ws/notes.txt" }, {
        text,
        isError: false,
        denied: false,
      });
      assert.ok(frame?.case === "readResult" && frame.value.result?.case === "success");
      return frame.value.result.value;
    };
    const notes = read("hello from notes\n");
    assert.equal(notes.fileSize, 17n);
    assert.equal(notes.totalLines, 2);
    assert.equal(read("one\ntwo").totalLines, 2);
    assert.equal(read("").totalLines, 1);
    const numbered = read(
      "<path>/ws/a.ts</path>\n<type>file</type>\n<content>\n1: a\n2: b\n\n(End of file - total 2 lines)\n</content>",
    );
    assert.equal(numbered.output?.value, "a\nb\n");
    assert.equal(numbered.totalLines, 3);
  });

  it("answers a denied tool with a typed permission result", () => {
    const [read] = execResultMessages({ kind: "read", path: "/x" }, {
      text: "denied",
      isError: true,
      denied: true,
    });
    assert.ok(read?.case === "readResult" && read.value.result?.case === "permissionDenied");
  });

  it("parses OpenCode's grep listing into content matches", () => {
    const [grep] = execResultMessages(
      { kind: "grep", pattern: "TODO", path: "/ws", mode: "content" },
      {
        text: "Found 2 matches\n/ws/a.ts:\n  Line 3: // TODO one\n\n/ws/b.ts:\n  Line 9: TODO two",
        isError: false,
        denied: false,
      },
    );
    assert.ok(grep?.case === "grepResult" && grep.value.result?.case === "success");
    if (grep?.case !== "grepResult" || grep.value.result?.case !== "success") return;
    const union = grep.value.result.value.workspaceResults?.["/ws"]?.result;
    assert.ok(union?.case === "content");
    if (union?.case !== "content") return;
    assert.deepEqual(
      union.value.matches?.map((m) => [m.file, m.matches?.map((x) => x.lineNumber)]),
      [["/ws/a.ts", [3]], ["/ws/b.ts", [9]]],
    );
  });
});
