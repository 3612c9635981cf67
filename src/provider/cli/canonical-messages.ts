/**
 * Canonical text forms of prompt messages, so the resume cache can tell whether a
 * new request continues exactly the history a Cursor chat has seen. An assistant
 * message compares by its visible text with all whitespace removed plus the ids of
 * the tool calls the host ran: what this backend streamed for it, whatever way the
 * host stored the parts (and whether or not it kept the calls Cursor ran itself).
 *
 * @module
 */
import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { canonicalJson } from "../../cli/json.ts";
import { assistantText, assistantToolCalls, userText } from "./prompt-text.ts";

/**
 * The canonical form of one message.
 *
 * @param message A prompt message.
 * @returns Text that is equal for messages a chat would see as equal.
 */
export function canonicalMessage(message: LanguageModelV3Message): string {
  switch (message.role) {
    case "system":
      return `system:${message.content}`;
    case "user":
      return `user:${canonicalUserText(message)}`;
    case "assistant":
      return canonicalReply({
        text: assistantText(message),
        toolCallIds: assistantToolCalls(message).map((call) => call.toolCallId),
      });
    case "tool":
      return `tool:${
        message.content
          .map((part) => (part.type === "tool-result"
            ? `${part.toolCallId}=${canonicalJson(part.output)}`
            : "")
          )
          .join("\n")
      }`;
  }
}

/**
 * The canonical form of an assistant reply this backend produced.
 *
 * @param reply The reply's text and tool call ids.
 * @returns The same text {@link canonicalMessage} gives the host's copy of it.
 *
 * @example
 * ```ts
 * import { canonicalMessage, canonicalReply } from "./canonical-messages.ts";
 *
 * const streamed = canonicalReply({ text: "Running it.It works.", toolCallIds: ["c1"] });
 * const stored = canonicalMessage({
 *   role: "assistant",
 *   content: [
 *     { type: "text", text: "Running it." },
 *     { type: "tool-call", toolCallId: "c1", toolName: "bash", input: {} },
 *     { type: "tool-call", toolCallId: "c2", toolName: "cursor_semSearch", input: {}, providerExecuted: true },
 *     { type: "text", text: "\nIt works." },
 *   ],
 * });
 * console.assert(streamed === stored);
 * ```
 */
export function canonicalReply(
  reply: { readonly text: string; readonly toolCallIds: readonly string[] },
): string {
  return `assistant:${reply.text.replace(/\s+/g, "")}\u0000${
    [...reply.toolCallIds].sort().join(",")
  }`;
}

/** A user message's text as used for anchors and prefixes (text parts joined by newlines). */
export function canonicalUserText(
  message: Extract<LanguageModelV3Message, { role: "user" }>,
): string {
  return userText(message);
}

/** Indexes of the user messages that carry text (empty ones are not "real"). */
export function realUserIndexes(prompt: LanguageModelV3Prompt): number[] {
  const indexes: number[] = [];
  prompt.forEach((message, index) => {
    if (message.role === "user" && canonicalUserText(message).trim() !== "") indexes.push(index);
  });
  return indexes;
}
