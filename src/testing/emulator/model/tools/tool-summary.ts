/**
 * Turns a client's exec answers into what the emulated model quotes (one line per tool)
 * and into the typed result of the completed display `ToolCall`.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import type { ToolCall } from "../../../../gen/agent/v1/tool_call_pb.ts";
import {
  type ShellArgs,
  type ShellResult,
  ShellResultSchema,
} from "../../../../gen/agent/v1/exec_shell_pb.ts";
import type { LsDirectoryTreeNode } from "../../../../gen/agent/v1/request_context_pb.ts";
import type {
  GrepUnionResult,
  ReadResult,
  WriteResult,
} from "../../../../gen/agent/v1/exec_file_pb.ts";
import {
  EditResultSchema,
  McpToolResultSchema,
  ReadToolResultSchema,
} from "../../../../gen/agent/v1/tool_call_pb.ts";
import type { ToolSpec } from "../plan/directive-plan.ts";
import { imageLabel } from "./image-bytes.ts";
import type { InteractionResponse } from "../../../../gen/agent/v1/interaction_query_pb.ts";
import type { ExecOutcome } from "../../io/exec-replies.ts";

/** What the model makes of a tool's outcome. */
export interface OutcomeView {
  readonly ok: boolean;
  readonly summary: string;
  /** Puts the typed result into the completed display ToolCall. */
  readonly setResult?: (call: ToolCall) => void;
}

/** Longest quoted output per tool. */
const QUOTE_LIMIT = 2000;

/** A tool output as the model quotes it: trailing space dropped, long text cut. */
export function quote(text: string): string {
  const trimmed = text.replace(/\s+$/, "");
  return trimmed.length <= QUOTE_LIMIT
    ? trimmed
    : `${trimmed.slice(0, QUOTE_LIMIT)}… (${trimmed.length} chars)`;
}

/** Describes a shell exec. */
export function describeShell(args: ShellArgs, outcome: ExecOutcome): OutcomeView {
  const label = `shell \`${args.command}\``;
  const shell = outcome.shell;
  if (outcome.thrown !== undefined) {
    return { ok: false, summary: `${label} failed: ${outcome.thrown}` };
  }
  if (shell === undefined) return { ok: false, summary: `${label}: no output` };
  const result = shell.shellResult ?? synthesizedShellResult(args, outcome);
  const setResult = (call: ToolCall) => {
    if (call.tool.case === "shellToolCall") call.tool.value.result = result;
  };
  switch (shell.terminal) {
    case "exit": {
      const status = shell.aborted ? "was aborted" : `exited ${shell.exitCode ?? 0}`;
      const output = quote(
        shell.stdout + (shell.stderr === "" ? "" : `\n[stderr] ${shell.stderr}`),
      );
      return {
        ok: !shell.aborted && (shell.exitCode ?? 0) === 0,
        summary: `${label} ${status}: ${output}`,
        setResult,
      };
    }
    case "shell_result": {
      const success = result.result.case === "success" ? result.result.value : undefined;
      const summary = success === undefined
        ? `${label} ${result.result.case ?? "ended"}`
        : `${label} exited ${success.exitCode}: ${quote(success.stdout)}`;
      return { ok: success !== undefined && success.exitCode === 0, summary, setResult };
    }
    case "backgrounded":
      return {
        ok: true,
        summary: `${label} moved to the background: ${quote(shell.stdout)}`,
        setResult,
      };
    default:
      return { ok: false, summary: `${label} ${shell.terminal ?? "ended"}`, setResult };
  }
}

