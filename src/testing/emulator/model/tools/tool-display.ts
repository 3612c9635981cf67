/**
 * The display side of tool calls: the typed `ToolCall` variant shown in
 * `partial_tool_call` / `tool_call_started` (arguments) and `tool_call_completed`
 * (arguments plus result), and the partial-arguments JSON text the model "streams".
 *
 * @module
 */
import { create, fromJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { Value } from "@bufbuild/protobuf/wkt";
import { type ToolCall, ToolCallSchema } from "../../../../gen/agent/v1/tool_call_pb.ts";
import {
  type ShellArgs,
  ShellArgsSchema,
  TimeoutBehavior,
} from "../../../../gen/agent/v1/exec_shell_pb.ts";
import type { McpToolDefinition } from "../../../../gen/agent/v1/mcp_pb.ts";
import type { JsonValue, ToolSpec } from "../plan/directive-plan.ts";

/** Shell timeout the model asks for (ms). */
export const SHELL_TIMEOUT_MS = 30_000;
/** Hard shell timeout (ms), as captured from the service. */
export const SHELL_HARD_TIMEOUT_MS = 86_400_000;

/** Workspace-relative path → absolute path under the workspace root. */
export function absolutePath(workspace: string, path: string): string {
  if (path.startsWith("/")) return path;
  const root = workspace.endsWith("/") ? workspace.slice(0, -1) : workspace;
  return path === "." || path === "" ? root || "/" : `${root}/${path}`;
}

/** The shell arguments for a command. */
export function shellArgs(command: string, workspace: string, toolCallId: string): ShellArgs {
  return create(ShellArgsSchema, {
    command,
    workingDirectory: workspace,
    timeout: SHELL_TIMEOUT_MS,
    toolCallId,
    timeoutBehavior: TimeoutBehavior.BACKGROUND,
    hardTimeout: SHELL_HARD_TIMEOUT_MS,
    closeStdin: true,
    fileOutputThresholdBytes: 40_000n,
  });
}

/** Converts JSON arguments to protobuf `Value`s. */
export function jsonArgs(args: { readonly [key: string]: JsonValue }): { [key: string]: Value } {
  const out: { [key: string]: Value } = {};
  for (const [key, value] of Object.entries(args)) out[key] = fromJson(ValueSchema, value);
  return out;
}

/** Finds the advertised MCP tool a name refers to (`name`, `tool_name`, or `<server>-<tool>`). */
export function findMcpTool(
  tools: readonly McpToolDefinition[],
  name: string,
): McpToolDefinition | undefined {
  return tools.find((tool) => tool.name === name) ??
    tools.find((tool) => tool.toolName === name) ??
    tools.find((tool) => `${tool.providerIdentifier}-${tool.toolName}` === name);
}

/** The model-visible tool name of a spec (as it appears in transcripts). */
export function toolName(spec: ToolSpec): string {
  switch (spec.kind) {
    case "mcp":
      return spec.name;
    case "write":
    case "edit":
      return "edit";
    default:
      return spec.kind;
  }
}

/** The arguments JSON the model streams in `partial_tool_call.args_text_delta`. */
export function argsJson(spec: ToolSpec): string {
  const { kind: _kind, ...args } = spec;
  return JSON.stringify(args);
}

/**
 * The display `ToolCall` for a spec, arguments only (empty result).
 *
 * @param spec The tool call.
 * @param toolCallId Its id.
 * @param workspace The workspace root.
 * @returns The ToolCall.
 */
export function displayToolCall(spec: ToolSpec, toolCallId: string, workspace: string): ToolCall {
  return create(ToolCallSchema, { tool: displayVariant(spec, toolCallId, workspace), toolCallId });
}

/** An empty variant of the right case (for the first `partial_tool_call`). */
export function emptyToolCall(spec: ToolSpec, toolCallId: string): ToolCall {
  const call = displayToolCall(spec, toolCallId, "/");
  if (call.tool.case !== undefined && "args" in call.tool.value) call.tool.value.args = undefined;
  return call;
}

type VariantInit = NonNullable<MessageInitShape<typeof ToolCallSchema>["tool"]>;

function displayVariant(spec: ToolSpec, toolCallId: string, workspace: string): VariantInit {
  switch (spec.kind) {
    case "shell":
      return {
        case: "shellToolCall",
        value: { args: shellArgs(spec.command, workspace, toolCallId) },
      };
    case "read":
      return {
        case: "readToolCall",
        value: { args: { path: absolutePath(workspace, spec.path) } },
      };
    case "write":
      return {
        case: "editToolCall",
        value: { args: { path: absolutePath(workspace, spec.path), streamContent: spec.content } },
      };
    case "edit":
      return {
        case: "editToolCall",
        value: { args: { path: absolutePath(workspace, spec.path) } },
      };
    case "ls":
      return {
        case: "lsToolCall",
        value: { args: { path: absolutePath(workspace, spec.path), toolCallId } },
      };
    case "grep":
      return {
        case: "grepToolCall",
        value: {
          args: { pattern: spec.pattern, path: absolutePath(workspace, spec.path), toolCallId },
        },
      };
    case "glob":
      return {
        case: "globToolCall",
        value: {
          args: { targetDirectory: absolutePath(workspace, spec.path), globPattern: spec.pattern },
        },
      };
    case "delete":
      return {
        case: "deleteToolCall",
        value: { args: { path: absolutePath(workspace, spec.path), toolCallId } },
      };
    case "mcp":
      return {
        case: "mcpToolCall",
        value: { args: { name: spec.name, args: jsonArgs(spec.args), toolCallId } },
      };
    case "subagent":
      return {
        case: "taskToolCall",
        value: {
          args: {
            description: taskDescription(spec.subagentType, spec.prompt),
            prompt: spec.prompt,
            attachments: [...(spec.attachments ?? [])],
          },
        },
      };
    case "image":
      return { case: "generateImageToolCall", value: {} };
    case "websearch":
      return { case: "webSearchToolCall", value: {} };
    case "ask":
      return { case: "askQuestionToolCall", value: {} };
    case "mode":
      return { case: "switchModeToolCall", value: {} };
    case "plan":
      return { case: "createPlanToolCall", value: {} };
  }
}

/**
 * The short description the emulated model gives a Task: never the prompt's first line,
 * so a client that shows it can be told apart from one that derives its own.
 */
function taskDescription(subagentType: string, prompt: string): string {
  const words = prompt.split(/\s+/).filter((word) => word !== "").slice(0, 3).join(" ");
  return `${subagentType} task: ${words}`;
}
