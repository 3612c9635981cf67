/**
 * Which host tool does which job. The host (OpenCode, or any AI SDK app) offers its tools
 * in each call; Cursor's exec requests are matched to them by role, and host tools with
 * no Cursor counterpart are advertised to Cursor as MCP tools.
 *
 * @module
 */
import type { JSONSchema7 } from "@ai-sdk/provider";
import type { LanguageModelV3FunctionTool, LanguageModelV3ProviderTool } from "@ai-sdk/provider";

/** A job a Cursor exec asks for that a host tool can do. */
export type ToolRole =
  | "shell"
  | "read"
  | "write"
  | "edit"
  | "patch"
  | "glob"
  | "grep"
  | "list"
  | "task"
  | "todo";

/** The names each role answers to, in order of preference. */
const ROLE_NAMES: Readonly<Record<ToolRole, readonly string[]>> = {
  shell: ["bash", "shell"],
  read: ["read", "read_file"],
  write: ["write", "write_file"],
  edit: ["edit", "edit_file"],
  patch: ["apply_patch", "patch"],
  glob: ["glob"],
  grep: ["grep"],
  list: ["list", "ls"],
  task: ["task"],
  todo: ["todowrite"],
};

/** The host tools of one call, by role, plus the ones advertised to Cursor as MCP tools. */
export interface HostTools {
  /** The host tool for a role, if offered in this call. */
  readonly byRole: Partial<Readonly<Record<ToolRole, LanguageModelV3FunctionTool>>>;
  /** Host tools with no Cursor counterpart (plugin and MCP tools), by name. */
  readonly mcp: ReadonlyMap<string, LanguageModelV3FunctionTool>;
  /** Every offered function tool, by name. */
  readonly all: ReadonlyMap<string, LanguageModelV3FunctionTool>;
}

/** Host tools Cursor should not see as MCP tools even though they have no exec counterpart. */
const NOT_ADVERTISED = new Set([
  "invalid",
  "webfetch",
  "websearch",
  "skill",
  "question",
  "plan_exit",
  "batch",
  "lsp",
  "codesearch",
  // Commits staged image bytes by id; only this provider calls it (see image-save.ts).
  "cursor_image_save",
]);

/**
 * Sorts the call's tools by role.
 *
 * @param tools The call's `tools` option.
 * @returns The tools by role and the MCP-advertised rest.
 *
 * @example
 * ```ts
 * import { classifyHostTools } from "./host-tools.ts";
 *
 * const tools = classifyHostTools([
 *   { type: "function", name: "bash", inputSchema: { type: "object" } },
 *   { type: "function", name: "jira_search", inputSchema: { type: "object" } },
 * ]);
 * console.assert(tools.byRole.shell?.name === "bash" && tools.mcp.has("jira_search"));
 * ```
 */
export function classifyHostTools(
  tools: readonly (LanguageModelV3FunctionTool | LanguageModelV3ProviderTool)[] | undefined,
): HostTools {
  const all = new Map<string, LanguageModelV3FunctionTool>();
  for (const tool of tools ?? []) {
    if (tool.type === "function") all.set(tool.name, tool);
  }
  const byRole: Partial<Record<ToolRole, LanguageModelV3FunctionTool>> = {};
  const claimed = new Set<string>();
  for (const [role, names] of Object.entries(ROLE_NAMES) as [ToolRole, readonly string[]][]) {
    const name = names.find((n) => all.has(n));
    const tool = name === undefined ? undefined : all.get(name);
    if (tool) {
      byRole[role] = tool;
      claimed.add(tool.name);
    }
  }
  const mcp = new Map<string, LanguageModelV3FunctionTool>();
  for (const [name, tool] of all) {
    if (!claimed.has(name) && !NOT_ADVERTISED.has(name)) mcp.set(name, tool);
  }
  return { byRole, mcp, all };
}

/**
 * Picks the property name a host tool uses for a value (`filePath` vs `path` …) from its
 * JSON schema, falling back to the first candidate.
 *
 * @param tool The host tool.
 * @param candidates Property names in order of preference.
 * @returns The property name to use.
 */
export function propertyName(
  tool: LanguageModelV3FunctionTool,
  candidates: readonly string[],
): string {
  const properties = (tool.inputSchema as JSONSchema7).properties ?? {};
  return candidates.find((c) => c in properties) ?? candidates[0] ?? "value";
}

/**
 * Whether a host tool's schema has a property.
 *
 * @param tool The host tool.
 * @param name The property name.
 * @returns `true` when the schema declares it.
 */
export function hasProperty(tool: LanguageModelV3FunctionTool, name: string): boolean {
  return name in ((tool.inputSchema as JSONSchema7).properties ?? {});
}
