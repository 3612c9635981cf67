/**
 * How `npm start` shows a turn to a person: the answer on stdout; thinking, tool
 * activity and usage on stderr, each set apart; usage explained in words.
 *
 * @module
 */

/** Where rendered text goes. */
export interface Output {
  /** The answer (stdout). */
  answer(text: string): void;
  /** Everything around the answer (stderr). */
  note(text: string): void;
  /** Dims text on a colour terminal; identity otherwise. */
  dim(text: string): string;
}

/** The part types the renderer reads from `fullStream`. */
export type StreamPart =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-start" }
  | { type: "reasoning-delta"; text: string }
  | { type: "reasoning-end" }
  | { type: "tool-call"; toolName: string; input: unknown; providerExecuted?: boolean }
  | { type: "tool-result"; toolName: string; output: unknown }
  | { type: "tool-error"; toolName: string; error: unknown }
  | { type: string };

/** Renders stream parts, keeping the answer and the notes on separate lines. */
export class TurnRenderer {
  readonly #out: Output;
  #answerOpen = false;
  #thinking = false;

  constructor(out: Output) {
    this.#out = out;
  }

  /** Shows one stream part. */
  part(part: StreamPart): void {
    if (isPart(part, "text-delta")) {
      this.#endThinking();
      this.#answerOpen = true;
      this.#out.answer(part.text);
    } else if (isPart(part, "reasoning-start")) {
      this.#closeAnswer();
      this.#thinking = true;
      this.#out.note(this.#out.dim("thinking: "));
    } else if (isPart(part, "reasoning-delta")) {
      this.#out.note(this.#out.dim(part.text));
    } else if (isPart(part, "reasoning-end")) {
      this.#endThinking();
    } else if (isPart(part, "tool-call")) {
      this.#endThinking();
      this.#closeAnswer();
      const who = part.providerExecuted ? " (run by Cursor)" : "";
      this.#out.note(`tool: ${part.toolName} ${shortJson(withoutExitWrapper(part.input))}${who}\n`);
    } else if (isPart(part, "tool-result")) {
      this.#out.note(this.#out.dim(`  → ${firstLines(exitMarkerAsText(part.output))}\n`));
    } else if (isPart(part, "tool-error")) {
      this.#out.note(`  → failed: ${errorText(part.error)}\n`);
    }
  }

  /** Ends any open line before the closing notes. */
  finish(): void {
    this.#endThinking();
    this.#closeAnswer();
  }

  #endThinking(): void {
    if (!this.#thinking) return;
    this.#thinking = false;
    this.#out.note("\n");
  }

  #closeAnswer(): void {
    if (!this.#answerOpen) return;
    this.#answerOpen = false;
    this.#out.answer("\n");
  }
}

function isPart<T extends StreamPart["type"]>(
  part: StreamPart,
  type: T,
): part is Extract<StreamPart, { type: T }> {
  return part.type === type;
}

/** Shows a shell command without the exit-status wrapper the provider adds. */
function withoutExitWrapper(input: unknown): unknown {
  if (typeof input !== "object" || input === null || !("command" in input)) return input;
  const command = (input as { command: unknown }).command;
  const inner = typeof command === "string"
    ? /^\(\n([\s\S]*)\n\); __cursor_exit=/.exec(command)?.[1]
    : undefined;
  return inner === undefined ? input : { ...input, command: inner };
}

/** Replaces the provider's exit marker in shell output by `(exit N)`. */
function exitMarkerAsText(output: unknown): unknown {
  if (typeof output !== "string") return output;
  return output.replace(/\n*__CURSOR_EXEC_EXIT_\w+=(\d+)__\n?/, " (exit $1)");
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function firstLines(output: unknown): string {
  const text = typeof output === "string" ? output : JSON.stringify(output) ?? "";
  const lines = text.trimEnd().split("\n");
  const head = lines.slice(0, 3).join(" ⏎ ");
  const more = lines.length > 3 ? ` (+${lines.length - 3} more lines)` : "";
  return `${head.length > 160 ? `${head.slice(0, 157)}...` : head}${more}`;
}

/** The one-line text of an error. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}

/**
 * Usage in words: what this request cost (the AI SDK usage, the library default
 * `usage: "request"`: Cursor's own counters) next to how much of the context window the
 * conversation now fills (from Cursor's checkpoint, `providerMetadata.cursor.contextTokens`).
 *
 * @param usage The AI SDK usage of the whole call (all steps).
 * @param contextTokens The context occupancy, when Cursor sent it.
 * @returns Lines for stderr.
 */
export function describeUsage(
  usage: {
    inputTokens: number | undefined;
    outputTokens: number | undefined;
    inputTokenDetails?: {
      cacheReadTokens?: number | undefined;
      cacheWriteTokens?: number | undefined;
    };
    outputTokenDetails?: { reasoningTokens?: number | undefined };
  },
  contextTokens: number | undefined,
): string[] {
  return [
    `usage (Cursor's counters for this request, summed over its internal model calls): ` +
    `${usage.inputTokens ?? 0} input (${usage.inputTokenDetails?.cacheReadTokens ?? 0} read from` +
    ` and ${usage.inputTokenDetails?.cacheWriteTokens ?? 0} written to the prompt cache),` +
    ` ${usage.outputTokens ?? 0} output (${
      usage.outputTokenDetails?.reasoningTokens ?? 0
    } of it reasoning)`,
    contextTokens === undefined
      ? "context: Cursor sent no checkpoint with token details, so the occupancy is unknown"
      : `context: the conversation now fills ${contextTokens} tokens of the model's context window` +
        ` (from Cursor's checkpoint, in providerMetadata.cursor.contextTokens)`,
  ];
}
