/**
 * Reading the host's history against a conversation: whether a prompt extends what the
 * Cursor conversation already holds, and the new user text to send.
 *
 * @module
 */
import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { renderHistory } from "../call/convert-prompt.ts";
import { messageDigest } from "../call/prompt-digests.ts";

/** How a prompt relates to the history a conversation holds. */
export type HistoryRelation =
  | { readonly kind: "extends"; readonly newUserText: string }
  | {
    readonly kind: "diverged";
    readonly reason:
      | "foreign-history:edited"
      | "foreign-history:foreign-assistant"
      | "foreign-history:no-new-user-message";
  };

/**
 * Decides whether `prompt` continues the conversation whose earlier prompt had the
 * given digests and whose last streamed assistant text was `assistantText`.
 *
 * @param prompt The new prompt.
 * @param held Digests of the previous prompt's messages.
 * @param assistantText The text this provider streamed last turn.
 * @returns `extends` with the new user text, or `diverged` with a reason.
 *
 * @example
 * ```ts
 * import { messageDigest } from "../call/prompt-digests.ts";
 * import { relateHistory } from "./history.ts";
 *
 * const first = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
 * const next = [...first, { role: "assistant" as const, content: [{ type: "text" as const, text: "hello" }] }, { role: "user" as const, content: [{ type: "text" as const, text: "more" }] }];
 * const relation = relateHistory(next, first.map(messageDigest), "hello");
 * console.assert(relation.kind === "extends" && relation.newUserText === "more");
 * ```
 */
export function relateHistory(
  prompt: LanguageModelV3Prompt,
  held: readonly string[],
  assistantText: string,
  interruptedText?: string,
): HistoryRelation {
  const messages = prompt.filter((m) => m.role !== "system");
  const heldMessages = held.length;
  for (let i = 0; i < heldMessages; i++) {
    const message = messages[i];
    if (message === undefined || messageDigest(message) !== held[i]) {
      return { kind: "diverged", reason: "foreign-history:edited" };
    }
  }
  const rest = messages.slice(heldMessages);
  const firstUser = rest.findIndex((m) => m.role === "user");
  if (firstUser < 0) return { kind: "diverged", reason: "foreign-history:no-new-user-message" };
  const between = rest.slice(0, firstUser);
  const assistantSeen = between.filter((m) => m.role === "assistant").map(assistantTextOf).join("");
  if (normalize(assistantSeen) !== normalize(assistantText)) {
    return { kind: "diverged", reason: "foreign-history:foreign-assistant" };
  }
  const newUserText = newTurnText(rest.slice(firstUser), interruptedText);
  if (newUserText === undefined) {
    return { kind: "diverged", reason: "foreign-history:foreign-assistant" };
  }
  return { kind: "extends", newUserText };
}

/**
 * The text of the new messages a checkpoint does not hold. Consecutive user messages are
 * joined. When an answer or a tool ran between them and it is the partial answer this
 * provider showed in a pass the host interrupted (no checkpoint holds it), everything
 * before the newest user message goes ahead as a transcript: the interrupted request, its
 * partial answer and its tool results stay in Cursor's context, and the newest message
 * alone is the request. An answer this provider never showed came from another provider:
 * `undefined` (the caller reseeds once).
 */
function newTurnText(
  messages: LanguageModelV3Prompt,
  interruptedText: string | undefined,
): string | undefined {
  let lastUser = messages.length - 1;
  while (lastUser > 0 && messages[lastUser]?.role !== "user") lastUser--;
  const earlier = messages.slice(0, lastUser);
  if (!earlier.some((m) => m.role === "assistant" || m.role === "tool")) {
    return messages.filter((m) => m.role === "user").map(userTextOf).join("\n\n");
  }
  if (!isOurInterruptedAnswer(earlier, interruptedText)) return undefined;
  const latest = messages.slice(lastUser).filter((m) => m.role === "user").map(userTextOf);
  return `${renderHistory(earlier)}\n\n${latest.join("\n\n")}`;
}

/** Whether the assistant text among `messages` is (a part of) what this provider showed. */
function isOurInterruptedAnswer(
  messages: LanguageModelV3Prompt,
  interruptedText: string | undefined,
): boolean {
  if (interruptedText === undefined) return false;
  const seen = normalize(
    messages.filter((m) => m.role === "assistant").map(assistantTextOf).join(""),
  );
  const shown = normalize(interruptedText);
  return shown.startsWith(seen) || seen.startsWith(shown);
}

function assistantTextOf(message: LanguageModelV3Message): string {
  if (message.role !== "assistant") return "";
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function userTextOf(message: LanguageModelV3Message): string {
  if (message.role !== "user") return "";
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
