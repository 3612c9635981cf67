/**
 * Seeding a new conversation from host history: the transcript of everything before
 * the latest user message (tool calls and results included), and re-exports of the
 * history relation helpers the planner uses.
 *
 * @module
 */
import { isToolMediaMessage } from "../tools/media/tool-media.ts";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { renderHistory } from "../call/convert-prompt.ts";

export { relateHistory } from "./history.ts";

/**
 * The text for rebuilding a conversation whose held Run is gone while tool results are
 * at the tail: the whole history (results included) and an instruction to continue
 * without repeating finished work.
 *
 * @param prompt The host prompt.
 * @returns The seed text, or `undefined` when the prompt ends with a user message.
 */
export function renderHistoryForReseed(prompt: LanguageModelV3Prompt): string | undefined {
  // OpenCode's images of those results follow them; they also travel as the Run's images.
  const media = isToolMediaMessage(prompt[prompt.length - 1]);
  const tail = media ? prompt.slice(0, -1) : prompt;
  const last = tail[tail.length - 1];
  if (last === undefined || last.role !== "tool") return undefined;
  // The media message stays in the transcript: it names the images (`[image/png attachment]`).
  const transcript = renderHistory(prompt.filter((m) => m.role !== "system"));
  return `${transcript}\n\nThe tool calls above have finished and their results are shown. Continue the task from here without repeating work that is already done.`;
}
