/**
 * Recognises the side requests OpenCode makes besides the conversation itself
 * (title generation, compaction and session summaries), so they never anchor or
 * touch a resumed Cursor chat.
 *
 * Current OpenCode sends a title request with the title agent's prompt ("You are a
 * title generator. ...") as the system prompt, no tools, and a first user message
 * `Generate a title for this conversation:\n` followed by the conversation's own
 * messages. Compaction in OpenCode 1.18.33 runs its summarization agent, whose system
 * prompt opens "You are a context summarization agent." (earlier releases: "You are
 * summarizing a conversation for continuation by another agent."), and the session
 * summary has its own ("Summarize what was done in this conversation.").
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { userText } from "./prompt-text.ts";

/** Why a request is a metadata request. */
export type MetadataKind = "title" | "compaction" | "summary";

const SYSTEM_MARKERS: readonly { readonly pattern: RegExp; readonly kind: MetadataKind }[] = [
  { pattern: /\byou are a title generator\b/i, kind: "title" },
  { pattern: /^\s*you are a context summarization agent\b/i, kind: "compaction" },
  { pattern: /\byou are summarizing a conversation for continuation\b/i, kind: "compaction" },
  { pattern: /\bsummarize what was done in this conversation\b/i, kind: "summary" },
];

const TITLE_OPENER = /^\s*generate a title for this conversation\b/i;

/**
 * Tells whether a request is one of the host's metadata requests.
 *
 * @param prompt The AI SDK prompt.
 * @returns The kind of metadata request, or `undefined` for a real conversation turn.
 *
 * @example
 * ```ts
 * import { detectMetadataPrompt } from "./meta-prompt.ts";
 *
 * const kind = detectMetadataPrompt([
 *   { role: "system", content: "You are a title generator. You output ONLY a thread title." },
 *   { role: "user", content: [{ type: "text", text: "Generate a title for this conversation:\n" }] },
 *   { role: "user", content: [{ type: "text", text: "fix the login bug" }] },
 * ]);
 * console.assert(kind === "title");
 * ```
 */
export function detectMetadataPrompt(prompt: LanguageModelV3Prompt): MetadataKind | undefined {
  for (const message of prompt) {
    if (message.role !== "system") continue;
    const marker = SYSTEM_MARKERS.find(({ pattern }) => pattern.test(message.content));
    if (marker) return marker.kind;
  }
  const firstUser = prompt.find((message) => message.role === "user");
  if (firstUser?.role === "user" && TITLE_OPENER.test(userText(firstUser))) return "title";
  return undefined;
}
