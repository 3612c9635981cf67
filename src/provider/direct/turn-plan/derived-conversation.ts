/**
 * Finding the conversation a call without a session id continues. The chat's derived key
 * names a conversation; the call continues it only when the prompt extends what it holds
 * (its history digests are a prefix of the prompt's and the reply after them is the one
 * this provider gave). Otherwise the call belongs to another chat with the same anchor,
 * or to an edited or regenerated copy of this one, and goes to the fork key of that point
 * ({@link forkKey}), checked the same way: each chat finds its own conversation again on
 * its next turn and none replaces another's.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import { forkKey } from "../call/derived-key.ts";
import { relateHistory } from "./history.ts";
import { promptDigests } from "../call/prompt-digests.ts";

/**
 * How many forks are followed from a chat's first key. Past them the last key examined is
 * used as it is (the call reseeds it, as an edit with a session id does).
 */
export const MAX_FORK_DEPTH = 8;

/** How a prompt stands to a stored conversation. */
export type DerivedFit =
  | { readonly kind: "continues" }
  | {
    readonly kind: "forks";
    /** How many leading messages both hold. */
    readonly shared: number;
    /** `edited` (an earlier message differs), `repeated-prompt`, or `other-reply`. */
    readonly why: "edited" | "repeated-prompt" | "other-reply";
  };

/** Where a call without a session id goes. */
export interface DerivedResolution {
  /** The conversation key. */
  readonly key: string;
  /**
   * Why the call starts a conversation of its own (`derived-fork:<why>`), when its key
   * holds none yet because the prompt left a stored conversation.
   */
  readonly forkReason: string | undefined;
}

/** What resolving reads. */
export interface DerivedLookup {
  /** The call's prompt. */
  readonly prompt: LanguageModelV3Prompt;
  /** The call brings tool results at its tail. */
  readonly hasResults: boolean;
  /** Brings a key's conversation into memory (from the snapshot store). */
  readonly restore: (key: string) => Promise<void>;
  /** The conversation a key holds in memory. */
  readonly get: (key: string) => Conversation<unknown> | undefined;
}

/**
 * Walks from the chat's derived key through its forks to the conversation the prompt
 * extends, or to the key where it starts one of its own.
 *
 * @param start The chat's derived key.
 * @param lookup The prompt and the stores.
 * @returns The key, and why the call forked when it starts a new conversation.
 *
 * @example
 * ```ts
 * import { resolveDerivedKey } from "./derived-conversation.ts";
 *
 * const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];
 * const resolved = await resolveDerivedKey("derived:abc", {
 *   prompt,
 *   hasResults: false,
 *   restore: async () => {},
 *   get: () => undefined,
 * });
 * console.assert(resolved.key === "derived:abc" && resolved.forkReason === undefined);
 * ```
 */
export async function resolveDerivedKey(
  start: string,
  lookup: DerivedLookup,
): Promise<DerivedResolution> {
  const digests = promptDigests(lookup.prompt);
  const messages = lookup.prompt.filter((m) => m.role !== "system");
  let key = start;
  let conversation = await probe(key, lookup);
  if (conversation === undefined) return { key, forkReason: undefined };
  for (let depth = 0;; depth++) {
    const fit = derivedFit(lookup.prompt, digests, conversation, lookup.hasResults);
    if (fit.kind === "continues" || depth >= MAX_FORK_DEPTH) return { key, forkReason: undefined };
    const parent = key;
    key = await forkKey(parent, digests, fit.shared, messages[fit.shared]);
    conversation = await probe(key, lookup);
    if (conversation !== undefined) continue;
    const sameReply = await sameReplyFork(parent, digests, messages, fit.shared, lookup);
    return sameReply === undefined
      ? { key, forkReason: `derived-fork:${fit.why}` }
      : { key: sameReply, forkReason: undefined };
  }
}

/** The conversation a key holds, restored from the snapshot store when it can be. */
async function probe(
  key: string,
  lookup: DerivedLookup,
): Promise<Conversation<unknown> | undefined> {
  await lookup.restore(key);
  return lookup.get(key);
}

/**
 * A chat that forked while its reply was still to come (its first prompt was the other
 * chat's, "hi" in both) holds its conversation under the reply fork of that prompt's end.
 * When its reply then equals the other chat's, the two part at a later user message, whose
 * fork key holds nothing: the reply fork of the last prompt end before that message is
 * taken when the prompt continues its conversation.
 */
async function sameReplyFork(
  parent: string,
  digests: readonly string[],
  messages: LanguageModelV3Prompt,
  shared: number,
  lookup: DerivedLookup,
): Promise<string | undefined> {
  const next = messages[shared];
  if (next === undefined || next.role === "assistant") return undefined;
  let reply = shared - 1;
  while (reply > 0 && !startsReply(messages, reply)) reply--;
  if (reply <= 0) return undefined;
  const key = await forkKey(parent, digests, reply, undefined);
  const conversation = await probe(key, lookup);
  if (conversation === undefined) return undefined;
  const fit = derivedFit(lookup.prompt, digests, conversation, lookup.hasResults);
  return fit.kind === "continues" ? key : undefined;
}

/** Whether the message at `index` is the first of an assistant reply. */
function startsReply(messages: LanguageModelV3Prompt, index: number): boolean {
  return messages[index]?.role === "assistant" && messages[index - 1]?.role !== "assistant";
}

/**
 * Whether a prompt continues a stored conversation, or where it leaves it.
 *
 * @param prompt The call's prompt.
 * @param digests Digests of its non-system messages.
 * @param conversation The stored conversation.
 * @param hasResults The prompt ends with tool results.
 * @returns `continues`, or `forks` with the shared length and why.
 */
export function derivedFit(
  prompt: LanguageModelV3Prompt,
  digests: readonly string[],
  conversation: Conversation<unknown>,
  hasResults: boolean,
): DerivedFit {
  const held = conversation.history;
  let shared = 0;
  while (shared < held.length && digests[shared] === held[shared]) shared++;
  if (shared < held.length) return { kind: "forks", shared, why: "edited" };
  if (digests.length === held.length) return { kind: "forks", shared, why: "repeated-prompt" };
  // The results of the tool calls its last pass made (a held Run here, or one gone).
  if (conversation.held !== undefined || hasResults) return { kind: "continues" };
  const relation = relateHistory(
    prompt,
    held,
    conversation.lastAssistantText,
    conversation.interruptedText,
  );
  if (relation.kind === "extends") return { kind: "continues" };
  return { kind: "forks", shared, why: "other-reply" };
}
