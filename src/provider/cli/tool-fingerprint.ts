/**
 * What the CLI backend needs from the host's tool list: a compact description for
 * routing Cursor's tool calls, and a fingerprint that changes whenever any tool's
 * name, description (which carries OpenCode's Task subagent list) or input schema
 * changes, so a resumed chat never runs on a stale tool list.
 *
 * @module
 */
import type { LanguageModelV3CallOptions, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { sha256Hex } from "../../core/bytes.ts";
import { canonicalJson, isJsonObject } from "../../cli/json.ts";
import type { HostTool } from "../../cli/tool-routing.ts";

type Tools = Readonly<LanguageModelV3CallOptions["tools"]>;

function functionTools(tools: Tools): LanguageModelV3FunctionTool[] {
  return (tools ?? [])
    .filter((tool): tool is LanguageModelV3FunctionTool => tool.type === "function")
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Describes the host's function tools for routing.
 *
 * @param tools The call's tools.
 * @returns Name, property names and required names of each function tool.
 */
export function hostToolsOf(tools: Tools): HostTool[] {
  return functionTools(tools).map((tool) => {
    const schema: unknown = tool.inputSchema;
    const properties = isJsonObject(schema) && isJsonObject(schema["properties"])
      ? Object.keys(schema["properties"])
      : [];
    const requiredList = isJsonObject(schema) ? schema["required"] : undefined;
    const required = Array.isArray(requiredList)
      ? requiredList.filter((name): name is string => typeof name === "string")
      : [];
    return { name: tool.name, properties, required };
  });
}

/**
 * Fingerprints the tool list: empty when there are no function tools, otherwise
 * the count and a hash of every tool's name, description and schema.
 *
 * @param tools The call's tools.
 * @returns The fingerprint.
 *
 * @example
 * ```ts
 * import { toolFingerprint } from "./tool-fingerprint.ts";
 *
 * const task = (agents: string) => ({
 *   type: "function" as const,
 *   name: "task",
 *   description: `Launch a subagent. Available agents: ${agents}`,
 *   inputSchema: { type: "object" as const, properties: {} },
 * });
 * console.assert(await toolFingerprint([]) === "");
 * console.assert(await toolFingerprint([task("general")]) !== await toolFingerprint([task("general, explore")]));
 * ```
 */
export async function toolFingerprint(tools: Tools): Promise<string> {
  const list = functionTools(tools);
  if (list.length === 0) return "";
  const described = list.map((tool) => ({
    name: tool.name,
    description: tool.description ?? "",
    schema: tool.inputSchema,
  }));
  return `${list.length}:${(await sha256Hex(canonicalJson(described))).slice(0, 32)}`;
}
