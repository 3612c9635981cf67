/**
 * How the emulated model carries on a rebuilt turn. A client that lost Cursor's copy of a
 * turn right after its tool results went in seeds a new conversation with the whole host
 * history as a `<conversation_so_far>` block (user message, assistant tool calls, tool
 * results) and asks the model to continue. The model reads that block the way a real
 * model would: the last user message's directives are the plan, and each assistant
 * message after it whose tool calls match the plan's next tool step (same number of
 * calls, same command or arguments), followed by one result per call, is a step already
 * done. The turn goes on from the first step not done, and its reply quotes the results
 * from the history exactly as the uninterrupted turn quoted them.
 *
 * Strict: a history that does not match the plan (another call, a missing result, an
 * answer already given, a tool whose result the history cannot be quoted from) is not
 * continued; the model answers with its echo.
 *
 * @module
 */
import { parseDirectives, type PlanStep, type ToolSpec } from "../plan/directive-plan.ts";
import { quote, specLabel } from "../tools/tool-summary.ts";

/** One tool result of the history, as the model quotes it. */
interface QuotedResult {
  readonly toolCallId: string;
  readonly ok: boolean;
  readonly summary: string;
}

/** What the model makes of a seeded history. */
export type RebuiltTurn =
  /** Not a rebuilt turn (no seeded block ending with tool results after directives). */
  | { readonly kind: "none" }
  /** A rebuilt turn the plan matches: go on after `completedSteps` tool steps. */
  | {
    readonly kind: "continue";
    /** The original user message (its directives are the plan). */
    readonly userText: string;
    readonly plan: readonly PlanStep[];
    readonly completedSteps: number;
    readonly results: readonly QuotedResult[];
  }
  /** A rebuilt turn the plan does not match, and why. */
  | { readonly kind: "unmatched"; readonly reason: string };

/** One entry of a `<conversation_so_far>` block. */
type Entry =
  | { readonly role: "user"; readonly text: string }
  | { readonly role: "assistant"; readonly calls: readonly HostCall[] }
  | { readonly role: "tool"; readonly name: string; readonly output: string };

/** A tool call as the host history shows it. */
interface HostCall {
  readonly name: string;
  readonly input: unknown;
}

const BLOCK = /<conversation_so_far>\n([\s\S]*)\n<\/conversation_so_far>/;
const ENTRY =
  /<(user|assistant)>\n([\s\S]*?)\n<\/\1>(?=\n<|$)|<tool name="([^"]*)">\n(.*)\n<\/tool>(?=\n<|$)/g;
const CALL_LINE = /^\[tool call (\S+) (.*)\]$/;
const EXIT_STATUS = /\n\[exit status (\d+)\]$/;

/**
 * Reads a seeded history: whether it is a rebuilt turn and where the plan stands.
 *
 * @param text The user message of the new conversation (the seed).
 * @returns The verdict.
 *
 * @example
 * ```ts
 * import { readRebuiltTurn } from "./continuation.ts";
 *
 * const seed = [
 *   "<conversation_so_far>",
 *   "<user>\n::shell echo hi\n::text Done.\n</user>",
 *   '<assistant>\n[tool call bash {"command":"echo hi"}]\n</assistant>',
 *   '<tool name="bash">\n{"type":"text","value":"hi\\n"}\n</tool>',
 *   "</conversation_so_far>",
 *   "",
 *   "Continue.",
 * ].join("\n");
 * const turn = readRebuiltTurn(seed);
 * console.assert(turn.kind === "continue" && turn.completedSteps === 1);
 * console.assert(turn.kind === "continue" && turn.results[0]?.summary === "shell `echo hi` exited 0: hi");
 * ```
 */
export function readRebuiltTurn(text: string): RebuiltTurn {
  const block = BLOCK.exec(text)?.[1];
  if (block === undefined) return { kind: "none" };
  const entries = readEntries(block);
  const lastUser = entries.findLastIndex((entry) => entry.role === "user");
  const user = entries[lastUser];
  if (user?.role !== "user" || entries[entries.length - 1]?.role !== "tool") {
    return { kind: "none" };
  }
  const plan = parseDirectives(user.text);
  if (plan.length === 0) return { kind: "none" };
  const toolSteps = plan.flatMap((step) => step.kind === "tools" ? [step.tools] : []);
  const done = matchSteps(entries.slice(lastUser + 1), toolSteps);
  if (typeof done === "string") return { kind: "unmatched", reason: done };
  return {
    kind: "continue",
    userText: user.text,
    plan,
    completedSteps: done.steps,
    results: done.results,
  };
}

