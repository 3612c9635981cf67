/**
 * Builds the text `cursor-agent` reads on stdin. The CLI has one prompt channel, so
 * the system prompt, the host's tools and the whole conversation go into one text
 * (the full prompt). A resumed chat already holds the history, so it gets only the
 * new messages (the incremental prompt).
 *
 * @module
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
} from "@ai-sdk/provider";
import {
  type AssistantMessage,
  assistantText,
  assistantToolCalls,
  toolInputText,
  type ToolMessage,
  toolOutputText,
  userText,
} from "./prompt-text.ts";

/** The closing line after tool results. */
export const CONTINUE_LINE =
  "CONTINUE: The tool calls above have run. Continue from their results.";

const TOOLS_INTRO =
  "HOST TOOLS: The application you work for can run the tools below. When one fits, " +
  "use your own tool of the same kind (shell for bash, read, edit, write, grep, glob, todo updates, " +
  "web fetch); the application runs it and sends the result back in the next message.";

/**
 * Builds the full prompt: system messages, the tool list, then every message.
 *
 * @param prompt The AI SDK prompt.
 * @param tools The tools offered for this call.
 * @returns The prompt text.
 *
 * @example
 * ```ts
 * import { buildFullPrompt } from "./prompt-builder.ts";
 *
 * const text = buildFullPrompt([
 *   { role: "system", content: "Be brief." },
 *   { role: "user", content: [{ type: "text", text: "Hi" }] },
 * ], []);
 * console.assert(text === "SYSTEM: Be brief.\n\nUSER: Hi");
 * ```
 */
export function buildFullPrompt(
  prompt: LanguageModelV3Prompt,
  tools: Readonly<LanguageModelV3CallOptions["tools"]>,
): string {
  const blocks: string[] = [];
  const system = prompt.filter((message) => message.role === "system");
  for (const message of system) blocks.push(`SYSTEM: ${message.content}`);
  const functionTools = (tools ?? []).filter((tool): tool is LanguageModelV3FunctionTool =>
    tool.type === "function"
  );
  if (functionTools.length > 0) blocks.push(toolsBlock(functionTools));
  const names = toolNamesOf(prompt);
  for (const message of prompt) {
    if (message.role !== "system") blocks.push(...messageBlocks(message, names));
  }
  if (prompt.at(-1)?.role === "tool") blocks.push(CONTINUE_LINE);
  return blocks.filter((block) => block !== "").join("\n\n");
}

/**
 * Builds the incremental prompt for a resumed chat: only the messages from `start` on.
 * Works when those are one user message, or the tool results that answer the
 * assistant message just before `start`.
 *
 * @param prompt The AI SDK prompt.
 * @param start Index of the first message the chat has not seen.
 * @returns The prompt text, or `undefined` when the new messages have another shape.
 *
 * @example
 * ```ts
 * import { buildIncrementalPrompt } from "./prompt-builder.ts";
 *
 * const text = buildIncrementalPrompt([
 *   { role: "user", content: [{ type: "text", text: "Hi" }] },
 *   { role: "assistant", content: [{ type: "text", text: "Hello" }] },
 *   { role: "user", content: [{ type: "text", text: " And now? " }] },
 * ], 2);
 * console.assert(text === "And now?");
 * ```
 */
export function buildIncrementalPrompt(
  prompt: LanguageModelV3Prompt,
  start: number,
): string | undefined {
  const fresh = prompt.slice(start);
  const first = fresh[0];
  if (first === undefined) return undefined;
  if (first.role === "user" && fresh.length === 1) {
    const text = userText(first).trim();
    return text === "" ? undefined : text;
  }
  if (!fresh.every((message) => message.role === "tool")) return undefined;
  const assistant = prompt[start - 1];
  if (assistant?.role !== "assistant") return undefined;
  const calls = assistantToolCalls(assistant);
  if (calls.length === 0) return undefined;
  const names = new Map(calls.map((call) => [call.toolCallId, call.toolName]));
  const blocks = [
    ["ASSISTANT:", ...calls.map((call) => toolCallLine(call.toolCallId, call.toolName, call.input))]
      .join("\n"),
    ...fresh.flatMap((
      message,
    ) => (message.role === "tool" ? toolResultBlocks(message, names) : [])),
    CONTINUE_LINE,
  ];
  return blocks.join("\n\n");
}

function toolsBlock(tools: readonly LanguageModelV3FunctionTool[]): string {
  const lines = [TOOLS_INTRO];
  for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    lines.push(`- ${tool.name}: ${(tool.description ?? "").trim()}`);
    lines.push(`  Parameters: ${JSON.stringify(tool.inputSchema)}`);
  }
  return lines.join("\n");
}

function messageBlocks(
  message: LanguageModelV3Message,
  names: ReadonlyMap<string, string>,
): string[] {
  switch (message.role) {
    case "system":
      return [`SYSTEM: ${message.content}`];
    case "user":
      return [`USER: ${userText(message)}`];
    case "assistant":
      return [assistantBlock(message)];
    case "tool":
      return toolResultBlocks(message, names);
  }
}

function assistantBlock(message: AssistantMessage): string {
  const lines = [`ASSISTANT: ${assistantText(message)}`.trimEnd()];
  for (const part of message.content) {
    if (part.type === "tool-call") {
      lines.push(toolCallLine(part.toolCallId, part.toolName, part.input));
    }
    if (part.type === "tool-result") {
      lines.push(
        `TOOL_RESULT (id: ${part.toolCallId}, name: ${part.toolName}): ${
          toolOutputText(part.output)
        }`,
      );
    }
  }
  return lines.join("\n");
}

function toolResultBlocks(message: ToolMessage, names: ReadonlyMap<string, string>): string[] {
  const blocks: string[] = [];
  for (const part of message.content) {
    if (part.type !== "tool-result") continue;
    const name = part.toolName || names.get(part.toolCallId) || "unknown";
    blocks.push(
      `TOOL_RESULT (id: ${part.toolCallId}, name: ${name}): ${toolOutputText(part.output)}`,
    );
  }
  return blocks;
}

function toolCallLine(id: string, name: string, input: unknown): string {
  return `TOOL_CALL (id: ${id}, name: ${name}): ${toolInputText(input)}`;
}

function toolNamesOf(prompt: LanguageModelV3Prompt): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of prompt) {
    if (message.role !== "assistant") continue;
    for (const call of assistantToolCalls(message)) names.set(call.toolCallId, call.toolName);
  }
  return names;
}
