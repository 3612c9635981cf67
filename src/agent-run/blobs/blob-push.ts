/**
 * When to push a conversation's blobs up front in `pre_fetched_blobs`, and which. The
 * server GETs the blobs a checkpoint references that it does not hold (AGENT-SCHEMA.md
 * §5.3); on SSE each answer is an HTTP request, so a server that lost the conversation
 * makes a warm turn cost round trips in proportion to the history. Pushing them saves
 * those round trips, but re-sending the history to a server that kept it is pure waste,
 * so the client pushes only when it has reason to think the server lacks them:
 *
 * - after a restore from a snapshot (another process: nothing is known), once;
 * - after a Run of the conversation in which the server GOT blobs (it had lost them),
 *   on every warm turn while that lasts, except that every {@link PROBE_EVERY}-th warm
 *   turn goes without, to learn whether the server holds them again.
 *
 * A warm Run with no GET means the server holds the conversation: nothing is pushed.
 * Pushes are bounded to {@link MAX_PUSH_BYTES}; anything past that is answered by GET.
 *
 * @module
 */
import { hexToBytes } from "../../core/bytes.ts";
import type { BlobStore } from "./blob-store.ts";
import { reachableBlobs } from "./reachable-blobs.ts";

/** Most blob bytes pushed with one run request: 4 MiB. */
export const MAX_PUSH_BYTES = 4 * 1024 * 1024;
/** While the server keeps losing blobs, every this many warm turns one goes without a push. */
export const PROBE_EVERY = 8;

/** What the client believes the server holds of a conversation's blobs. */
export interface ServerBlobKnowledge {
  /** `holds`: no push; `lacks`: push; `unknown`: push once (after a restore). */
  belief: "holds" | "lacks" | "unknown";
  /** The GET count of the conversation's latest Run, read when the next turn is planned. */
  lastRun: { readonly kvGets: number } | undefined;
  /** Whether that Run pushed blobs. */
  lastRunPushed: boolean;
  /** Pushed warm turns in a row. */
  pushedInRow: number;
}

/** A blob to push. */
export interface PushedBlob {
  readonly id: Uint8Array;
  readonly value: Uint8Array;
}

/**
 * Knowledge of a conversation the server has just seen (it SET every blob it made).
 *
 * @param belief The starting belief; `unknown` after a restore.
 * @returns Fresh knowledge.
 *
 * @example
 * ```ts
 * import { serverBlobKnowledge } from "./blob-push.ts";
 *
 * console.assert(serverBlobKnowledge().belief === "holds");
 * ```
 */
export function serverBlobKnowledge(
  belief: ServerBlobKnowledge["belief"] = "holds",
): ServerBlobKnowledge {
  return { belief, lastRun: undefined, lastRunPushed: false, pushedInRow: 0 };
}

/**
 * Plans the push of a warm turn: learns from the previous Run, decides, and picks the
 * blobs the checkpoint reaches (up to {@link MAX_PUSH_BYTES}).
 *
 * @param knowledge The conversation's knowledge (updated in place).
 * @param checkpoint The checkpoint the turn continues from.
 * @param blobs The client's blob store.
 * @returns The blobs to push (empty when the server is believed to hold them).
 *
 * @example
 * ```ts
 * import { createMemoryBlobStore } from "./blob-store.ts";
 * import { planBlobPush, serverBlobKnowledge } from "./blob-push.ts";
 *
 * const knowledge = serverBlobKnowledge("holds");
 * knowledge.lastRun = { kvGets: 3 };
 * planBlobPush(knowledge, new Uint8Array(0), createMemoryBlobStore());
 * console.assert(knowledge.belief === "lacks");
 * ```
 */
export function planBlobPush(
  knowledge: ServerBlobKnowledge,
  checkpoint: Uint8Array,
  blobs: BlobStore,
): PushedBlob[] {
  learn(knowledge);
  const push = knowledge.belief === "unknown" ||
    (knowledge.belief === "lacks" && (knowledge.pushedInRow + 1) % PROBE_EVERY !== 0);
  knowledge.pushedInRow = push ? knowledge.pushedInRow + 1 : 0;
  if (!push || checkpoint.length === 0) return [];
  const out: PushedBlob[] = [];
  let budget = MAX_PUSH_BYTES;
  for (const [hex, value] of reachableBlobs(checkpoint, blobs)) {
    if (value.length > budget) continue;
    const id = hexToBytes(hex);
    if (id === undefined) continue;
    budget -= value.length;
    out.push({ id, value });
  }
  return out;
}

/**
 * Notes the Run a turn opened, so the next turn can learn from its GETs.
 *
 * @param knowledge The conversation's knowledge.
 * @param activity The Run's live activity counters.
 * @param pushed Whether the Run pushed blobs.
 */
export function noteRun(
  knowledge: ServerBlobKnowledge,
  activity: { readonly kvGets: number },
  pushed: boolean,
): void {
  knowledge.lastRun = activity;
  knowledge.lastRunPushed = pushed;
}

/**
 * What the knowledge says now, counting the latest Run's GETs (without consuming them):
 * the belief a snapshot written after that Run passes on.
 *
 * @param knowledge The conversation's knowledge.
 * @returns The belief.
 *
 * @example
 * ```ts
 * import { currentBelief, serverBlobKnowledge } from "./blob-push.ts";
 *
 * const knowledge = serverBlobKnowledge("unknown");
 * knowledge.lastRun = { kvGets: 0 };
 * console.assert(currentBelief(knowledge) === "holds");
 * ```
 */
export function currentBelief(knowledge: ServerBlobKnowledge): ServerBlobKnowledge["belief"] {
  const last = knowledge.lastRun;
  if (last === undefined) return knowledge.belief;
  if (last.kvGets > 0) return "lacks";
  return !knowledge.lastRunPushed || knowledge.belief === "unknown" ? "holds" : knowledge.belief;
}

function learn(knowledge: ServerBlobKnowledge): void {
  const last = knowledge.lastRun;
  if (last === undefined) return;
  knowledge.lastRun = undefined;
  if (last.kvGets > 0) knowledge.belief = "lacks";
  else if (!knowledge.lastRunPushed || knowledge.belief === "unknown") knowledge.belief = "holds";
}
