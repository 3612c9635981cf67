/**
 * The one directive language of the emulator's model and the fake `cursor-agent`. A
 * directive is a line of the newest user message that starts with `::`, a name and an
 * optional argument (`::shell ls -la`); every other line is ordinary prompt text. The
 * table {@link DIRECTIVES} lists every name, its argument and which of the two fakes acts
 * on it; docs/emulator.md shows the same table (a test keeps them equal).
 *
 * Directives act only in the newest user message of a turn. Earlier messages never
 * act, whether they come back from checkpoint blobs, from a `<conversation_so_far>`
 * block (a conversation reseeded from host history) or from earlier `USER:` blocks of a
 * full `cursor-agent` prompt; a prompt whose newest user block is followed by tool
 * results is a tool continuation and carries no directives at all.
 *
 * @module
 */

/** One directive as written: `::name argument`. */
export interface Directive {
  /** The name after `::`, lower case, e.g. `shell`. */
  readonly name: string;
  /** The rest of the line, trimmed (may be empty). */
  readonly argument: string;
}

/** One row of the directive table. */
export interface DirectiveInfo {
  /** The argument, as written after the name (empty when none). */
  readonly argument: string;
  /** What it does. */
  readonly effect: string;
  /** Whether the emulator's model acts on it. */
  readonly emulator: boolean;
  /** Whether the fake `cursor-agent` acts on it. */
  readonly fakeCursorAgent: boolean;
}

const both = (argument: string, effect: string): DirectiveInfo => ({
  argument,
  effect,
  emulator: true,
  fakeCursorAgent: true,
});
const emulatorOnly = (argument: string, effect: string): DirectiveInfo => ({
  argument,
  effect,
  emulator: true,
  fakeCursorAgent: false,
});
const fakeOnly = (argument: string, effect: string): DirectiveInfo => ({
  argument,
  effect,
  emulator: false,
  fakeCursorAgent: true,
});

/** Every directive, in the order docs/emulator.md lists them. */
export const DIRECTIVES: Readonly<Record<string, DirectiveInfo>> = {
  text: both("<text>", "reply with exactly this text (`\\n`, `\\t` escapes)"),
  think: both("<text>", "think this text first"),
  shell: both("<command>", "run a shell command"),
  read: both("<path>", "read a file"),
  write: both("<path> <text>", "write a file"),
  ls: both("[path]", "list a directory"),
  grep: both("<pattern> [path]", "search file contents"),
  glob: both("<pattern> [path]", "find files"),
  delete: both("<path>", "delete a file"),
  mcp: both(
    "<tool> [json]",
    "call an MCP tool (emulator: an advertised tool name; fake: `server/tool`)",
  ),
  parallel: both("", "the tools that follow run in one step, in parallel (until `::end`)"),
  end: both("", "closes `::parallel`"),
  subagent: emulatorOnly(
    "<type> <prompt> [| <path>…]",
    "spawn a subagent; attached paths travel in the Task display arguments",
  ),
  "subagent-shown": emulatorOnly(
    "<type> <prompt> [| <path>…]",
    "the same as `::subagent` (kept for old scripts: attached paths travel only in the Task display arguments either way)",
  ),
  image: emulatorOnly(
    "<path> <description>",
    "generate an image (approval query, then a binary write of the PNG)",
  ),
  skills: emulatorOnly("", "list the skills the request context gave (`agent_skills`)"),
  skill: emulatorOnly(
    "<name>",
    "use a skill: read its `SKILL.md` (`agent_skills`, by folder name)",
  ),
  websearch: emulatorOnly("<query>", "search the web (approval query; the server searches)"),
  ask: emulatorOnly("<question> | a | b", "ask the user (interaction query)"),
  mode: emulatorOnly("<target> [why]", "ask to switch mode"),
  plan: emulatorOnly("<name>: <plan>", "propose a plan"),
  emit: emulatorOnly("<size>", "reply with this much text (e.g. `64kb`) in 1 KiB deltas"),
  deltas: emulatorOnly("<count>", "reply with this many small text deltas"),
  sleep: emulatorOnly("<duration>", "pause (heartbeats continue), e.g. `500` or `1.5s`"),
  fault: emulatorOnly("<kind> [key=value…]", "inject a fault at this point"),
  edit: both(
    "<path> <old> => <new>",
    "edit a file (string replace; emulator: read, then a write of the changed text)",
  ),
  rewrite: fakeOnly("<path> <text>", "rewrite a whole file (streamed edit)"),
  todos: fakeOnly("<a>; <b>", "update the todo list"),
  semsearch: fakeOnly("<query>", "semantic search (a Cursor-only tool)"),
  webfetch: fakeOnly("<url>", "fetch a web page (a Cursor-only tool)"),
  tool: fakeOnly("<key> [json]", "emit any tool call, e.g. `fooToolCall {}`"),
  fail: fakeOnly(
    "<kind>",
    "`auth`, `quota`, `quota-after-output`, `model`, `network`, `oom`, `result-error`, `resume-transient`, `no-progress`, `resume-gone`, `resume-gone-unrecognised`",
  ),
  stall: fakeOnly("", "stream some text, then hang"),
  hang: fakeOnly("", "hang silently"),
  "hang-after-init": fakeOnly("", "hang after the init event"),
  die: fakeOnly("", "stream some text, then die by SIGKILL"),
  malformed: fakeOnly("", "mix a banner, broken JSON and unknown events into the stream"),
  noise: fakeOnly("", "CRLF endings, split and merged writes, retry and connection events"),
  "lost-completion": fakeOnly("", "a Cursor-only tool starts and its completion never comes"),
  "bad-call-id": fakeOnly("", "tool call ids with whitespace, or empty with `args.toolCallId`"),
  background: fakeOnly("", "start a long-lived grandchild process"),
  "no-usage": fakeOnly("", "the result carries no usage"),
  slow: fakeOnly("<ms>", "pause between events"),
};