function readEntries(block: string): Entry[] {
  const entries: Entry[] = [];
  for (const match of block.matchAll(ENTRY)) {
    const [, role, body = "", toolName, output = ""] = match;
    if (role === "user") entries.push({ role, text: body });
    else if (role === "assistant") entries.push({ role, calls: readCalls(body) });
    else entries.push({ role: "tool", name: toolName ?? "", output });
  }
  return entries;
}

function readCalls(body: string): HostCall[] {
  const calls: HostCall[] = [];
  for (const line of body.split("\n")) {
    const match = CALL_LINE.exec(line);
    if (match === null) continue;
    calls.push({ name: match[1] ?? "", input: parseJson(match[2] ?? "") });
  }
  return calls;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Matches the history after the user message against the plan's tool steps, in order. */
function matchSteps(
  after: readonly Entry[],
  toolSteps: readonly (readonly ToolSpec[])[],
): { steps: number; results: QuotedResult[] } | string {
  const results: QuotedResult[] = [];
  let steps = 0;
  let index = 0;
  while (index < after.length) {
    const assistant = after[index];
    const specs = toolSteps[steps];
    if (assistant?.role !== "assistant" || assistant.calls.length === 0) {
      return "the history holds an answer or a result without its tool call";
    }
    if (specs === undefined) return "the history holds more tool steps than the directives";
    if (specs.length !== assistant.calls.length) {
      return `tool step ${
        steps + 1
      } has ${assistant.calls.length} call(s), the directives ${specs.length}`;
    }
    for (const [position, spec] of specs.entries()) {
      const call = assistant.calls[position];
      const result = after[index + 1 + position];
      if (call === undefined || result?.role !== "tool" || result.name !== call.name) {
        return `tool step ${steps + 1} misses the result of call ${position + 1}`;
      }
      const quoted = quoteResult(spec, call, result.output);
      if (typeof quoted === "string") return quoted;
      results.push({ toolCallId: `history_${steps}_${position}`, ...quoted });
    }
    index += 1 + specs.length;
    steps++;
  }
  return { steps, results };
}

/** The summary an uninterrupted turn quoted for this result, or why it cannot be told. */
function quoteResult(
  spec: ToolSpec,
  call: HostCall,
  output: string,
): { ok: boolean; summary: string } | string {
  const value = outputText(parseJson(output));
  if (value === undefined) return `the result of ${specLabel(spec)} is not text`;
  switch (spec.kind) {
    case "shell": {
      if (!stringValues(call.input).includes(spec.command)) {
        return `the history's ${call.name} call is not ${specLabel(spec)}`;
      }
      const status = EXIT_STATUS.exec(value);
      const exitCode = status === null ? 0 : Number(status[1]);
      const stdout = status === null ? value : value.slice(0, status.index);
      return {
        ok: exitCode === 0,
        summary: `${specLabel(spec)} exited ${exitCode}: ${quote(stdout)}`,
      };
    }
    case "mcp": {
      const named = spec.name === call.name || spec.name.endsWith(`-${call.name}`);
      if (!named || canonical(spec.args) !== canonical(call.input)) {
        return `the history's ${call.name} call is not ${specLabel(spec)}`;
      }
      return { ok: true, summary: `${specLabel(spec)}: ${quote(value)}` };
    }
    default:
      return `a ${spec.kind} result cannot be quoted from host history`;
  }
}

/** The text of a host tool output (`text` or `error-text`). */
function outputText(output: unknown): string | undefined {
  if (typeof output !== "object" || output === null) return undefined;
  const { type, value } = output as { type?: unknown; value?: unknown };
  if ((type === "text" || type === "error-text") && typeof value === "string") return value;
  return undefined;
}

function stringValues(input: unknown): string[] {
  if (typeof input !== "object" || input === null) return [];
  return Object.values(input).filter((value): value is string => typeof value === "string");
}

/** JSON with sorted keys, for comparing arguments. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, inner: unknown) =>
      typeof inner === "object" && inner !== null && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
        : inner,
  );
}
