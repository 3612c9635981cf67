/**
 * Turns a Cursor exec request into a call of the host tool that does the same job,
 * limited to the tools offered in this call. Anything else gets a typed refusal, never
 * the host's `invalid` tool and never a guessed success.
 *
 * @module
 */
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { JSONObject, JSONValue, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { ExecServerMessage } from "../../../gen/agent/v1/exec_pb.ts";
import { hasProperty, type HostTools, propertyName } from "./host-tools.ts";
import { bridgeWriteExec, type WriteDecision } from "./files/write-bridge.ts";
import type { RawFile } from "./files/raw-file.ts";
import { wrapCommand } from "./shell/shell-wrapper.ts";
import { taskInput } from "./task-call.ts";
import { bridgeImageWrite, type ImageStaging } from "./media/image-save.ts";
import type { TaskArgs } from "../../../gen/agent/v1/tool_call_pb.ts";

/** How the host's answer is turned back into the exec result. */
export type ExecKind =
  | { readonly kind: "read"; readonly path: string }
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "delete"; readonly path: string; readonly nonce: string }
  | {
    readonly kind: "grep";
    readonly pattern: string;
    readonly path: string;
    readonly mode: string;
  }
  | { readonly kind: "glob"; readonly pattern: string; readonly path: string }
  | { readonly kind: "list"; readonly path: string }
  | {
    readonly kind: "shell";
    readonly command: string;
    readonly cwd: string;
    readonly nonce: string;
    readonly stream: boolean;
    readonly background: boolean;
  }
  | { readonly kind: "mcp" }
  | { readonly kind: "image"; readonly path: string; readonly size: number }
  | { readonly kind: "task"; readonly agentId: string };

/** A host tool call standing for an exec. */
export interface BridgedCall {
  readonly toolName: string;
  readonly input: JSONObject;
  readonly result: ExecKind;
}

/** The bridge's verdict on one exec. */
export type BridgeDecision =
  | { readonly type: "call"; readonly call: BridgedCall }
  | { readonly type: "refuse"; readonly reason: string }
  /** Answered without a host call (Cursor's own result). */
  | { readonly type: "answer"; readonly result: ExecKind; readonly text: string }
  | Extract<WriteDecision, { type: "probe" }>;

/** What the bridge knows besides the exec. */
export interface BridgeContext {
  readonly tools: HostTools;
  /** File contents read earlier in this Run, by path (for turning writes into patches). */
  readonly reads: ReadonlyMap<string, string>;
  /** Files whose real bytes were read before a write (see `write-bridge.ts`). */
  readonly files?: ReadonlyMap<string, RawFile | null | undefined>;
  /** A fresh token for markers. */
  readonly nonce: () => string;
  /** The workspace root, for relative paths. */
  readonly workspaceRoot: string;
  /** Task display arguments seen on this Run, by call id (for the model's description). */
  readonly tasks?: ReadonlyMap<string, TaskArgs>;
  /** Where generated images wait for the host's save tool (absent: binary writes are refused). */
  readonly images?: ImageStaging | undefined;
}

/**
 * Decides how one exec is run.
 *
 * @param exec The server's exec request.
 * @param context Offered host tools and Run state.
 * @returns A host tool call, or a refusal with its reason.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ExecServerMessageSchema } from "../../../gen/agent/v1/exec_pb.ts";
 * import { classifyHostTools } from "./host-tools.ts";
 * import { bridgeExec } from "./exec-to-tool-call.ts";
 *
 * const tools = classifyHostTools([{ type: "function", name: "read", inputSchema: { type: "object", properties: { filePath: { type: "string" } } } }]);
 * const exec = create(ExecServerMessageSchema, { id: 1, message: { case: "readArgs", value: { path: "/ws/a.txt" } } });
 * const decision = bridgeExec(exec, { tools, reads: new Map(), nonce: () => "n", workspaceRoot: "/ws" });
 * console.assert(decision.type === "call" && decision.call.input.filePath === "/ws/a.txt");
 * ```
 */
