/**
 * What the emulated model makes of the shared directive language
 * (`../../../directives/directive-language.ts`): a plan of model steps. Only the newest user
 * message acts; reseeded or rebuilt history never does. Each tool
 * directive is one model step (the model calls the tool, waits for the result, then
 * continues); directives between `::parallel` and `::end` form one step whose tools run
 * in parallel. See docs/emulator.md for the full reference.
 *
 * ```text
 * ::shell <command>              run a shell command (shell_stream_args)
 * ::read <path>                  read a file (read_args)
 * ::write <path> <text>          edit a file: read_args then write_args (\n, \t escapes)
 * ::ls [path]                    list a directory (ls_args)
 * ::grep <pattern> [path]        search file contents (grep_args, content mode)
 * ::glob <pattern> [path]        find files (grep_args, files mode)
 * ::delete <path>                delete a file (delete_args)
 * ::mcp <tool-name> [json]       call an advertised MCP tool (mcp_args)
 * ::subagent <type> <prompt> [| <path>…]
 *                                spawn a subagent (subagent_args); attachments in the Task
 *                                display arguments
 * ::subagent-shown <type> <prompt> [| <path>…]
 *                                the same as ::subagent (kept for old scripts)
 * ::image <path> <description>   generate an image (generate_image query, then a binary write)
 * ::websearch <query>            search the web (web_search query)
 * ::ask <question> | a | b       ask the user (ask_question interaction query)
 * ::mode <target> [why]          ask to switch mode (switch_mode query)
 * ::plan <name>: <plan>          propose a plan (create_plan query)
 * ::parallel … ::end             the tools in between run in one step, in parallel
 * ::text <text>                  reply with exactly this text
 * ::think <text>                 emit this thinking text
 * ::emit <size>                  reply with <size> of text (e.g. 64kb) in 1 KiB deltas
 * ::deltas <count>               reply with <count> small text deltas
 * ::sleep <duration>             pause (heartbeats continue), e.g. 500 or 1.5s
 * ::fault <kind> [key=value…]    trigger a fault at this point (see fault-directive.ts)
 * ```
 *
 * @module
 */
import {
  DIRECTIVES,
  firstToken,
  newestUserText,
  parseDuration,
  parseSize,
  readDirectives,
  unescape,
} from "../../../directives/directive-language.ts";
import { type FaultStep, parseFault } from "./fault-directive.ts";

/**
 * A JSON value (MCP arguments).
 *
 * @example
 * ```ts
 * import type { JsonValue } from "../../../mod.ts";
 *
 * const args: JsonValue = { command: "ls", flags: ["-1"] };
 * console.assert(typeof args === "object");
 * ```
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | {
  [key: string]: JsonValue;
};

/**
 * One tool call the model makes.
 *
 * @example
 * ```ts
 * import type { ToolSpec } from "../../../mod.ts";
 *
 * const specs: ToolSpec[] = [
 *   { kind: "shell", command: "ls -1" },
 *   { kind: "write", path: "notes.txt", content: "hi" },
 *   { kind: "mcp", name: "opencode-bash", args: { command: "pwd" } },
 * ];
 * console.assert(specs.length === 3);
 * ```
 */
export type ToolSpec =
  | { readonly kind: "shell"; readonly command: string }
  | { readonly kind: "read"; readonly path: string }
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | {
    readonly kind: "edit";
    readonly path: string;
    readonly oldText: string;
    readonly newText: string;
  }
  | { readonly kind: "ls"; readonly path: string }
  | { readonly kind: "grep"; readonly pattern: string; readonly path: string }
  | { readonly kind: "glob"; readonly pattern: string; readonly path: string }
  | { readonly kind: "delete"; readonly path: string }
  | { readonly kind: "mcp"; readonly name: string; readonly args: { [key: string]: JsonValue } }
  | {
    readonly kind: "subagent";
    readonly subagentType: string;
    readonly prompt: string;
    /** Attached paths as the model wrote them. */
    readonly attachments?: readonly string[];
  }
  | { readonly kind: "image"; readonly path: string; readonly description: string }
  | { readonly kind: "websearch"; readonly query: string }
  | { readonly kind: "ask"; readonly question: string; readonly options: readonly string[] }
  | { readonly kind: "mode"; readonly target: string; readonly explanation: string }
  | { readonly kind: "plan"; readonly name: string; readonly plan: string };

