/**
 * Recognising the host's compaction request. OpenCode 1.18.33 compacts a session with
 * one tool-less call whose system prompt is its summarization agent's ("You are a
 * context summarization agent. …") and whose only user message carries the history
 * to summarize. That call runs on an ephemeral conversation; the session's next Run
 * rebases on the summary under a new Cursor conversation id and the same group id.
 *
 * @module
 */
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { ProviderConfig } from "../provider-config.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { HostTools } from "../tools/host-tools.ts";

/** How OpenCode's summarization agent prompt begins (taken from the 1.18.33 binary). */
const COMPACTION_SYSTEM_OPENERS: readonly string[] = [
  "You are a context summarization agent.",
];

/**
 * Whether a call is the host's compaction request: no tools, and a system prompt that
 * opens with the summarization agent's first sentence.
 *
 * @param system The call's system prompt.
 * @param tools The offered tools.
 * @returns `true` for a compaction request.
 *
 * @example
 * ```ts
 * import { isCompactionCall } from "./compaction.ts";
 *
 * const noTools = { all: new Map() };
 * console.assert(isCompactionCall("You are a context summarization agent. You are given…", noTools));
 * console.assert(!isCompactionCall("You are opencode, an interactive CLI tool", noTools));
 * ```
 */
export function isCompactionCall(system: string, tools: Pick<HostTools, "all">): boolean {
  if (tools.all.size !== 0) return false;
  const opening = system.trimStart();
  return COMPACTION_SYSTEM_OPENERS.some((opener) => opening.startsWith(opener));
}

/**
 * Marks the session's conversation as compacted: its next Run rebases on the host's
 * summary (`post-compaction-rebase`). Logs `compaction=true`.
 *
 * @param config The provider configuration.
 * @param key The host session key, if the call names one.
 * @returns The marked conversation (to persist the mark), if the session has one.
 */
export function markCompaction(
  config: ProviderConfig,
  key: string | undefined,
): Conversation<unknown> | undefined {
  const conversation = key === undefined ? undefined : config.conversations.get(key);
  // The mark must survive a restart too: the next write carries it.
  conversation?.markCompaction();
  emitDiagnostic(config.logger, {
    kind: "compaction",
    sessionKey: key,
    conversationId: conversation?.conversationId,
    conversationGroupId: conversation?.groupId,
  });
  return conversation;
}