function synthesizedShellResult(args: ShellArgs, outcome: ExecOutcome): ShellResult {
  const shell = outcome.shell;
  const base = {
    command: args.command,
    workingDirectory: args.workingDirectory,
    exitCode: shell?.exitCode ?? 0,
    stdout: shell?.stdout ?? "",
    stderr: shell?.stderr ?? "",
  };
  if (shell?.terminal === "rejected") {
    return create(ShellResultSchema, {
      result: { case: "rejected", value: { command: args.command } },
    });
  }
  if (shell?.terminal === "permissionDenied") {
    return create(ShellResultSchema, {
      result: { case: "permissionDenied", value: { command: args.command } },
    });
  }
  const ok = base.exitCode === 0 && shell?.aborted !== true;
  // The client's own figure: the exit's run time, else the exec's (#39), else the wall time.
  const executionTime = shell?.exitExecutionTimeMs ?? outcome.localExecutionTimeMs ??
    outcome.durationMs;
  return create(ShellResultSchema, {
    result: ok
      ? {
        case: "success",
        value: {
          ...base,
          executionTime,
          ...(outcome.localExecutionTimeMs === undefined
            ? {}
            : { localExecutionTimeMs: outcome.localExecutionTimeMs }),
        },
      }
      : {
        case: "failure",
        value: { ...base, aborted: shell?.aborted ?? false, executionTime },
      },
  });
}

/** Describes the outcome of a non-shell exec. */
export function describeOutcome(
  spec: ToolSpec,
  outcome: ExecOutcome,
  edited?: string,
): OutcomeView {
  const label = specLabel(spec);
  if (outcome.thrown !== undefined) {
    return { ok: false, summary: `${label} failed: ${outcome.thrown}` };
  }
  const result = outcome.result;
  switch (result?.case) {
    case "readResult":
      return describeRead(label, result.value);
    case "writeResult":
      return describeWrite(label, spec, result.value, edited);
    case "lsResult": {
      const value = result.value;
      if (value.result.case !== "success") return failure(label, value.result);
      const names = treeNames(value.result.value.directoryTreeRoot);
      return {
        ok: true,
        summary: `${label}: ${names.join(", ") || "(empty)"}`,
        setResult: (call) => {
          if (call.tool.case === "lsToolCall") call.tool.value.result = value;
        },
      };
    }
    case "grepResult": {
      const value = result.value;
      if (value.result.case !== "success") return failure(label, value.result);
      const found = Object.values(value.result.value.workspaceResults).flatMap(grepFiles);
      return {
        ok: true,
        summary: `${label}: ${found.join(", ") || "no matches"}`,
        setResult: (call) => {
          if (call.tool.case === "grepToolCall") call.tool.value.result = value;
        },
      };
    }
    case "deleteResult": {
      const value = result.value;
      if (value.result.case !== "success") return failure(label, value.result);
      return {
        ok: true,
        summary: `${label}: deleted`,
        setResult: (call) => {
          if (call.tool.case === "deleteToolCall") call.tool.value.result = value;
        },
      };
    }
    default:
      return describeOther(label, outcome);
  }
}

function describeOther(label: string, outcome: ExecOutcome): OutcomeView {
  const result = outcome.result;
  if (result?.case === "mcpResult") {
    const value = result.value.result;
    if (value.case !== "success") return failure(label, value);
    const success = value.value;
    const text = success.content
      .map((item) =>
        item.content.case === "text"
          ? item.content.value.text
          : item.content.case === "image"
          ? imageLabel(item.content.value.data, item.content.value.mimeType)
          : `[${item.content.case ?? "content"}]`
      )
      .join("\n");
    return {
      ok: !success.isError,
      summary: `${label}: ${quote(text)}`,
      setResult: (call) => {
        if (call.tool.case !== "mcpToolCall") return;
        call.tool.value.result = create(McpToolResultSchema, {
          result: { case: "success", value: success },
        });
      },
    };
  }
  if (result?.case === "subagentResult") {
    const value = result.value.result;
    if (value.case === "success") {
      return { ok: true, summary: `${label}: ${quote(value.value.finalMessage ?? "")}` };
    }
    return failure(label, value);
  }
  return { ok: false, summary: `${label}: ${result?.case ?? "no result"}` };
}

function describeRead(label: string, read: ReadResult): OutcomeView {
  if (read.result.case !== "success") return failure(label, read.result);
  const output = read.result.value.output;
  const text = output.case === "content"
    ? output.value
    : output.case === "data"
    ? imageLabel(output.value)
    : "";
  const { path, totalLines } = read.result.value;
  const fileSize = Number(read.result.value.fileSize);
  return {
    ok: true,
    summary: `${label}: ${quote(text)}`,
    setResult: (call) => {
      if (call.tool.case !== "readToolCall") return;
      call.tool.value.result = create(ReadToolResultSchema, {
        result: {
          case: "success",
          value: { output: { case: "content", value: text }, path, totalLines, fileSize },
        },
      });
    },
  };
}

