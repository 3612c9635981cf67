/**
 * The fake's small directive language. Directives sit in the newest user text of the
 * prompt (or in the scenario's `directives`) as `[[name]]` or `[[name: argument]]`:
 *
 * | Directive | Effect |
 * |---|---|
 * | `[[text: …]]` | reply with exactly this text |
 * | `[[think: …]]` | stream this as thinking first |
 * | `[[shell: cmd]]`, `[[read: path]]`, `[[write: path \| content]]`, `[[edit: path \| old => new]]`, `[[rewrite: path \| content]]`, `[[grep: pattern]]`, `[[glob: pattern]]`, `[[ls: path]]`, `[[delete: path]]`, `[[todos: a; b]]`, `[[mcp: server/tool {json}]]`, `[[semsearch: query]]`, `[[webfetch: url]]`, `[[tool: fooToolCall {json}]]` | emit that tool call (started, then completed) |
 * | `[[parallel]]` | the turn's tool calls start together and complete in reverse order |
 * | `[[fail: kind]]` | `auth`, `quota`, `quota-after-output`, `model`, `network`, `oom`, `result-error`, `resume-transient`, `resume-gone` |
 * | `[[stall]]` | stream some text, then hang; `[[hang]]` hang silently; `[[hang-after-init]]` |
 * | `[[die]]` | stream some text, then die by SIGKILL |
 * | `[[malformed]]` | mix banner, broken JSON and unknown events into the stream |
 * | `[[noise]]` | CRLF endings, split and merged writes, retry/connection events |
 * | `[[lost-completion]]` | a Cursor-only tool starts, a reconnect follows, and its completion never comes |
 * | `[[bad-call-id]]` | tool call ids with whitespace, or empty with `args.toolCallId` |
 * | `[[background]]` | start a long-lived grandchild process (a "background shell") |
 * | `[[no-usage]]` | the result carries no usage |
 * | `[[slow: ms]]` | pause between events |
 *
 * Directives are read only from new user text: when the newest message of a full
 * prompt (`USER:` blocks) is followed by tool results, the run is a tool continuation
 * and only the scenario's directives apply (so a tool call is never repeated).
 *
 * @module
 */

/** One directive. */
export interface Directive {
  readonly name: string;
  readonly argument: string;
}

/** The newest user text of a prompt and whether the prompt continues after tool results. */
export interface PromptFocus {
  readonly text: string;
  readonly toolContinuation: boolean;
}

const DIRECTIVE = /\[\[([a-z][a-z-]*)(?::\s*([\s\S]*?))?\]\]/g;

/**
 * Finds the newest user text of a prompt built by this library's prompt builder (or
 * any plain prompt).
 *
 * @param prompt The prompt the fake received.
 * @returns The text directives are read from.
 */
export function focusOf(prompt: string): PromptFocus {
  const marker = prompt.startsWith("USER: ") ? 0 : prompt.lastIndexOf("\n\nUSER: ");
  if (marker === -1) {
    const toolContinuation = /^(ASSISTANT:|TOOL_RESULT)/.test(prompt.trimStart());
    return { text: toolContinuation ? "" : prompt, toolContinuation };
  }
  const after = prompt.slice(marker === 0 ? 0 : marker + 2);
  const toolContinuation = after.includes("\n\nTOOL_RESULT (");
  return { text: toolContinuation ? "" : after, toolContinuation };
}

/**
 * Parses the directives of a text.
 *
 * @param text Text that may hold directives.
 * @returns The directives, in order.
 */
export function parseDirectives(text: string): Directive[] {
  const found: Directive[] = [];
  for (const match of text.matchAll(DIRECTIVE)) {
    found.push({ name: match[1] ?? "", argument: (match[2] ?? "").trim() });
  }
  return found;
}