export function bridgeExec(exec: ExecServerMessage, context: BridgeContext): BridgeDecision {
  const m = exec.message;
  switch (m.case) {
    case "readArgs":
      return bridgeRead(m.value, context);
    case "writeArgs":
      return m.value.fileBytes.length === 0
        ? bridgeWrite(m.value.path, m.value.fileText, context)
        : bridgeBinaryWrite(m.value, context);
    case "deleteArgs":
      return bridgeDelete(m.value, context);
    case "grepArgs":
      return bridgeGrep(m.value, context);
    case "lsArgs":
      return bridgeList(m.value, context);
    case "shellArgs":
    case "shellStreamArgs":
      return bridgeShell(m.value, m.case === "shellStreamArgs", context);
    case "mcpArgs":
      return bridgeMcp(m.value, context);
    case "subagentArgs":
      return bridgeSubagent(m.value, context);
    default:
      return { type: "refuse", reason: `This client does not run "${String(m.case)}" requests` };
  }
}

/** The arguments of one exec case. */
type ArgsOf<C extends NonNullable<ExecServerMessage["message"]["case"]>> = Extract<
  ExecServerMessage["message"],
  { case: C }
>["value"];

function bridgeRead(args: ArgsOf<"readArgs">, context: BridgeContext): BridgeDecision {
  const tool = context.tools.byRole.read;
  if (!tool) return refuse("read");
  const input: JSONObject = {
    [propertyName(tool, ["filePath", "path", "file_path"])]: args.path,
  };
  if (args.offset !== undefined) input[propertyName(tool, ["offset"])] = args.offset;
  if (args.limit !== undefined) input[propertyName(tool, ["limit"])] = args.limit;
  return call(tool, input, { kind: "read", path: args.path });
}

function bridgeBinaryWrite(args: ArgsOf<"writeArgs">, context: BridgeContext): BridgeDecision {
  const image = bridgeImageWrite(args.path, args.fileBytes, context.tools, context.images);
  if (image.type === "refuse") return image;
  return {
    type: "call",
    call: {
      toolName: image.toolName,
      input: image.input,
      result: { kind: "image", path: args.path, size: image.size },
    },
  };
}

function bridgeDelete(args: ArgsOf<"deleteArgs">, context: BridgeContext): BridgeDecision {
  const tool = context.tools.byRole.shell;
  if (!tool) return refuse("delete");
  const nonce = context.nonce();
  const command = wrapCommand(`rm -- ${shellQuote(args.path)}`, nonce);
  return call(tool, shellInput(tool, command, "Delete a file", undefined), {
    kind: "delete",
    path: args.path,
    nonce,
  });
}

function bridgeList(args: ArgsOf<"lsArgs">, context: BridgeContext): BridgeDecision {
  const { list, glob } = context.tools.byRole;
  if (list) {
    return call(list, { [propertyName(list, ["path"])]: args.path }, {
      kind: "list",
      path: args.path,
    });
  }
  if (!glob) return refuse("ls");
  return call(glob, {
    [propertyName(glob, ["pattern"])]: "*",
    [propertyName(glob, ["path"])]: args.path,
  }, { kind: "list", path: args.path });
}

function bridgeShell(
  args: ArgsOf<"shellArgs" | "shellStreamArgs">,
  stream: boolean,
  context: BridgeContext,
): BridgeDecision {
  const tool = context.tools.byRole.shell;
  if (!tool) return refuse("shell");
  const nonce = context.nonce();
  const cwd = args.workingDirectory || context.workspaceRoot;
  const background = args.isBackground;
  const command = background
    ? `nohup sh -c ${
      shellQuote(args.command)
    } > /dev/null 2>&1 & echo "started background process $!"`
    : args.command;
  // The directory goes where the host's schema has room for it (`workdir` or `cwd`);
  // a shell tool with neither gets a `cd` before the command instead of an unknown key.
  const directoryKey = ["workdir", "cwd"].find((key) => hasProperty(tool, key));
  const inDirectory = args.workingDirectory && directoryKey === undefined
    ? `cd -- ${shellQuote(args.workingDirectory)} || exit $?\n${command}`
    : command;
  const input = shellInput(
    tool,
    wrapCommand(inDirectory, nonce),
    args.description ?? args.command.slice(0, 80),
    hostShellTimeout(args),
  );
  if (args.workingDirectory && directoryKey !== undefined) {
    input[directoryKey] = args.workingDirectory;
  }
  return call(tool, input, {
    kind: "shell",
    command: args.command,
    cwd,
    nonce,
    stream,
    background,
  });
}

