/**
 * The conversation key of a call that names no session (a plain `useChat` or `streamText`
 * app sending the whole message list each time): derived from what anchors the chat — its
 * first real user message, the system prompt, the model and the workspace — as the CLI
 * backend anchors its resumed chats. Two chats with the same anchor are told apart by a
 * fork key: the parent key extended with the history both share and the first message
 * that differs. Keys are namespaced `derived:` so they never meet a host session id, and
 * carry only digests, never message text.
 *
 * @module
 */
import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { sha256Hex } from "../../../core/bytes.ts";
import { messageDigest } from "./prompt-digests.ts";
import { isToolMediaMessage } from "../tools/media/tool-media.ts";

/** The prefix of every derived key. */
const DERIVED_KEY_PREFIX = "derived:";

/** What anchors a chat besides its first real user message. */
export interface DerivedKeyFacts {
  /** The host-facing model id of the call. */
  readonly modelId: string;
  /** The call's workspace root. */
  readonly workspace: string;
  /** The call's system prompt (all system messages). */
  readonly systemPrompt: string;
}

/** Host-injected blocks that do not make a user message a real one. */
const INJECTED = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

/**
 * The first user message a person wrote: it carries text besides host-injected
 * `<system-reminder>` blocks, or an attachment. Empty messages and the host's message of
 * tool-result media do not count.
 *
 * @param prompt The call's prompt.
 * @returns The message, or `undefined` when the prompt has none.
 */
export function firstRealUserMessage(
  prompt: LanguageModelV3Prompt,
): LanguageModelV3Message | undefined {
  return prompt.find((message) => {
    if (message.role !== "user" || isToolMediaMessage(message)) return false;
    return message.content.some((part) =>
      part.type === "file" || part.text.replace(INJECTED, "").trim() !== ""
    );
  });
}

/**
 * The derived key of a chat: a hash of its first real user message, system prompt, model
 * and workspace. A change of any of them is another chat.
 *
 * @param prompt The call's prompt.
 * @param facts The call's model, workspace and system prompt.
 * @returns `derived:<32 hex digits>`, or `undefined` when the prompt has no real user message.
 *
 * @example
 * ```ts
 * import { derivedKey } from "./derived-key.ts";
 *
 * const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
 * const facts = { modelId: "composer-2", workspace: "/work/app", systemPrompt: "" };
 * const key = await derivedKey(prompt, facts);
 * console.assert(key?.startsWith("derived:") && key === await derivedKey(prompt, facts));
 * console.assert(key !== await derivedKey(prompt, { ...facts, modelId: "gpt-5" }));
 * ```
 */
export async function derivedKey(
  prompt: LanguageModelV3Prompt,
  facts: DerivedKeyFacts,
): Promise<string | undefined> {
  const first = firstRealUserMessage(prompt);
  if (first === undefined) return undefined;
  return await keyOf([
    "anchor",
    facts.workspace,
    facts.modelId,
    await sha256Hex(facts.systemPrompt),
    messageDigest(first),
  ]);
}

/**
 * The key of a chat that shares the conversation at `parent` up to a point and then
 * differs: the parent key, the digests of the shared messages and the first message that
 * differs. When that message is an assistant reply, or the prompt ends there, it counts
 * only as "a reply": the chat's later turns, whose reply at that point is known, find the
 * key it got when the reply was still to come.
 *
 * @param parent The key whose conversation the prompt does not extend.
 * @param digests Digests of the prompt's non-system messages.
 * @param shared How many of them the parent's conversation holds too.
 * @param next The prompt's first message that differs, if any.
 * @returns `derived:<32 hex digits>`.
 *
 * @example
 * ```ts
 * import { forkKey } from "./derived-key.ts";
 *
 * const edited = await forkKey("derived:abc", ["d1", "d2"], 2, { role: "user", content: [] });
 * console.assert(edited.startsWith("derived:") && edited !== "derived:abc");
 * console.assert(await forkKey("derived:abc", ["d1"], 1, undefined) ===
 *   await forkKey("derived:abc", ["d1", "d9"], 1, { role: "assistant", content: [] }));
 * ```
 */
export async function forkKey(
  parent: string,
  digests: readonly string[],
  shared: number,
  next: LanguageModelV3Message | undefined,
): Promise<string> {
  const differs = next === undefined || next.role === "assistant" ? "reply" : messageDigest(next);
  return await keyOf(["fork", parent, ...digests.slice(0, shared), differs]);
}

async function keyOf(parts: readonly string[]): Promise<string> {
  return `${DERIVED_KEY_PREFIX}${(await sha256Hex(JSON.stringify(parts))).slice(0, 32)}`;
}