function describeWrite(
  label: string,
  spec: ToolSpec,
  write: WriteResult,
  edited = "",
): OutcomeView {
  if (write.result.case !== "success") return failure(label, write.result);
  const success = write.result.value;
  const content = spec.kind === "write" ? spec.content : spec.kind === "edit" ? edited : "";
  return {
    ok: true,
    summary: `${label}: wrote ${success.linesCreated} line(s), ${success.fileSize} bytes`,
    setResult: (call) => {
      if (call.tool.case !== "editToolCall") return;
      call.tool.value.result = create(EditResultSchema, {
        result: { case: "success", value: { path: success.path, afterFullFileContent: content } },
      });
    },
  };
}

/** A one-line label for a tool call. */
export function specLabel(spec: ToolSpec): string {
  switch (spec.kind) {
    case "shell":
      return `shell \`${spec.command}\``;
    case "grep":
    case "glob":
      return `${spec.kind} \`${spec.pattern}\``;
    case "mcp":
      return `mcp \`${spec.name}\``;
    case "subagent":
      return `subagent \`${spec.subagentType}\``;
    case "ask":
      return `ask "${spec.question}"`;
    case "mode":
      return `mode \`${spec.target}\``;
    case "plan":
      return `plan "${spec.name}"`;
    case "websearch":
      return `websearch "${spec.query}"`;
    default:
      return `${spec.kind} \`${spec.path}\``;
  }
}

function failure(
  label: string,
  result: { case: string | undefined; value?: unknown },
): OutcomeView {
  const value = result.value;
  let reason = "";
  if (typeof value === "object" && value !== null) {
    const record = value as { error?: unknown; reason?: unknown; errorMessage?: unknown };
    const text = record.error ?? record.reason ?? record.errorMessage;
    if (typeof text === "string") reason = text;
  }
  const name = (result.case ?? "no result").replace(
    /[A-Z]/g,
    (letter) => `_${letter.toLowerCase()}`,
  );
  return { ok: false, summary: `${label}: ${name}${reason === "" ? "" : ` (${reason})`}` };
}

function treeNames(root: LsDirectoryTreeNode | undefined): string[] {
  if (root === undefined) return [];
  return [
    ...root.childrenDirs.map((dir) => `${dir.absPath.split("/").pop() ?? dir.absPath}/`),
    ...root.childrenFiles.map((file) => file.name),
  ];
}

function grepFiles(result: GrepUnionResult): string[] {
  switch (result.result.case) {
    case "files":
      return result.result.value.files;
    case "content":
      return result.result.value.matches.map((match) => `${match.file} (${match.matches.length})`);
    case "count":
      return result.result.value.counts.map((count) => `${count.file} (${count.count})`);
    default:
      return [];
  }
}

/**
 * What the model makes of a mode switch or plan answer.
 *
 * @param label How the model names the call.
 * @param response The client's answer.
 * @returns The outcome.
 */
export function describeDecision(label: string, response: InteractionResponse): OutcomeView {
  const result = response.result;
  if (result.case === "switchModeRequestResponse") {
    const decision = result.value.result;
    return decision.case === "approved"
      ? { ok: true, summary: `${label}: approved` }
      : { ok: false, summary: `${label}: rejected (${decision.value?.reason ?? ""})` };
  }
  if (result.case === "createPlanRequestResponse") {
    const outcome = result.value.result;
    return outcome?.result.case === "success"
      ? {
        ok: true,
        summary: `${label}: accepted${outcome.planUri ? ` at ${outcome.planUri}` : ""}`,
      }
      : {
        ok: false,
        summary: `${label}: ${outcome?.result.case ?? "no result"} (${
          outcome?.result.value?.error ?? ""
        })`,
      };
  }
  return { ok: false, summary: `${label}: ${result.case ?? "no answer"}` };
}
