/**
 * Context epochs: host instructions that change mid-conversation. The system-instructions
 * rule is frozen with the conversation's first Run (ADR 120), so an edited `AGENTS.md`, a
 * nested `AGENTS.md` a read brought in, or a changed system prompt would never reach
 * Cursor's model. Instead each instruction source is tracked per conversation and a change
 * travels once, on the next user turn, after the person's text:
 *
 * - a conversation's first Run sends the sources in its rule (or its seeded history): none
 *   goes on the tail;
 * - the first Run of a conversation restored from a snapshot reasserts every current
 *   source on the tail (the admitted sources are not persisted: the checkpoint may hold a
 *   later change than the rule);
 * - later Runs admit only new or changed sources, and name the ones that went away.
 *
 * Sources: OpenCode's `Instructions from: <path>` sections of the system prompt, the same
 * sections in the `<system-reminder>` OpenCode appends to a read's result when the read
 * brought in a nested `AGENTS.md`, and, for a system prompt that is not OpenCode's, the
 * whole prompt as one source.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";

/** One instruction source: where it came from and its text. */
interface InstructionSource {
  readonly path: string;
  readonly content: string;
}

/** The source a system prompt without OpenCode's sections counts as. */
export const WHOLE_PROMPT_SOURCE = "system-instructions";

const HEADER = /^Instructions from: (.+)$/gm;
const SECTION_END = /\n\n(?=Skills provide specialized instructions)|\n(?=Instructions from: )/;
const OPENCODE_ENV = /<env>\n\s+Working directory: /;
const REMINDER = /<system-reminder>\n?([\s\S]*?)\n?<\/system-reminder>/g;

/**
 * The instruction sources of a host prompt: the system prompt's, then those that host
 * read results brought in (a later one of the same path wins).
 *
 * @param systemPrompt The host's current system prompt.
 * @param prompt The host's prompt (tool results are searched for nested instructions).
 * @returns The sources by path, in first-seen order.
 *
 * @example
 * ```ts
 * import { instructionSources } from "./context-epoch.ts";
 *
 * const system = "<env>\n  Working directory: /p\n</env>\nInstructions from: /p/AGENTS.md\nBe brief.";
 * const sources = instructionSources(system, []);
 * console.assert(sources.get("/p/AGENTS.md") === "Be brief.");
 * ```
 */
export function instructionSources(
  systemPrompt: string,
  prompt: LanguageModelV3Prompt,
): Map<string, string> {
  const sources = new Map<string, string>();
  const sections = sectionsOf(systemPrompt);
  if (sections.length > 0 || OPENCODE_ENV.test(systemPrompt)) {
    for (const section of sections) sources.set(section.path, section.content);
  } else if (systemPrompt.trim() !== "") {
    sources.set(WHOLE_PROMPT_SOURCE, systemPrompt.trim());
  }
  for (const text of toolResultTexts(prompt)) {
    if (!text.includes("<system-reminder>")) continue;
    for (const match of text.matchAll(REMINDER)) {
      for (const section of sectionsOf(match[1] ?? "")) sources.set(section.path, section.content);
    }
  }
  return sources;
}

/** What a Run tells Cursor's model about the host's instructions. */
export interface ContextEpochDecision {
  /** The `<system-reminder>` block for the user-turn tail, when there is something to say. */
  readonly reminder: string | undefined;
  /** The sources the conversation holds once the Run is sent. */
  readonly admitted: Map<string, string>;
  /** Sources sent on the tail (new, changed, or all of them when reasserting). */
  readonly sent: readonly string[];
  /** Sources that went away. */
  readonly removed: readonly string[];
  /** Every current source was reasserted (the first Run after a restore). */
  readonly reasserted: boolean;
}

/**
 * Decides what a user-turn Run sends about the host's instructions.
 *
 * @param admitted The sources the conversation's model holds, or `undefined` when unknown
 *   (a conversation restored from a snapshot).
 * @param current The host's current sources.
 * @param cold The Run starts a new conversation (its rule or seed carries the sources).
 * @returns The decision.
 *
 * @example
 * ```ts
 * import { admitContextEpoch } from "./context-epoch.ts";
 *
 * const before = new Map([["/p/AGENTS.md", "Be brief."]]);
 * const after = new Map([["/p/AGENTS.md", "Be thorough."]]);
 * const decision = admitContextEpoch(before, after, false);
 * console.assert(decision.sent[0] === "/p/AGENTS.md" && decision.reminder?.includes("Be thorough.") === true);
 * console.assert(admitContextEpoch(after, after, false).reminder === undefined);
 * ```
 */
export function admitContextEpoch(
  admitted: ReadonlyMap<string, string> | undefined,
  current: ReadonlyMap<string, string>,
  cold: boolean,
): ContextEpochDecision {
  const next = new Map(current);
  if (cold) {
    return { reminder: undefined, admitted: next, sent: [], removed: [], reasserted: false };
  }
  const reasserted = admitted === undefined;
  const sent = [...current.keys()].filter((path) => admitted?.get(path) !== current.get(path));
  const removed = reasserted ? [] : [...admitted.keys()].filter((path) => !current.has(path));
  if (sent.length === 0 && removed.length === 0) {
    return { reminder: undefined, admitted: next, sent, removed, reasserted };
  }
  const intro = reasserted
    ? "The host's current instructions follow; they replace any earlier version of the same source."
    : "The host's instructions changed since they were last sent; these replace the earlier versions.";
  const lines = [
    intro,
    ...sent.map((path) => `\nInstructions from: ${path}\n${current.get(path) ?? ""}`),
    ...removed.map((path) => `\nInstructions from ${path} no longer apply.`),
  ];
  const reminder = `<system-reminder>\n${lines.join("\n")}\n</system-reminder>`;
  return { reminder, admitted: next, sent, removed, reasserted };
}

function sectionsOf(text: string): InstructionSource[] {
  const headers = [...text.matchAll(HEADER)];
  return headers.map((match, index) => {
    const start = (match.index ?? 0) + match[0].length + 1;
    const limit = headers[index + 1]?.index ?? text.length;
    const body = text.slice(start, limit);
    const end = SECTION_END.exec(body);
    const content = (end === null ? body : body.slice(0, end.index)).trim();
    return { path: (match[1] ?? "").trim(), content };
  });
}

function toolResultTexts(prompt: LanguageModelV3Prompt): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      if (output.type === "text") texts.push(output.value);
      else if (output.type === "content") {
        for (const item of output.value) if (item.type === "text") texts.push(item.text);
      }
    }
  }
  return texts;
}
