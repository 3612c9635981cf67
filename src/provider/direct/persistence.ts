/**
 * The direct backend's side of restart continuity: before a session's first turn in
 * this process, hydrate its conversation from the snapshot store; after a turn that
 * moved the checkpoint, write the snapshot again. Every outcome is one runbook line
 * (`conversation persistence: …`); no failure here ever fails a turn.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { Conversation } from "../../session/conversation-store.ts";
import {
  captureConversation,
  restoreConversation,
  snapshotStoreKey,
} from "../../session/snapshot-persistence.ts";
import type { ProviderConfig } from "../provider-config.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";

/**
 * Restores the session's conversation from its snapshot when this process holds none.
 *
 * @param config The provider configuration (stores, snapshot store, logger, clock).
 * @param key The host session key, if any.
 * @returns Resolves once the stores hold what could be restored.
 */
export async function restoreIfAbsent(
  config: ProviderConfig,
  key: string | undefined,
): Promise<void> {
  const snapshots = config.snapshots;
  if (key === undefined || snapshots === undefined || config.conversations.get(key)) return;
  const started = config.now();
  const outcome = await restoreConversation(key, {
    snapshots,
    conversations: config.conversations,
    blobs: config.blobs,
    nowMs: started,
    scope: config.apiBaseURL,
  });
  // Another process left the conversation: whether the server still holds its blobs is unknown.
  const restored = outcome.status === "restored" ? config.conversations.get(key) : undefined;
  if (restored) restored.serverBlobs.belief = "unknown";
  if (!config.logger.enabled) return;
  if (outcome.status === "restored") {
    emitDiagnostic(config.logger, {
      kind: "persistence-restored",
      sessionKey: key,
      conversationId: restored?.conversationId,
      conversationGroupId: restored?.groupId,
      blobs: outcome.blobs,
      bytes: outcome.bytes,
      ageMs: outcome.ageMs,
      restoreMs: config.now() - started,
    });
  } else {
    emitDiagnostic(config.logger, {
      kind: "persistence-outcome",
      status: outcome.status,
      sessionKey: key,
      ...(outcome.status === "missing" ? {} : { reason: outcome.reason }),
    });
  }
}

/**
 * Writes the conversation's snapshot when its checkpoint (or compaction mark) changed
 * since the last write.
 *
 * @param config The provider configuration.
 * @param conversation The session's conversation.
 * @returns Resolves once written (failures are logged, never thrown).
 */
export async function persistConversation(
  config: ProviderConfig,
  conversation: Conversation<unknown>,
): Promise<void> {
  const snapshots = config.snapshots;
  if (snapshots === undefined || conversation.key.startsWith("anonymous:")) return;
  if (conversation.checkpoint === conversation.persistedCheckpoint) return;
  try {
    const bytes = await captureConversation(conversation, config.blobs, config.now());
    if (bytes === undefined) return;
    await snapshots.write(snapshotStoreKey(config.apiBaseURL, conversation.key), bytes);
    conversation.persistedCheckpoint = conversation.checkpoint;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    emitDiagnostic(config.logger, {
      kind: "persistence-outcome",
      status: "save failure",
      sessionKey: conversation.key,
      reason: reason.replace(/\s+/g, " ").slice(0, 200),
    });
  }
}

/**
 * The turn's stream, closing only after the conversation's snapshot was written (so a
 * host that restarts right after a reply still finds it).
 *
 * @param stream The turn's parts.
 * @param config The provider configuration.
 * @param conversation The session's conversation, if the turn has one.
 * @returns The same parts.
 */
export function persistWhenDone(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  config: ProviderConfig,
  conversation: Conversation<unknown> | undefined,
): ReadableStream<LanguageModelV3StreamPart> {
  if (conversation === undefined || config.snapshots === undefined) return stream;
  return stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      flush: () => persistConversation(config, conversation),
    }),
  );
}