/**
 * One step of a directive plan.
 *
 * @example
 * ```ts
 * import type { PlanStep } from "../../../mod.ts";
 *
 * const step: PlanStep = { kind: "tools", tools: [{ kind: "read", path: "README.md" }] };
 * console.assert(step.kind === "tools");
 * ```
 */
export type PlanStep =
  | { readonly kind: "tools"; readonly tools: readonly ToolSpec[] }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "think"; readonly text: string }
  | { readonly kind: "emit"; readonly bytes: number }
  | { readonly kind: "deltas"; readonly count: number }
  | { readonly kind: "sleep"; readonly ms: number }
  | { readonly kind: "skills" }
  | { readonly kind: "skill"; readonly name: string }
  | FaultStep;

/** Largest `::emit` accepted: 8 MiB. */
const MAX_EMIT_BYTES = 8 * 1024 * 1024;

/**
 * Parses the directives of a user message into the emulated model's plan. Only the
 * newest user message acts: a reseeded `<conversation_so_far>` block and earlier
 * `USER:` blocks are history and never run again.
 *
 * @param text The user's message.
 * @returns The plan; empty when the message has no directives. Malformed directives
 *   become `error` steps (the model says what was wrong).
 *
 * @example
 * ```ts
 * import { parseDirectives } from "../../../mod.ts";
 *
 * const plan = parseDirectives("Do it.\n::shell ls\n::parallel\n::read a\n::read b\n::end");
 * console.assert(plan.length === 2);
 * console.assert(plan[1]?.kind === "tools" && plan[1].tools.length === 2);
 * ```
 */
export function parseDirectives(text: string): PlanStep[] {
  const steps: PlanStep[] = [];
  let parallel: ToolSpec[] | undefined;
  for (const { name, argument: rest } of readDirectives(newestUserText(text).text)) {
    if (name === "parallel") {
      parallel = [];
      continue;
    }
    if (name === "end") {
      if (parallel !== undefined && parallel.length > 0) {
        steps.push({ kind: "tools", tools: parallel });
      }
      parallel = undefined;
      continue;
    }
    const step = parseLine(name, rest);
    if (parallel !== undefined && step.kind === "tools") parallel.push(...step.tools);
    else steps.push(step);
  }
  if (parallel !== undefined && parallel.length > 0) steps.push({ kind: "tools", tools: parallel });
  return steps;
}

function firstWord(text: string): [string, string] {
  const match = /^(\S*)\s*([\s\S]*)$/.exec(text);
  return [match?.[1] ?? "", match?.[2] ?? ""];
}

function tool(spec: ToolSpec): PlanStep {
  return { kind: "tools", tools: [spec] };
}

function required(name: string, value: string): string | PlanStep {
  return value === "" ? { kind: "error", message: `Directive ::${name} needs an argument` } : value;
}

function parseLine(name: string, rest: string): PlanStep {
  const arg = required(name, rest);
  switch (name) {
    case "shell":
      return typeof arg === "string" ? tool({ kind: "shell", command: arg }) : arg;
    case "read":
    case "delete":
      return typeof arg === "string" ? tool({ kind: name, path: firstToken(arg)[0] }) : arg;
    case "ls":
      return tool({ kind: "ls", path: rest === "" ? "." : firstToken(rest)[0] });
    case "write": {
      if (typeof arg !== "string") return arg;
      const [path, content] = firstToken(arg);
      return tool({ kind: "write", path, content: unescape(content) });
    }
    case "edit": {
      if (typeof arg !== "string") return arg;
      const [path, change] = firstToken(arg);
      const arrow = change.indexOf("=>");
      if (arrow === -1) {
        return { kind: "error", message: "Directive ::edit needs `<path> <old> => <new>`" };
      }
      const oldText = unescape(change.slice(0, arrow).trim());
      if (oldText === "") return { kind: "error", message: "Directive ::edit needs the old text" };
      const newText = unescape(change.slice(arrow + 2).trim());
      return tool({ kind: "edit", path, oldText, newText });
    }
    case "grep":
    case "glob": {
      if (typeof arg !== "string") return arg;
      const [pattern, path] = firstToken(arg);
      return tool({ kind: name, pattern, path: path === "" ? "." : firstToken(path)[0] });
    }
    default:
      return parseMore(name, rest, arg);
  }
}