const DIRECTIVE_LINE = /^::(\S*)\s*([\s\S]*)$/;

/**
 * Reads the directives of a text: every line that starts (after spaces) with `::name`.
 *
 * @param text The newest user message (see {@link newestUserText}).
 * @returns The directives, in order; names are not checked against the table.
 *
 * @example
 * ```ts
 * import { readDirectives } from "./directive-language.ts";
 *
 * const found = readDirectives("Look around.\n::shell ls -la\n  ::read README.md");
 * console.assert(found.length === 2 && found[0]?.argument === "ls -la");
 * ```
 */
export function readDirectives(text: string): Directive[] {
  const found: Directive[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const match = DIRECTIVE_LINE.exec(raw.trim());
    if (match === null) continue;
    found.push({ name: match[1] ?? "", argument: (match[2] ?? "").trim() });
  }
  return found;
}

/** The part of a prompt directives are read from. */
export interface NewestUserText {
  /** The newest user message's text (empty for a tool continuation). */
  readonly text: string;
  /** Whether the prompt continues after tool results (so no directive may act). */
  readonly toolContinuation: boolean;
}

const RESEEDED_HISTORY = /<conversation_so_far>[\s\S]*?<\/conversation_so_far>/g;
const CLI_USER = "USER: ";

/**
 * The newest user message of a prompt: without a reseeded `<conversation_so_far>`
 * block, and, for a full `cursor-agent` prompt, only its last `USER:` block.
 *
 * @param prompt The text the user message (or the CLI's stdin) carried.
 * @returns The text directives may act in.
 *
 * @example A reseeded conversation: only the new message counts
 * ```ts
 * import { newestUserText, readDirectives } from "./directive-language.ts";
 *
 * const prompt = "<conversation_so_far>\n<user>\n::shell rm -rf build\n</user>\n</conversation_so_far>\n\n::text done";
 * const { text } = newestUserText(prompt);
 * console.assert(readDirectives(text).map((d) => d.name).join() === "text");
 * ```
 */
export function newestUserText(prompt: string): NewestUserText {
  const text = prompt.replace(RESEEDED_HISTORY, "");
  const last = text.lastIndexOf(`\n\n${CLI_USER}`);
  const marker = last !== -1 ? last : text.startsWith(CLI_USER) ? 0 : -1;
  if (marker === -1) {
    const toolContinuation = /^(ASSISTANT:|TOOL_RESULT)/.test(text.trimStart());
    return { text: toolContinuation ? "" : text, toolContinuation };
  }
  const block = text.slice(marker === 0 ? 0 : marker + 2);
  if (block.includes("\n\nTOOL_RESULT (")) return { text: "", toolContinuation: true };
  return { text: block.slice(CLI_USER.length), toolContinuation: false };
}

/** The first token (a JSON-quoted string or a run of non-space) and the rest. */
export function firstToken(text: string): [string, string] {
  const trimmed = text.trim();
  if (trimmed.startsWith('"')) {
    const match = /^"((?:[^"\\]|\\.)*)"\s*([\s\S]*)$/.exec(trimmed);
    if (match) {
      try {
        return [JSON.parse(`"${match[1] ?? ""}"`) as string, match[2] ?? ""];
      } catch {
        // fall through to plain splitting
      }
    }
  }
  const plain = /^(\S*)\s*([\s\S]*)$/.exec(trimmed);
  return [plain?.[1] ?? "", plain?.[2] ?? ""];
}

/** Decodes `\n`, `\t` and `\\` escapes. */
export function unescape(text: string): string {
  return text.replace(
    /\\([nt\\])/g,
    (_, letter: string) => letter === "n" ? "\n" : letter === "t" ? "\t" : "\\",
  );
}

/** Parses `64kb`, `1mb`, `500b` or `500` into bytes. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m)?$/i.exec(text.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? "b").toLowerCase();
  const scale = unit.startsWith("m") ? 1024 * 1024 : unit.startsWith("k") ? 1024 : 1;
  return Math.round(Number(match[1]) * scale);
}

/** Parses `500`, `500ms` or `1.5s` into milliseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s)?$/i.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  return Math.round(match[2]?.toLowerCase() === "s" ? value * 1000 : value);
}
