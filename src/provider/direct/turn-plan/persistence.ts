/**
 * The direct backend's side of restart continuity: before a session's first turn in
 * this process, hydrate its conversation from the snapshot store; after a turn that
 * moved the checkpoint, write the snapshot again. Every outcome is one runbook line
 * (`conversation persistence: …`); no failure here ever fails a turn.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import {
  captureConversation,
  restoreConversation,
  snapshotStoreKey,
} from "../../../snapshot/persistence.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";

/**
 * Restores the session's conversation from its snapshot when this process holds none,
 * or holds an older state than the store (another process finished a turn since). When
 * that newer state cannot be restored, the conversation in memory stays: the host's
 * history, which holds the turns it lacks, makes the turn reseed.
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
  if (key === undefined || snapshots === undefined) return;
  const present = config.conversations.get(key);
  if (present !== undefined && !(await supersededInStore(config, snapshots, present))) return;
  const started = config.now();
  const outcome = await restoreConversation(key, {
    snapshots,
    conversations: config.conversations,
    blobs: config.blobs,
    nowMs: started,
    scope: config.apiBaseURL,
  });
  const restored = outcome.status === "restored" ? config.conversations.get(key) : undefined;
  if (restored && outcome.status === "restored") {
    restored.serverBlobs.belief = beliefAfterRestore(outcome.serverBlobs, outcome.ageMs);
  }
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
 * How long after a snapshot was written its writer's belief that Cursor's server holds the
 * conversation's blobs is still taken (the emulator's server keeps an idle conversation 10
 * minutes; Cursor's retention is not known, and a wrong belief costs only the server's GETs).
 */
export const SERVER_BLOBS_TRUSTED_MS = 10 * 60 * 1000;

/**
 * What to believe of the server's blobs after a restore: a recent hand-off keeps its
 * writer's belief (another instance of this app just ran a turn of the conversation);
 * an old or silent snapshot is unknown, so its blobs are pushed once (ADR 100, ADR 194).
 *
 * @param written The writer's belief.
 * @param ageMs The snapshot's age.
 * @returns The belief.
 *
 * @example
 * ```ts
 * import { beliefAfterRestore } from "./persistence.ts";
 *
 * console.assert(beliefAfterRestore("holds", 2_000) === "holds");
 * console.assert(beliefAfterRestore("holds", 3_600_000) === "unknown");
 * ```
 */
export function beliefAfterRestore(
  written: "holds" | "lacks" | "unknown",
  ageMs: number,
): "holds" | "lacks" | "unknown" {
  if (written === "lacks") return "lacks";
  return written === "holds" && ageMs <= SERVER_BLOBS_TRUSTED_MS ? "holds" : "unknown";
}

/**
 * Whether the store holds a newer snapshot of the conversation than the one it continues
 * from: another process finished a turn or a step of it. A Run held here for that step
 * is then stale (another instance continued the step from its stored checkpoint, ADR
 * 190): the restore replaces the conversation and releases it (`reason=replaced`). Only a
 * store that reports versions cheaply is asked; a store that cannot answer counts as not
 * newer.
 */
async function supersededInStore(
  config: ProviderConfig,
  snapshots: NonNullable<ProviderConfig["snapshots"]>,
  conversation: Conversation<unknown>,
): Promise<boolean> {
  if (snapshots.version === undefined) return false;
  try {
    const stored = await snapshots.version(snapshotStoreKey(config.apiBaseURL, conversation.key));
    return stored !== undefined && stored !== conversation.snapshotVersion;
  } catch {
    return false;
  }
}

/**
 * Writes the conversation's snapshot when its checkpoint (or compaction mark) changed
 * since the last write, on condition that the store still holds the version the
 * conversation continues from. When another process wrote a newer one meanwhile, this
 * write loses (`save conflict`) and the newer snapshot stays.
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
  if (conversation.snapshotCurrent) return;
  try {
    const bytes = await captureConversation(conversation, config.blobs, config.now());
    if (bytes === undefined) return;
    const written = await snapshots.write(
      snapshotStoreKey(config.apiBaseURL, conversation.key),
      bytes,
      { ifVersion: conversation.snapshotVersion ?? null },
    );
    if (written?.status === "conflict") {
      // Another process finished a turn of this conversation first: its snapshot stays, and
      // this process's next turn restores it (restoreIfAbsent sees the newer version).
      emitDiagnostic(config.logger, {
        kind: "persistence-outcome",
        status: "save conflict",
        sessionKey: conversation.key,
        reason: "newer-snapshot-in-store",
      });
      return;
    }
    conversation.bindSnapshot(written?.status === "written" ? written.version : undefined);
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
