/**
 * Decides who runs a tool call Cursor's agent makes: the host (when it offered a tool
 * of the same purpose, with the arguments rewritten to the host's schema) or Cursor
 * itself (surfaced to the host as a provider-executed call under a `cursor_` name so
 * it can never collide with a host tool and never runs twice).
 *
 * @module
 */
import { isJsonObject, type JsonObject, type JsonValue, readString } from "./json.ts";

/** What the router needs to know about one tool the host offered. */
export interface HostTool {
  readonly name: string;
  /** Property names of the tool's input schema. */
  readonly properties: readonly string[];
  /** Required property names. */
  readonly required: readonly string[];
}

/** Where a call goes. */
export type ToolRoute =
  | { readonly kind: "host"; readonly toolName: string; readonly input: JsonObject }
  | { readonly kind: "cursor"; readonly toolName: string; readonly input: JsonObject };

/** Host tool names that serve the same purpose as a Cursor tool, most likely first. */
const HOST_NAMES: Readonly<Record<string, readonly string[]>> = {
  shell: ["bash", "shell", "terminal", "run_command"],
  read: ["read", "read_file"],
  write: ["write", "write_file"],
  edit: ["edit", "str_replace", "edit_file"],
  grep: ["grep", "search"],
  glob: ["glob", "find_files"],
  ls: ["list", "ls", "list_directory"],
  delete: ["delete", "rm", "remove"],
  updateTodos: ["todowrite", "todo_write", "todos"],
  webFetch: ["webfetch", "web_fetch", "fetch"],
};

/** Where to find a host property's value among Cursor's argument names (dotted = nested). */
const ARGUMENT_SOURCES: Readonly<Record<string, readonly string[]>> = {
  filePath: ["filePath", "path", "file_path", "targetFile", "target_file"],
  file_path: ["file_path", "filePath", "path", "targetFile"],
  path: ["path", "targetDirectory", "directory", "dir", "filePath"],
  pattern: ["pattern", "globPattern", "query", "regex"],
  include: ["include", "glob"],
  command: ["command", "cmd"],
  workdir: ["workdir", "workingDirectory", "cwd"],
  cwd: ["cwd", "workingDirectory", "workdir"],
  content: ["content", "fileText", "contents", "streamContent", "text"],
  oldString: ["oldString", "old_string", "strReplace.oldText"],
  newString: ["newString", "new_string", "strReplace.newText"],
  replaceAll: ["replaceAll", "replace_all", "strReplace.replaceAll"],
  old_string: ["old_string", "oldString", "strReplace.oldText"],
  new_string: ["new_string", "newString", "strReplace.newText"],
};

/** Prefix of tool names Cursor ran itself. */
export const CURSOR_TOOL_PREFIX = "cursor_";

/**
 * Routes one Cursor tool call.
 *
 * @param cursorName The Cursor tool name (`shell`, `read`, `semSearch`, ...).
 * @param args The call's arguments as Cursor sent them.
 * @param hostTools The tools the host offered for this call (empty: Cursor runs everything).
 * @returns A host route with the input rewritten to the host schema, or a Cursor route.
 *
 * @example
 * ```ts
 * import { routeToolCall } from "./tool-routing.ts";
 *
 * const bash = { name: "bash", properties: ["command", "description"], required: ["command", "description"] };
 * const route = routeToolCall("shell", { command: "ls" }, [bash]);
 * console.assert(route.kind === "host" && route.toolName === "bash" && route.input.command === "ls");
 * console.assert(routeToolCall("semSearch", { query: "x" }, [bash]).toolName === "cursor_semSearch");
 * ```
 */
export function routeToolCall(
  cursorName: string,
  args: JsonObject,
  hostTools: readonly HostTool[],
): ToolRoute {
  const cursorRoute: ToolRoute = {
    kind: "cursor",
    toolName: CURSOR_TOOL_PREFIX + cursorName,
    input: args,
  };
  for (const tool of candidates(cursorName, args, hostTools)) {
    const input = rewriteArguments(tool, args);
    if (input !== undefined) return { kind: "host", toolName: tool.name, input };
  }
  return cursorRoute;
}

function candidates(
  cursorName: string,
  args: JsonObject,
  hostTools: readonly HostTool[],
): HostTool[] {
  const byName = new Map(hostTools.map((tool) => [simplify(tool.name), tool]));
  const names = [cursorName, ...(HOST_NAMES[cursorName] ?? [])];
  // A whole-file edit (`streamContent`) is a write in host terms.
  if (cursorName === "edit" && typeof args["streamContent"] === "string") names.unshift("write");
  if (cursorName === "mcp") {
    const server = readString(args, "providerIdentifier");
    const tool = readString(args, "toolName");
    if (server && tool) names.unshift(`${server}_${tool}`, tool);
  }
  const found: HostTool[] = [];
  for (const name of names) {
    const tool = byName.get(simplify(name));
    if (tool && !found.includes(tool)) found.push(tool);
  }
  return found;
}

/** Builds the host input, or `undefined` when a required property has no source. */
function rewriteArguments(tool: HostTool, args: JsonObject): JsonObject | undefined {
  if (tool.properties.length === 0) return stripInternal(args);
  const input: JsonObject = {};
  for (const property of tool.properties) {
    const value = findValue(args, ARGUMENT_SOURCES[property] ?? [property]);
    if (value !== undefined) input[property] = value;
  }
  for (const property of tool.required) {
    if (input[property] !== undefined) continue;
    const filled = fallbackValue(property, input);
    if (filled === undefined) return undefined;
    input[property] = filled;
  }
  return input;
}

function findValue(args: JsonObject, paths: readonly string[]): JsonValue | undefined {
  for (const path of paths) {
    let current: JsonValue | undefined = args;
    for (const key of path.split(".")) {
      current = isJsonObject(current) ? current[key] : undefined;
    }
    if (current === undefined || current === null || current === "") continue;
    return current;
  }
  return undefined;
}

/** Values a host may require that Cursor never sends. */
function fallbackValue(property: string, input: JsonObject): JsonValue | undefined {
  if (property === "description") {
    const subject = input["command"] ?? input["filePath"] ?? input["pattern"] ?? input["path"];
    return typeof subject === "string" ? `Cursor: ${subject.slice(0, 60)}` : "Requested by Cursor";
  }
  return undefined;
}

function stripInternal(args: JsonObject): JsonObject {
  const { toolCallId: _ignored, ...rest } = args;
  return rest;
}

function simplify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}
