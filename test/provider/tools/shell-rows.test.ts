/**
 * The rules of OpenCode shell results (the spec's "Shell failures and interruption"),
 * each against OpenCode 1.18's real output shapes: the wrapper's marker, its
 * `<shell_metadata>` footer after a timeout or a stop, and its null exit.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  parseWrappedOutput,
  projectShellOutput,
  unwrapCommand,
  wrapCommand,
} from "../../../src/provider/direct/tools/shell/shell-wrapper.ts";
import { execResultMessages } from "../../../src/provider/direct/tools/exec-results.ts";
import type { ExecResultInit } from "../../../src/provider/direct/tools/exec-results.ts";
import { renderHistory } from "../../../src/provider/direct/call/convert-prompt.ts";
import { ShellAbortReason } from "../../../src/gen/agent/v1/exec_shell_pb.ts";

const TIMEOUT_FOOTER =
  "\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 2000 ms. If this command is expected to take longer and is not waiting for interactive input, retry with a larger timeout value in milliseconds.\n</shell_metadata>";
const ABORT_FOOTER = "\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>";

const shell = (stream: boolean) => ({
  kind: "shell" as const,
  command: "make test",
  cwd: "/ws",
  nonce: "q1",
  stream,
  background: false,
});
const marker = (code: number) => `\n__CURSOR_EXEC_EXIT_q1=${code}__\n`;

type StreamEvent = Extract<ExecResultInit, { case: "shellStream" }>["value"]["event"];

function events(frames: ExecResultInit[]): NonNullable<StreamEvent>[] {
  return frames.flatMap((f) => f.case === "shellStream" && f.value.event ? [f.value.event] : []);
}

function unary(frames: ExecResultInit[]) {
  const [frame] = frames;
  assert.ok(frame?.case === "shellResult");
  return frame.value.result;
}

describe("shell results (OpenCode 1.18 shapes)", () => {
  it("the wrapped command exits with its own status, so the host records the real one", () => {
    const run = spawnSync("sh", ["-c", wrapCommand("echo out; exit 3", "n1")], {
      encoding: "utf8",
    });
    assert.equal(run.status, 3);
    assert.equal(parseWrappedOutput(run.stdout, "n1").exitCode, 3);
  });

  it("keeps path-like text and whitespace byte for byte, removing only the marker", () => {
    const output = "  ./src/a.ts:3:1  \n\t/tmp/x y/\n\n";
    const parsed = parseWrappedOutput(`${output}${marker(0)}`, "q1");
    assert.equal(parsed.output, output);
    assert.equal(parsed.exitCode, 0);
  });

  it("a host timeout exits 124, aborted, with partial output and without the footer", () => {
    const text = `compiling…\nstep 1${TIMEOUT_FOOTER}`;
    const stream = events(execResultMessages(shell(true), { text, isError: false, denied: false }));
    assert.deepEqual(stream.map((e) => e.case), ["start", "stdout", "exit"]);
    assert.equal(stream[1]?.case === "stdout" ? stream[1].value.data : "", "compiling…\nstep 1");
    const exit = stream[2];
    assert.ok(exit?.case === "exit");
    assert.equal(exit.value.code, 124);
    assert.equal(exit.value.aborted, true);
    assert.equal(exit.value.abortReason, ShellAbortReason.TIMEOUT);
    const result = unary(execResultMessages(shell(false), { text, isError: false, denied: false }));
    assert.ok(result?.case === "failure");
    assert.equal(result.value.stdout, "compiling…\nstep 1");
    assert.equal(result.value.exitCode, 124);
  });

  it("a command that finished as its timeout fired keeps its status; the footer stays out", () => {
    const text = `done\n${marker(0)}${TIMEOUT_FOOTER}`;
    const parsed = parseWrappedOutput(text, "q1");
    assert.deepEqual(parsed, {
      output: "done\n",
      exitCode: 0,
      timedOut: false,
      userAborted: false,
    });
  });

  it("a stop in the host (OpenCode's null exit) stays an abort with its partial output", () => {
    const text = `partial line${ABORT_FOOTER}`;
    const stream = events(execResultMessages(shell(true), { text, isError: false, denied: false }));
    const exit = stream.at(-1);
    assert.ok(exit?.case === "exit");
    assert.equal(exit.value.aborted, true);
    assert.equal(exit.value.abortReason, ShellAbortReason.USER_ABORT);
    assert.equal(stream[1]?.case === "stdout" ? stream[1].value.data : "", "partial line");
    const result = unary(execResultMessages(shell(false), { text, isError: false, denied: false }));
    assert.ok(result?.case === "failure", "never a success");
    assert.equal(result.value.aborted, true);
    assert.equal(result.value.stdout, "partial line");
  });

  it("a failed command keeps its output on stdout beside its status", () => {
    const text = `FAIL src/a.test.ts\n${marker(1)}`;
    const result = unary(execResultMessages(shell(false), { text, isError: false, denied: false }));
    assert.ok(result?.case === "failure");
    assert.equal(result.value.stdout, "FAIL src/a.test.ts\n");
    assert.equal(result.value.stderr, "");
    assert.equal(result.value.exitCode, 1);
  });

  it("a host shell failure reaches Cursor once, as stderr, streamed and unary", () => {
    const failure = { text: "Error: shell not found: /bin/zsh", isError: true, denied: false };
    const stream = events(execResultMessages(shell(true), failure));
    assert.deepEqual(stream.map((e) => e.case), ["start", "stderr", "exit"]);
    assert.equal(stream[1]?.case === "stderr" ? stream[1].value.data : "", failure.text);
    const result = unary(execResultMessages(shell(false), failure));
    assert.ok(result?.case === "failure");
    assert.equal(result.value.stderr, failure.text);
    assert.equal(result.value.stdout, "", "not repeated on stdout");
  });

  it("a rebuilt history says a failed status once and shows no marker", () => {
    assert.equal(projectShellOutput(`FAIL\n${marker(2)}`), "FAIL\n\n[exit status 2]");
    assert.equal(projectShellOutput(`ok  \n${marker(0)}`), "ok  \n");
    assert.equal(projectShellOutput("no marker here\n"), "no marker here\n");
    const history = renderHistory([
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: "c1",
          toolName: "bash",
          output: { type: "text", value: `FAIL\n${marker(2)}` },
        }],
      },
    ]);
    assert.ok(history.includes("[exit status 2]"), history);
    assert.ok(!history.includes("__CURSOR_EXEC_EXIT_"), history);
  });

  it("a rebuilt history shows the model its own command, never the exit-status wrapper", () => {
    const command = "printf '%s\\n' \"$HOME\"\nexit 3";
    assert.equal(unwrapCommand(wrapCommand(command, "n9")), command);
    assert.equal(
      unwrapCommand("(\nls\n); echo done"),
      "(\nls\n); echo done",
      "not ours: unchanged",
    );
    const history = renderHistory([
      {
        role: "assistant",
        content: [{
          type: "tool-call",
          toolCallId: "c1",
          toolName: "bash",
          input: { command: wrapCommand("make test", "q1"), workdir: "/ws", timeout: 2000 },
        }],
      },
    ]);
    assert.ok(history.includes('"command":"make test"'), history);
    assert.ok(!history.includes("__cursor_exit"), history);
    assert.ok(!history.includes("__CURSOR_EXEC_EXIT_"), history);
    assert.ok(history.includes('"timeout":2000'), history);
  });

  it("reads the marker and the host's footer at the end of a huge output, keeping every byte", () => {
    const output = "z".repeat(3 * 1024 * 1024) + "\nlast line";
    const parsed = parseWrappedOutput(`${output}${marker(7)}${ABORT_FOOTER}`, "q1");
    assert.equal(parsed.exitCode, 7);
    assert.equal(parsed.output, output);
    const timedOut = parseWrappedOutput(`${output}${TIMEOUT_FOOTER}`, "q1");
    assert.equal(timedOut.exitCode, 124);
    assert.equal(timedOut.output, output);
    assert.equal(projectShellOutput(`${output}${marker(2)}`), `${output}\n[exit status 2]`);
  });
});
