/**
 * A Cursor Task (subagent) as a call of the host's own `task` tool. The model's short
 * description comes from the Task's display arguments (the exec carries none); files the
 * model attached reach the child as exact, quoted paths in its prompt, so the child opens
 * them with its own permission-checked tools and no attachment bytes pass through the
 * parent. Attachments are read from the Task's display arguments (`TaskArgs.attachments`,
 * `TaskArgs` #7 in Cursor's schema); the exec has no attachments field (ADR 130).
 *
 * @module
 */
import type { JSONObject, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { SubagentArgs } from "../../../gen/agent/v1/exec_agent_pb.ts";
import type { TaskArgs } from "../../../gen/agent/v1/tool_call_pb.ts";
import { propertyName } from "./host-tools.ts";

/** Longest description taken from the prompt when Cursor showed none. */
const FALLBACK_DESCRIPTION_LENGTH = 80;

/**
 * The host `task` tool input for a Cursor subagent exec.
 *
 * @param tool The host's task tool.
 * @param args The exec's arguments.
 * @param shown The Task's display arguments with the same call id, when Cursor sent them.
 * @returns The tool input.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { SubagentArgsSchema } from "../../../gen/agent/v1/exec_agent_pb.ts";
 * import { TaskArgsSchema } from "../../../gen/agent/v1/tool_call_pb.ts";
 * import { taskInput } from "./task-call.ts";
 *
 * const tool = { type: "function" as const, name: "task", inputSchema: { type: "object" as const, properties: { description: {}, prompt: {}, subagent_type: {} } } };
 * const args = create(SubagentArgsSchema, { prompt: "Compare them", subagentType: "general" });
 * const input = taskInput(tool, args, create(TaskArgsSchema, { description: "Compare two files", attachments: ["a b.png"] }));
 * console.assert(input.description === "Compare two files");
 * console.assert(String(input.prompt).includes('"a b.png"'));
 * ```
 */
export function taskInput(
  tool: LanguageModelV3FunctionTool,
  args: SubagentArgs,
  shown: TaskArgs | undefined,
): JSONObject {
  const description = shown?.description.trim() ||
    args.prompt.split("\n")[0]?.slice(0, FALLBACK_DESCRIPTION_LENGTH) || "Subagent task";
  const attachments = taskAttachments(shown);
  return {
    [propertyName(tool, ["description"])]: description,
    [propertyName(tool, ["prompt"])]: withAttachments(args.prompt, attachments),
    [propertyName(tool, ["subagent_type", "subagentType"])]: args.subagentType || "general",
  };
}

/**
 * The attached paths of a Task, from its display arguments, in order and without repeats.
 *
 * @param shown The display arguments, if any.
 * @returns The paths exactly as the model wrote them.
 */
export function taskAttachments(shown: TaskArgs | undefined): string[] {
  const listed = shown?.attachments ?? [];
  return [...new Set(listed.filter((path) => path !== ""))];
}

/**
 * A prompt followed by its attachments as quoted paths (JSON string quoting, so spaces,
 * quotes and backslashes stay exact and unambiguous).
 *
 * @param prompt The subagent prompt.
 * @param paths The attached paths.
 * @returns The prompt the child sees.
 */
export function withAttachments(prompt: string, paths: readonly string[]): string {
  if (paths.length === 0) return prompt;
  const list = paths.map((path) => `- ${JSON.stringify(path)}`).join("\n");
  return `${prompt}\n\nAttached files (exact paths; open each with your own tools):\n${list}`;
}