/**
 * The host's hard limit for a shell command: only a cancel-on-timeout request is one;
 * Cursor's foreground wait with background hand-off is not a reason to kill the command.
 */
function hostShellTimeout(args: ArgsOf<"shellArgs" | "shellStreamArgs">): number | undefined {
  const hardLimit = args.timeoutBehavior === 1 ? args.timeout : args.hardTimeout;
  return hardLimit && hardLimit > 0 && hardLimit < 86_400_000 ? hardLimit : undefined;
}

function bridgeMcp(args: ArgsOf<"mcpArgs">, context: BridgeContext): BridgeDecision {
  const name = args.toolName || args.name;
  const tool = context.tools.mcp.get(name) ?? context.tools.all.get(name);
  if (!tool) {
    return { type: "refuse", reason: `Tool "${name}" is not available in this session` };
  }
  const input: JSONObject = {};
  for (const [key, value] of Object.entries(args.args)) {
    input[key] = toJson(ValueSchema, value) as JSONValue;
  }
  return call(tool, input, { kind: "mcp" });
}

function bridgeSubagent(args: ArgsOf<"subagentArgs">, context: BridgeContext): BridgeDecision {
  const tool = context.tools.byRole.task;
  if (!tool) return refuse("subagent");
  const input = taskInput(tool, args, context.tasks?.get(args.toolCallId));
  return call(tool, input, { kind: "task", agentId: args.toolCallId });
}

function bridgeWrite(path: string, text: string, context: BridgeContext): BridgeDecision {
  const decision = bridgeWriteExec(path, text, context);
  if (decision.type === "unchanged") {
    return { type: "answer", result: { kind: "write", path, content: decision.content }, text: "" };
  }
  if (decision.type === "call") {
    return {
      type: "call",
      call: {
        toolName: decision.toolName,
        input: decision.input,
        result: { kind: "write", path, content: decision.content },
      },
    };
  }
  return decision;
}

function bridgeGrep(
  args: {
    pattern: string;
    path?: string | undefined;
    glob?: string | undefined;
    outputMode?: string | undefined;
  },
  context: BridgeContext,
): BridgeDecision {
  const { grep, glob } = context.tools.byRole;
  const path = args.path || context.workspaceRoot;
  const globOnly = args.glob &&
    (args.pattern === "" || args.pattern === "." || args.pattern === ".*");
  if (globOnly && glob && args.glob) {
    return call(glob, {
      [propertyName(glob, ["pattern"])]: args.glob,
      [propertyName(glob, ["path"])]: path,
    }, { kind: "glob", pattern: args.glob, path });
  }
  if (!grep) return refuse("grep");
  const input: JSONObject = {
    [propertyName(grep, ["pattern"])]: args.pattern,
    [propertyName(grep, ["path"])]: path,
  };
  if (args.glob) input[propertyName(grep, ["include", "glob"])] = args.glob;
  return call(grep, input, {
    kind: "grep",
    pattern: args.pattern,
    path,
    mode: args.outputMode || "content",
  });
}

function shellInput(
  tool: LanguageModelV3FunctionTool,
  command: string,
  description: string,
  timeoutMs: number | undefined,
): JSONObject {
  const input: JSONObject = { [propertyName(tool, ["command", "cmd"])]: command };
  const properties = (tool.inputSchema as { properties?: Record<string, unknown> }).properties ??
    {};
  if ("description" in properties) input.description = description;
  if (timeoutMs !== undefined && "timeout" in properties) input.timeout = timeoutMs;
  return input;
}

function call(
  tool: LanguageModelV3FunctionTool,
  input: JSONObject,
  result: ExecKind,
): BridgeDecision {
  return { type: "call", call: { toolName: tool.name, input, result } };
}

function refuse(job: string): BridgeDecision {
  return { type: "refuse", reason: `No host tool for ${job} is available in this session` };
}

/** Quotes a path for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
