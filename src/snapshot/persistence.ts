/**
 * Conversation snapshots in and out of a {@link ConversationSnapshotStore}: capturing
 * what a warm continuation needs (binding, ids, latest checkpoint, the blobs it reaches,
 * the frozen request context) and restoring it into a provider's stores after a
 * restart. Every failure to restore is an outcome with a reason, never a throw: the
 * caller logs it and the turn starts cold.
 *
 * @module
 */
import { fromBinary } from "@bufbuild/protobuf";
import { bytesToHex, hexToBytes } from "../core/bytes.ts";
import type { ConversationSnapshot } from "../gen/provider/v1/conversation_snapshot_pb.ts";
import { RequestContextSchema } from "../gen/agent/v1/request_context_pb.ts";
import type { BlobStore } from "../agent-run/blobs/blob-store.ts";
import { currentBelief, type ServerBlobKnowledge } from "../agent-run/blobs/blob-push.ts";
import type { Conversation, ConversationStore } from "../conversation/conversation-store.ts";
import { decodeSnapshot, encodeSnapshot, snapshotMessage } from "./codec.ts";
import { reachableBlobs } from "../agent-run/blobs/reachable-blobs.ts";
import type { ConversationSnapshotStore } from "./store.ts";

/** How long a snapshot stays usable after it was written: 24 hours. */
export const SNAPSHOT_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The outcome of {@link restoreConversation} (the runbook's `conversation persistence:` states). */
export type RestoreOutcome =
  | {
    readonly status: "restored";
    readonly blobs: number;
    readonly bytes: number;
    readonly ageMs: number;
    /** What the writer believed Cursor's server held of the blobs (`unknown`: not said). */
    readonly serverBlobs: "holds" | "lacks" | "unknown";
  }
  | { readonly status: "missing" }
  | { readonly status: "invalid" | "expired" | "restore failure"; readonly reason: string };

/**
 * Captures a conversation's snapshot bytes, or `undefined` when it has no checkpoint.
 *
 * @param conversation The conversation.
 * @param blobs The blob store the checkpoint's blobs are taken from.
 * @param nowMs The time written into the snapshot.
 * @returns The encoded snapshot.
 */
export async function captureConversation<Held>(
  conversation: Conversation<Held>,
  blobs: BlobStore,
  nowMs: number,
): Promise<Uint8Array | undefined> {
  const checkpoint = conversation.checkpoint ?? new Uint8Array(0);
  const step = conversation.pendingStep;
  if (checkpoint.length === 0 && step === undefined) return undefined;
  const reachable = reachableBlobs(checkpoint, blobs);
  // The pending step's checkpoint reaches the step's blobs as well.
  if (step !== undefined) {
    for (const [hex, data] of reachableBlobs(step.checkpoint, blobs)) reachable.set(hex, data);
  }
  const context = conversation.requestContext;
  return await encodeSnapshot(snapshotMessage({
    sessionKey: conversation.key,
    conversationId: conversation.conversationId,
    conversationGroupId: conversation.groupId,
    checkpoint,
    ...(conversation.checkpointUsed === undefined
      ? {}
      : { checkpointUsedTokens: conversation.checkpointUsed }),
    checkpointCategories: conversation.checkpointCategories ?? {},
    frozenSystemPrompt: conversation.frozenSystemPrompt ?? "",
    history: [...conversation.history],
    lastAssistantText: conversation.lastAssistantText,
    requestContext: context?.bytes ?? new Uint8Array(0),
    requestContextKey: context?.key ?? "",
    advertisedTools: conversation.advertisedTools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchemaJson: JSON.stringify(tool.inputSchema ?? null),
    })),
    blobs: [...reachable].map(([hex, data]) => ({
      id: hexToBytes(hex) ?? new Uint8Array(0),
      data,
    })),
    savedAtMs: BigInt(nowMs),
    serverBlobs: snapshotBelief(conversation.serverBlobs),
    compactionPending: conversation.compactionPending,
    cursorMode: conversation.cursorMode ?? "",
    ...(step === undefined ? {} : {
      pendingStep: {
        checkpoint: step.checkpoint,
        calls: step.calls.map((call) => ({ ...call })),
        ...(step.used === undefined ? {} : { checkpointUsedTokens: step.used }),
      },
    }),
  }));
}

/** What {@link restoreConversation} works on. */
export interface RestoreTarget<Held> {
  readonly snapshots: ConversationSnapshotStore;
  readonly conversations: ConversationStore<Held>;
  readonly blobs: BlobStore;
  readonly nowMs: number;
  /** Snapshot lifetime; default {@link SNAPSHOT_LIFETIME_MS}. */
  readonly lifetimeMs?: number;
  /** What the store key is scoped by (the service's origin), see {@link snapshotStoreKey}. */
  readonly scope?: string;
}

/**
 * The key a snapshot is filed under: the host session key scoped by the service, so a
 * snapshot made against one service (or a test server) never continues on another.
 *
 * @param scope The service's origin, or `""`.
 * @param key The host session key.
 * @returns The store key.
 */
