/**
 * Exec answers of the fake host: an in-memory workspace and a tiny shell (`echo`,
 * `cat`, `exit N`; anything else prints `ran: …`).
 *
 * @module
 */
import type { ExecServerMessage } from "../../../src/gen/agent/v1/exec_pb.ts";
import type { ClientInit, HostBehaviour, HostState } from "./host-types.ts";

type ExecResultInit = NonNullable<
  Extract<ClientInit["message"], { case: "execClientMessage" }>["value"]["message"]
>;
type Request = ExecServerMessage["message"];

/** An `exec_client_message` with this result. */
export function execMessage(id: number, message: ExecResultInit): ClientInit {
  return { message: { case: "execClientMessage", value: { id, message } } };
}

/** An `exec_client_control_message.stream_close`. */
export function streamClose(id: number): ClientInit {
  return {
    message: {
      case: "execClientControlMessage",
      value: { message: { case: "streamClose", value: { id } } },
    },
  };
}

/** Runs the fake shell. */
export function fakeShell(command: string, state: HostState): { stdout: string; code: number } {
  const echo = /^echo\s+(.*)$/.exec(command);
  if (echo) return { stdout: `${echo[1] ?? ""}\n`, code: 0 };
  const cat = /^cat\s+(\S+)$/.exec(command);
  if (cat) {
    const content = state.files.get(cat[1] ?? "");
    return content === undefined ? { stdout: "", code: 1 } : { stdout: content, code: 0 };
  }
  const exit = /^exit\s+(\d+)$/.exec(command);
  if (exit) return { stdout: "", code: Number(exit[1]) };
  return { stdout: `ran: ${command}\n`, code: 0 };
}

/** The reply frames for one tool exec. */
export function toolReplies(
  id: number,
  exec: ExecServerMessage,
  state: HostState,
  behaviour: HostBehaviour,
): ClientInit[] {
  const request = exec.message;
  if (behaviour.wrongResultCase === true) {
    const wrong = { result: { case: "fileNotFound" as const, value: { path: "x" } } };
    return [execMessage(id, { case: "deleteResult", value: wrong })];
  }
  if (request.case === "shellStreamArgs") {
    const { command, workingDirectory } = request.value;
    return shellReplies(id, command, workingDirectory, state, behaviour);
  }
  const result = fileResult(request, state) ?? otherResult(request);
  if (result !== undefined) return [execMessage(id, result)];
  const error = `unsupported ${request.case ?? "exec"}`;
  const thrown = { message: { case: "throw" as const, value: { id, error } } };
  return [{ message: { case: "execClientControlMessage", value: thrown } }];
}

function fileResult(request: Request, state: HostState): ExecResultInit | undefined {
  switch (request.case) {
    case "readArgs": {
      const path = request.value.path;
      const content = state.files.get(path);
      if (content === undefined) {
        return { case: "readResult", value: { result: { case: "fileNotFound", value: { path } } } };
      }
      const success = {
        path,
        output: { case: "content" as const, value: content },
        totalLines: content.split("\n").length,
        fileSize: BigInt(content.length),
      };
      return { case: "readResult", value: { result: { case: "success", value: success } } };
    }
    case "writeArgs": {
      const { path, fileText } = request.value;
      state.files.set(path, fileText);
      const success = {
        path,
        linesCreated: fileText.split("\n").length,
        fileSize: fileText.length,
      };
      return { case: "writeResult", value: { result: { case: "success", value: success } } };
    }
    case "deleteArgs": {
      const path = request.value.path;
      const result = state.files.delete(path)
        ? { case: "success" as const, value: { path } }
        : { case: "fileNotFound" as const, value: { path } };
      return { case: "deleteResult", value: { result } };
    }
    case "lsArgs":
      return lsResult(request.value.path, state);
    case "grepArgs":
      return grepResult(request.value.pattern, request.value.glob, request.value.path ?? "", state);
    default:
      return undefined;
  }
}

function lsResult(path: string, state: HostState): ExecResultInit {
  const prefix = path.endsWith("/") ? path : `${path}/`;
  const names = [...state.files.keys()]
    .filter((file) => file.startsWith(prefix))
    .map((file) => file.slice(prefix.length));
  const root = { absPath: path, childrenFiles: names.map((name) => ({ name })) };
  return {
    case: "lsResult",
    value: { result: { case: "success", value: { directoryTreeRoot: root } } },
  };
}

function grepResult(
  pattern: string,
  glob: string | undefined,
  path: string,
  state: HostState,
): ExecResultInit {
  const wanted = glob ?? pattern;
  const files = [...state.files.entries()]
    .filter(([file, content]) =>
      glob === undefined ? content.includes(wanted) : file.endsWith(wanted.replace("*", ""))
    )
    .map(([file]) => file);
  const union = { result: { case: "files" as const, value: { files, totalFiles: files.length } } };
  const success = { pattern: wanted, path, workspaceResults: { "/ws": union } };
  return { case: "grepResult", value: { result: { case: "success", value: success } } };
}

function otherResult(request: Request): ExecResultInit | undefined {
  if (request.case === "mcpArgs" && request.value.toolName === "mislabeled-image") {
    // Text bytes sent as a PNG: the emulator records tool-image-invalid.
    const data = new TextEncoder().encode("not a png");
    const image = { case: "image" as const, value: { data, mimeType: "image/png" } };
    const success = { content: [{ content: image }] };
    return { case: "mcpResult", value: { result: { case: "success", value: success } } };
  }
  if (request.case === "mcpArgs") {
    const text = { case: "text" as const, value: { text: `mcp ${request.value.toolName} ok` } };
    const success = { content: [{ content: text }] };
    return { case: "mcpResult", value: { result: { case: "success", value: success } } };
  }
  if (request.case === "subagentArgs") {
    const { subagentType, prompt } = request.value;
    const success = {
      agentId: "sub-1",
      finalMessage: `subagent ${subagentType} finished: ${prompt}`,
    };
    return { case: "subagentResult", value: { result: { case: "success", value: success } } };
  }
  return undefined;
}

function shellReplies(
  id: number,
  command: string,
  cwd: string,
  state: HostState,
  behaviour: HostBehaviour,
): ClientInit[] {
  const { stdout, code } = fakeShell(command, state);
  const outcome = { command, workingDirectory: cwd, exitCode: code, stdout };
  const shellResult = execMessage(id, {
    case: "shellResult",
    value: {
      result: code === 0
        ? { case: "success", value: outcome }
        : { case: "failure", value: outcome },
    },
  });
  if (behaviour.shellTerminal === "shell_result") return [shellResult];
  const event = (
    value: NonNullable<Extract<ExecResultInit, { case: "shellStream" }>["value"]["event"]>,
  ) => execMessage(id, { case: "shellStream", value: { event: value } });
  const replies: ClientInit[] = [event({ case: "start", value: {} })];
  if (stdout !== "") replies.push(event({ case: "stdout", value: { data: stdout } }));
  replies.push(event({ case: "exit", value: { code, cwd, localExecutionTimeMs: 175 } }));
  if (behaviour.shellTerminal === "exit+shell_result") replies.push(shellResult);
  return replies;
}
