/**
 * Renders the pieces of an AI SDK prompt as plain text, shared by the prompt builder
 * (what the CLI reads) and the canonical forms (what the resume cache compares).
 *
 * @module
 */
import type {
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3ToolResultOutput,
} from "@ai-sdk/provider";

/** A user message of a prompt. */
export type UserMessage = Extract<LanguageModelV3Message, { role: "user" }>;
/** An assistant message of a prompt. */
export type AssistantMessage = Extract<LanguageModelV3Message, { role: "assistant" }>;
/** A tool message of a prompt. */
export type ToolMessage = Extract<LanguageModelV3Message, { role: "tool" }>;

/**
 * The text of a user message: text parts joined by newlines, files as placeholders
 * (the CLI's print mode takes no attachments).
 *
 * @param message A user message.
 * @returns Its text.
 */
export function userText(message: UserMessage): string {
  return message.content
    .map((part) => (part.type === "text" ? part.text : filePlaceholder(part)))
    .join("\n");
}

/** A placeholder for a file part. */
export function filePlaceholder(part: LanguageModelV3FilePart): string {
  const kind = part.mediaType.startsWith("image/") ? "image" : "file";
  const name = part.filename ?? (part.data instanceof URL ? part.data.href : part.mediaType);
  return `[${kind} attached: ${name}; not available to this model]`;
}

/** The visible text of an assistant message (reasoning left out). */
export function assistantText(message: AssistantMessage): string {
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The tool calls of an assistant message that the host ran (provider-executed ones left out). */
export function assistantToolCalls(
  message: AssistantMessage,
): { readonly toolCallId: string; readonly toolName: string; readonly input: unknown }[] {
  const calls = [];
  for (const part of message.content) {
    if (part.type === "tool-call" && part.providerExecuted !== true) {
      calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    }
  }
  return calls;
}

/**
 * A tool result's output as text.
 *
 * @param output The output of a tool-result part.
 * @returns Text for the model.
 */
export function toolOutputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case "text":
      return output.value;
    case "error-text":
      return `ERROR: ${output.value}`;
    case "json":
      return JSON.stringify(output.value);
    case "error-json":
      return `ERROR: ${JSON.stringify(output.value)}`;
    case "execution-denied":
      return `DENIED: ${output.reason ?? "the user did not allow this call"}`;
    case "content":
      return output.value
        .map((item) => (item.type === "text" ? item.text : `[${item.type} omitted]`))
        .join("\n");
  }
}

/** Tool input as JSON text (inputs arrive as objects or as JSON strings). */
export function toolInputText(input: unknown): string {
  return typeof input === "string" ? input : JSON.stringify(input ?? {});
}