export function snapshotStoreKey(scope: string, key: string): string {
  return scope === "" ? key : `${scope}#${key}`;
}

/**
 * Restores a host session's conversation from its snapshot into the provider's stores.
 * An unusable snapshot (corrupt, truncated, foreign version, another session's,
 * expired, refused by the store) is removed so the next write replaces it.
 *
 * @param key The host session key.
 * @param target The stores and the clock.
 * @returns What happened, with the reason when nothing was restored.
 */
export async function restoreConversation<Held>(
  key: string,
  target: RestoreTarget<Held>,
): Promise<RestoreOutcome> {
  const storeKey = snapshotStoreKey(target.scope ?? "", key);
  let read;
  try {
    read = await target.snapshots.read(storeKey);
  } catch (error) {
    return { status: "restore failure", reason: errorText(error) };
  }
  if (read.status === "missing") return { status: "missing" };
  const drop = async (outcome: RestoreOutcome): Promise<RestoreOutcome> => {
    await target.snapshots.remove(storeKey).catch(() => {});
    return outcome;
  };
  if (read.status === "refused") return drop({ status: "invalid", reason: read.reason });
  const decoded = await decodeSnapshot(read.bytes);
  if (!decoded.ok) return drop({ status: "invalid", reason: decoded.reason });
  const snapshot = decoded.snapshot;
  if (snapshot.sessionKey !== key) return drop({ status: "invalid", reason: "session-mismatch" });
  const ageMs = target.nowMs - Number(snapshot.savedAtMs);
  if (ageMs > (target.lifetimeMs ?? SNAPSHOT_LIFETIME_MS)) {
    return drop({ status: "expired", reason: `age-ms-${ageMs}` });
  }
  const problem = hydrate(key, snapshot, target);
  if (problem !== undefined) return drop({ status: "invalid", reason: problem });
  target.conversations.get(key)?.bindSnapshot(read.version);
  return {
    status: "restored",
    blobs: snapshot.blobs.length,
    bytes: read.bytes.length,
    ageMs: Math.max(0, ageMs),
    serverBlobs: snapshot.serverBlobs === "holds" || snapshot.serverBlobs === "lacks"
      ? snapshot.serverBlobs
      : "unknown",
  };
}

/** Puts a decoded snapshot into the stores; returns a reason when its content is unusable. */
function hydrate<Held>(
  key: string,
  snapshot: ConversationSnapshot,
  target: RestoreTarget<Held>,
): string | undefined {
  const step = snapshot.pendingStep;
  const stepUsable = step !== undefined && step.checkpoint.length > 0 && step.calls.length > 0;
  if ((snapshot.checkpoint.length === 0 && !stepUsable) || snapshot.conversationId === "") {
    return "empty";
  }
  let requestContext: Conversation<Held>["requestContext"];
  try {
    requestContext = snapshot.requestContext.length === 0 ? undefined : {
      message: fromBinary(RequestContextSchema, snapshot.requestContext),
      bytes: snapshot.requestContext,
      key: snapshot.requestContextKey,
    };
  } catch {
    return "request-context-undecodable";
  }
  let tools: Conversation<Held>["advertisedTools"];
  try {
    tools = snapshot.advertisedTools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: JSON.parse(tool.inputSchemaJson) as unknown,
    }));
  } catch {
    return "tool-schema-undecodable";
  }
  for (const blob of snapshot.blobs) {
    if (blob.id.length !== 32) return "blob-id-malformed";
    target.blobs.set(bytesToHex(blob.id), blob.data);
  }
  const conversation = target.conversations.create(
    key,
    snapshot.conversationId,
    snapshot.conversationGroupId || snapshot.conversationId,
  );
  conversation.restore({
    conversationId: conversation.conversationId,
    groupId: conversation.groupId,
    checkpoint: snapshot.checkpoint.length === 0 ? undefined : snapshot.checkpoint,
    checkpointUsed: snapshot.checkpointUsedTokens,
    checkpointCategories: Object.keys(snapshot.checkpointCategories).length === 0
      ? undefined
      : { ...snapshot.checkpointCategories },
    frozenSystemPrompt: snapshot.frozenSystemPrompt,
    history: snapshot.history,
    lastAssistantText: snapshot.lastAssistantText,
    requestContext,
    advertisedTools: tools,
    compactionPending: snapshot.compactionPending,
    cursorMode: snapshot.cursorMode === "" ? undefined : snapshot.cursorMode,
    pendingStep: stepUsable
      ? {
        checkpoint: step.checkpoint,
        used: step.checkpointUsedTokens,
        calls: step.calls.map((call) => ({
          cursorCallId: call.cursorCallId,
          hostCallId: call.hostCallId,
          toolName: call.toolName,
        })),
      }
      : undefined,
  }, undefined);
  return undefined;
}

/** The belief a snapshot carries (`""`: unknown). */
function snapshotBelief(knowledge: ServerBlobKnowledge): string {
  const belief = currentBelief(knowledge);
  return belief === "unknown" ? "" : belief;
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s+/g, " ").slice(0, 200);
}
