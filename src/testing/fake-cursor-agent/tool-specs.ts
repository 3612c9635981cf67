/**
 * Tool calls the fake emits for tool directives, in the shapes captured from real
 * CLI runs (`shellToolCall` with `command`/`workingDirectory`/`timeout`, `globToolCall`
 * with `targetDirectory`/`globPattern`, ...), each with a plausible result.
 *
 * @module
 */
import type { JsonObject } from "../../cli/json.ts";
import { isJsonObject, parseJson } from "../../cli/json.ts";
import { type Directive, firstToken, unescape } from "../directives/directive-language.ts";

/** One tool call to emit. */
export interface ToolSpec {
  /** The `tool_call` key, e.g. `shellToolCall`. */
  readonly key: string;
  readonly callId: string;
  readonly args: JsonObject;
  /** The `result` object, e.g. `{ success: { ... } }`. */
  readonly result: JsonObject;
}

/** Options that shape the calls. */
export interface ToolSpecOptions {
  /** `--force` was given (shell commands run; otherwise they come back rejected). */
  readonly force: boolean;
  /** Emit awkward call ids. */
  readonly badCallIds: boolean;
  /** Makes call ids unique across chats and turns, e.g. `call_<chat hash>_<turn>`. */
  readonly idPrefix: string;
}

type Builder = (
  argument: string,
  options: ToolSpecOptions,
) => { key: string; args: JsonObject; result: JsonObject };

const BUILDERS: Readonly<Record<string, Builder>> = {
  shell: (command, options) => {
    const result: JsonObject = options.force
      ? {
        success: {
          command,
          exitCode: 0,
          stdout: `ran: ${command}\n`,
          stderr: "",
          executionTime: 12,
        },
      }
      : {
        rejected: {
          command,
          workingDirectory: "",
          reason: "Run Everything is off",
          isReadonly: false,
        },
      };
    return {
      key: "shellToolCall",
      args: { command, workingDirectory: "", timeout: 30000, isBackground: false },
      result,
    };
  },
  read: (path) => ({
    key: "readToolCall",
    args: { path },
    result: {
      success: { content: `contents of ${path}\n`, totalLines: 1, totalChars: path.length + 13 },
    },
  }),
  write: (argument) => {
    const [path, content] = pathAndText(argument);
    return {
      key: "writeToolCall",
      args: { path, fileText: content },
      result: {
        success: { path, linesCreated: content.split("\n").length, fileSize: content.length },
      },
    };
  },
  edit: (argument) => {
    const [path, change] = pathAndText(argument);
    const [oldText, newText] = split(change, "=>");
    return {
      key: "editToolCall",
      args: { path, strReplace: { oldText, newText } },
      result: {
        success: { path, linesAdded: 1, linesRemoved: 1, diffString: `-${oldText}\n+${newText}` },
      },
    };
  },
  rewrite: (argument) => {
    const [path, content] = pathAndText(argument);
    return {
      key: "editToolCall",
      args: { path, streamContent: content },
      result: { success: { path, linesAdded: 1, linesRemoved: 0, diffString: `+${content}` } },
    };
  },
  grep: (argument) => {
    const [pattern, path] = patternAndPath(argument);
    return { key: "grepToolCall", args: { pattern, path }, result: { success: { matches: [] } } };
  },
  glob: (argument) => {
    const [pattern, path] = patternAndPath(argument);
    return {
      key: "globToolCall",
      args: { targetDirectory: path, globPattern: pattern },
      result: { success: { pattern, path, files: [], totalFiles: 0 } },
    };
  },
  ls: (path) => ({
    key: "lsToolCall",
    args: { path, ignore: [] },
    result: {
      success: { directoryTreeRoot: { absPath: path, childrenDirs: [], childrenFiles: [] } },
    },
  }),
  delete: (path) => ({ key: "deleteToolCall", args: { path }, result: { success: {} } }),
  todos: (argument) => ({
    key: "updateTodosToolCall",
    args: {
      todos: argument.split(";").map((content, index) => ({
        id: `todo-${index + 1}`,
        content: content.trim(),
        status: "TODO_STATUS_PENDING",
      })),
      merge: false,
    },
    result: { success: {} },
  }),
  mcp: (argument) => {
    const [target = "server/tool", json = "{}"] = argument.split(/\s+(.*)/s);
    const [server = "server", tool = "tool"] = target.split("/");
    return {
      key: "mcpToolCall",
      args: { name: tool, args: objectOf(json), providerIdentifier: server, toolName: tool },
      result: { success: { content: [{ text: { text: `${tool} ok` } }], isError: false } },
    };
  },
  semsearch: (query) => ({
    key: "semSearchToolCall",
    args: { query },
    result: { success: { results: [{ file: "src/a.ts", snippet: query }] } },
  }),
  webfetch: (url) => ({
    key: "webFetchToolCall",
    args: { url },
    result: { success: { content: `page ${url}` } },
  }),
  tool: (argument) => {
    const [key = "fooToolCall", json = "{}"] = argument.split(/\s+(.*)/s);
    return { key, args: objectOf(json), result: { success: { ok: true } } };
  },
};

/**
 * Builds the tool call for a directive.
 *
 * @param directive A tool directive.
 * @param index The call's position in this run (for its id).
 * @param options Force and call-id options.
 * @returns The call, or `undefined` when the directive is not a tool.
 */
export function toolSpecFor(
  directive: Directive,
  index: number,
  options: ToolSpecOptions,
): ToolSpec | undefined {
  const build = BUILDERS[directive.name];
  if (build === undefined) return undefined;
  const built = build(directive.argument, options);
  const id = `${options.idPrefix}_${directive.name}_${index}`;
  if (!options.badCallIds) return { ...built, callId: id, args: { ...built.args, toolCallId: id } };
  // Real captures show ids with a newline, and empty ids where args.toolCallId holds the id.
  const callId = index % 2 === 0 ? `\n ${id}` : "";
  return { ...built, callId, args: { ...built.args, toolCallId: id } };
}

function split(text: string, separator: string): [string, string] {
  const index = text.indexOf(separator);
  if (index === -1) return [text.trim(), ""];
  return [text.slice(0, index).trim(), text.slice(index + separator.length).trim()];
}

/** `<path> <text>`: the path (plain or JSON-quoted), then the text with escapes decoded. */
function pathAndText(argument: string): [string, string] {
  const [path, text] = firstToken(argument);
  return [path, unescape(text)];
}

/** `<pattern> [path]`, the path defaulting to the workspace. */
function patternAndPath(argument: string): [string, string] {
  const [pattern, path] = firstToken(argument);
  return [pattern, path === "" ? "." : firstToken(path)[0]];
}

function objectOf(json: string): JsonObject {
  const parsed = parseJson(json);
  return parsed.ok && isJsonObject(parsed.value) ? parsed.value : {};
}
