/**
 * Decides, for one request, whether to resume a Cursor chat and with which prompt.
 *
 * The key is workspace + concrete Cursor model + a hash of the first real user
 * message (metadata requests have no key). A cached chat is used only when
 *
 * - it has not expired and the tool fingerprint is unchanged (else it is evicted);
 * - the user messages it has seen are exactly the first user messages of the request;
 * - the request holds something new after the chat's last request; and
 * - the assistant message that follows the chat's last request is the reply this
 *   chat gave (two conversations with the same opener that diverge never share a chat).
 *
 * When, in addition, the whole earlier history is unchanged and the new messages are
 * one user message or tool results, only those are sent (incremental prompt).
 * Otherwise the full prompt goes to the resumed chat.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { sha256Hex } from "../../core/bytes.ts";
import {
  canonicalMessage,
  canonicalReply,
  canonicalUserText,
  realUserIndexes,
} from "./canonical-messages.ts";
import { detectMetadataPrompt } from "./meta-prompt.ts";
import { buildIncrementalPrompt } from "./prompt-builder.ts";
import type { ResumeCache, ResumeEntry } from "../../cli/resume-cache.ts";

/** Everything the decision needs. */
export interface ResumePlanInput {
  /** Session resume is switched on. */
  readonly enabled: boolean;
  readonly workspace: string;
  /** The concrete Cursor model id passed to `--model`. */
  readonly model: string;
  readonly prompt: LanguageModelV3Prompt;
  /** From `toolFingerprint(options.tools)`. */
  readonly toolFingerprint: string;
  readonly cache: ResumeCache;
  /** The injected clock's current time. */
  readonly nowMs: number;
}

/** What to store in the cache once the turn succeeded (plus the chat id and reply). */
export interface ResumeCommit {
  readonly key: string;
  readonly toolFingerprint: string;
  readonly userCount: number;
  readonly userDigest: string;
  readonly messageCount: number;
  readonly messageDigest: string;
}

/** How to run this turn. */
export type ResumePlan =
  | { readonly mode: "fresh"; readonly reason: string; readonly commit?: ResumeCommit }
  | {
    readonly mode: "incremental";
    readonly reason: string;
    readonly chatId: string;
    readonly prompt: string;
    readonly commit: ResumeCommit;
  }
  | {
    readonly mode: "full-resume";
    readonly reason: string;
    readonly chatId: string;
    readonly commit: ResumeCommit;
  };

/**
 * Plans the turn.
 *
 * @param input The request, the cache and the current time.
 * @returns Fresh chat, incremental resume, or full-prompt resume, with what to record after success.
 */
export async function planResume(input: ResumePlanInput): Promise<ResumePlan> {
  if (!input.enabled) return { mode: "fresh", reason: "disabled" };
  const metadata = detectMetadataPrompt(input.prompt);
  if (metadata !== undefined) return { mode: "fresh", reason: `metadata-${metadata}` };
  const users = realUserIndexes(input.prompt);
  const firstUser = users[0] === undefined ? undefined : input.prompt[users[0]];
  if (firstUser?.role !== "user") return { mode: "fresh", reason: "no-user-message" };

  const anchor = (await sha256Hex(canonicalUserText(firstUser))).slice(0, 32);
  const canonical = input.prompt.map(canonicalMessage);
  const userCanonical = users.map((index) => canonical[index] ?? "");
  const commit: ResumeCommit = {
    key: `${input.workspace}\u0000${input.model}\u0000${anchor}`,
    toolFingerprint: input.toolFingerprint,
    userCount: users.length,
    userDigest: await digest(userCanonical),
    messageCount: canonical.length,
    messageDigest: await digest(canonical),
  };

  const lookup = input.cache.lookup(commit.key, input.nowMs);
  if (lookup.status === "expired") return { mode: "fresh", reason: "expired", commit };
  if (lookup.status === "miss") return { mode: "fresh", reason: "no-entry", commit };
  const entry = lookup.entry;
  if (entry.toolFingerprint !== input.toolFingerprint) {
    input.cache.evict(commit.key);
    return { mode: "fresh", reason: "tools-changed", commit };
  }
  return await matchHistory(input.prompt, canonical, userCanonical, entry, commit);
}

async function matchHistory(
  prompt: LanguageModelV3Prompt,
  canonical: readonly string[],
  userCanonical: readonly string[],
  entry: ResumeEntry,
  commit: ResumeCommit,
): Promise<ResumePlan> {
  if (userCanonical.length < entry.userCount) {
    return { mode: "fresh", reason: "users-diverged", commit };
  }
  if (await digest(userCanonical.slice(0, entry.userCount)) !== entry.userDigest) {
    return { mode: "fresh", reason: "users-diverged", commit };
  }
  if (canonical.length <= entry.messageCount) {
    return { mode: "fresh", reason: "nothing-new", commit };
  }
  const next = prompt[entry.messageCount];
  let start = entry.messageCount;
  if (next?.role === "assistant") {
    if (canonical[entry.messageCount] !== entry.replyDigest) {
      return { mode: "fresh", reason: "reply-diverged", commit };
    }
    start++;
  } else if (entry.replyDigest !== canonicalReply({ text: "", toolCallIds: [] })) {
    return { mode: "fresh", reason: "reply-missing", commit };
  }
  const samePrefix = await digest(canonical.slice(0, entry.messageCount)) === entry.messageDigest;
  const incremental = samePrefix ? buildIncrementalPrompt(prompt, start) : undefined;
  if (incremental !== undefined) {
    return {
      mode: "incremental",
      reason: "exact-prefix",
      chatId: entry.chatId,
      prompt: incremental,
      commit,
    };
  }
  return {
    mode: "full-resume",
    reason: samePrefix ? "delta-not-incremental" : "history-changed",
    chatId: entry.chatId,
    commit,
  };
}

async function digest(parts: readonly string[]): Promise<string> {
  return await sha256Hex(JSON.stringify(parts));
}

/**
 * Builds the cache entry for a finished turn.
 *
 * @param commit What {@link planResume} returned for the turn.
 * @param chatId The chat id the CLI reported.
 * @param reply The reply the turn produced.
 * @param nowMs The injected clock's current time.
 * @returns The entry to store.
 */
export function entryFor(
  commit: ResumeCommit,
  chatId: string,
  reply: { readonly text: string; readonly toolCallIds: readonly string[] },
  nowMs: number,
): ResumeEntry {
  return {
    chatId,
    toolFingerprint: commit.toolFingerprint,
    userCount: commit.userCount,
    userDigest: commit.userDigest,
    messageCount: commit.messageCount,
    messageDigest: commit.messageDigest,
    replyDigest: canonicalReply(reply),
    updatedAtMs: nowMs,
  };
}