function parseMore(name: string, rest: string, arg: string | PlanStep): PlanStep {
  switch (name) {
    case "mcp":
      return typeof arg === "string" ? parseMcp(arg) : arg;
    case "subagent":
    case "subagent-shown": {
      if (typeof arg !== "string") return arg;
      const [head = "", ...paths] = arg.split("|").map((part) => part.trim());
      const [type, prompt] = firstWord(head);
      const attachments = paths.filter((path) => path !== "");
      return tool({
        kind: "subagent",
        subagentType: type,
        prompt,
        ...(attachments.length > 0 ? { attachments } : {}),
      });
    }
    case "image": {
      if (typeof arg !== "string") return arg;
      const [path, description] = firstToken(arg);
      return description === ""
        ? { kind: "error", message: "Directive ::image needs `<path> <description>`" }
        : tool({ kind: "image", path, description });
    }
    case "websearch":
      return typeof arg === "string" ? tool({ kind: "websearch", query: arg }) : arg;
    case "skills":
      return { kind: "skills" };
    case "skill":
      return typeof arg === "string" ? { kind: "skill", name: firstToken(arg)[0] } : arg;
    case "ask": {
      if (typeof arg !== "string") return arg;
      const [question = "", ...options] = arg.split("|").map((part) => part.trim());
      return tool({ kind: "ask", question, options: options.filter((o) => o !== "") });
    }
    case "mode": {
      if (typeof arg !== "string") return arg;
      const [target, explanation] = firstWord(arg);
      return tool({ kind: "mode", target, explanation });
    }
    case "plan": {
      if (typeof arg !== "string") return arg;
      const colon = arg.indexOf(":");
      const planName = colon < 0 ? "Plan" : arg.slice(0, colon).trim();
      return tool({ kind: "plan", name: planName, plan: unescape(arg.slice(colon + 1).trim()) });
    }
    default:
      return parseOutput(name, rest, arg);
  }
}

function parseOutput(name: string, rest: string, arg: string | PlanStep): PlanStep {
  switch (name) {
    case "text":
      return { kind: "text", text: unescape(rest) };
    case "think":
      return typeof arg === "string" ? { kind: "think", text: unescape(arg) } : arg;
    case "emit": {
      const bytes = parseSize(rest);
      if (bytes === undefined || bytes > MAX_EMIT_BYTES) {
        return {
          kind: "error",
          message: `Directive ::emit needs a size up to 8mb, got ${JSON.stringify(rest)}`,
        };
      }
      return { kind: "emit", bytes };
    }
    case "deltas": {
      const count = Number(rest);
      if (!Number.isInteger(count) || count < 1 || count > 1_000_000) {
        return {
          kind: "error",
          message: `Directive ::deltas needs a count from 1 to 1000000, got ${
            JSON.stringify(rest)
          }`,
        };
      }
      return { kind: "deltas", count };
    }
    case "sleep": {
      const ms = parseDuration(rest);
      return ms === undefined
        ? {
          kind: "error",
          message: `Directive ::sleep needs a duration, got ${JSON.stringify(rest)}`,
        }
        : { kind: "sleep", ms };
    }
    case "fault":
      return parseFault(rest);
    default:
      return {
        kind: "error",
        message: DIRECTIVES[name]?.fakeCursorAgent === true
          ? `Directive ${JSON.stringify(`::${name}`)} applies only to the fake cursor-agent`
          : `Unknown emulator directive ${JSON.stringify(`::${name}`)}`,
      };
  }
}

function parseMcp(arg: string): PlanStep {
  const [toolName, json] = firstWord(arg);
  if (json === "") return tool({ kind: "mcp", name: toolName, args: {} });
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return {
        kind: "error",
        message: `Directive ::mcp arguments must be a JSON object, got ${JSON.stringify(json)}`,
      };
    }
    return tool({ kind: "mcp", name: toolName, args: value as { [key: string]: JsonValue } });
  } catch {
    return {
      kind: "error",
      message: `Directive ::mcp arguments are not valid JSON: ${JSON.stringify(json)}`,
    };
  }
}
