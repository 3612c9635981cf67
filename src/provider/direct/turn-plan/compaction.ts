/**
 * After the host's compaction request (recognised in `call/compaction-call.ts` when the
 * call is read): that call runs on an ephemeral conversation; the session's next Run
 * rebases on the summary under a new Cursor conversation id and the same group id.
 *
 * @module
 */
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";

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
