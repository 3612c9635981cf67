/**
 * Deciding how a new user turn starts: warm on the conversation's checkpoint (only the
 * new user text is sent), or cold — a new conversation seeded with the host's history —
 * with the reason recorded.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Conversation, ConversationStore } from "../../../conversation/conversation-store.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import type { ConvertedPrompt } from "../call/convert-prompt.ts";
import { relateHistory, renderHistoryForReseed } from "./history-seed.ts";
import { checkpointWindow, seedOverflow } from "./seed-fit.ts";

/** How a turn starts. */
export interface TurnPlan {
  readonly conversationId: string;
  readonly groupId: string;
  readonly conversation: Conversation<ActiveTurn> | undefined;
  /** Checkpoint bytes to continue from (empty for a cold start). */
  readonly checkpoint: Uint8Array;
  readonly priorUsed: number | undefined;
  readonly userText: string;
  readonly systemPrompt: string;
  readonly continuity: "warm" | "cold";
  /** Why the turn is cold (runbook `coldReason`), when it is. */
  readonly coldReason: string | undefined;
  /** A conversation reset happened (new Cursor identity), and why. */
  readonly resetReason: string | undefined;
}

/** Inputs of {@link planTurn}. */
export interface PlanInputs {
  readonly key: string | undefined;
  readonly metadataCall: boolean;
  readonly prompt: LanguageModelV3Prompt;
  readonly converted: ConvertedPrompt;
  readonly store: ConversationStore<ActiveTurn>;
  readonly newId: () => string;
  /** Tool results arrived for a held Run that is gone. */
  readonly orphanResults: boolean;
  /** Start a new conversation from host history for this reason, whatever the store holds. */
  readonly forceReseed?: string;
  /**
   * The selected variant's window from the catalogue, checked when no checkpoint reported
   * one (a first Run's seed, ADR 172).
   */
  readonly catalogueWindow?: number | undefined;
}

/**
 * Plans a new Run for a user turn.
 *
 * @param inputs Session key, prompt, store and id source.
 * @returns The plan.
 * @throws {CursorError} `context_overflow` when a seed from host history is larger than
 *   the context window Cursor reported for the conversation, or, with no such report, the
 *   catalogue's window for the selected variant (nothing is replaced then).
 */
export function planTurn(inputs: PlanInputs): TurnPlan {
  const { converted } = inputs;
  const fullText = converted.history
    ? `${converted.history}\n\n${converted.userText}`
    : converted.userText;
  if (inputs.key === undefined || inputs.metadataCall) {
    const id = inputs.newId();
    return cold(
      id,
      id,
      undefined,
      fullText,
      converted.systemPrompt,
      inputs.metadataCall ? "ephemeral" : "no-session",
      undefined,
    );
  }
  if (inputs.forceReseed !== undefined) return reseed(inputs, inputs.forceReseed, fullText);
  const existing = inputs.store.get(inputs.key);
  if (existing === undefined) return firstConversation(inputs, inputs.key, fullText);
  // The host compacted the session: the next Run starts over from its summary.
  if (existing.compactionPending) return reseed(inputs, "post-compaction-rebase", fullText);
  if (!inputs.orphanResults && existing.checkpoint !== undefined) {
    const relation = relateHistory(
      inputs.prompt,
      existing.history,
      existing.lastAssistantText,
      existing.interruptedText,
    );
    if (relation.kind === "extends") {
      return {
        conversationId: existing.conversationId,
        groupId: existing.groupId,
        conversation: existing,
        checkpoint: existing.checkpoint,
        priorUsed: existing.checkpointUsed,
        userText: relation.newUserText,
        systemPrompt: existing.frozenSystemPrompt ?? converted.systemPrompt,
        continuity: "warm",
        coldReason: undefined,
        resetReason: undefined,
      };
    }
    return reseed(inputs, relation.reason, fullText);
  }
  const reason = inputs.orphanResults ? "interrupted-run" : "checkpoint-unusable";
  return reseed(inputs, reason, renderHistoryForReseed(inputs.prompt) ?? fullText);
}

/** The session's first conversation in this process (nothing stored for its key). */
function firstConversation(inputs: PlanInputs, key: string, fullText: string): TurnPlan {
  const { converted } = inputs;
  // Tool results with no Run to take them (a restart, or no session key): rebuild with them.
  const text = inputs.orphanResults ? renderHistoryForReseed(inputs.prompt) ?? fullText : fullText;
  const overflow = seedOverflow(
    { text, systemPrompt: converted.systemPrompt, kind: "first" },
    inputs.catalogueWindow,
  );
  if (overflow !== undefined) throw overflow;
  const conversation = inputs.store.create(key, inputs.newId());
  conversation.freezeSystemPrompt(converted.systemPrompt);
  return cold(
    conversation.conversationId,
    conversation.groupId,
    conversation,
    text,
    converted.systemPrompt,
    inputs.orphanResults ? "interrupted-run" : "no-checkpoint",
    undefined,
  );
}

function reseed(inputs: PlanInputs, reason: string, text: string): TurnPlan {
  const key = inputs.key ?? inputs.newId();
  // Checked before the conversation is replaced: its checkpoint holds the window.
  const window = checkpointWindow(inputs.store.get(key)?.checkpoint) ?? inputs.catalogueWindow;
  const systemPrompt = inputs.converted.systemPrompt;
  const overflow = seedOverflow({ text, systemPrompt, kind: "reseed" }, window);
  if (overflow !== undefined) throw overflow;
  const conversation = inputs.store.create(key, inputs.newId());
  conversation.freezeSystemPrompt(inputs.converted.systemPrompt);
  return cold(
    conversation.conversationId,
    conversation.groupId,
    conversation,
    text,
    inputs.converted.systemPrompt,
    reason,
    reason,
  );
}

function cold(
  conversationId: string,
  groupId: string,
  conversation: Conversation<ActiveTurn> | undefined,
  userText: string,
  systemPrompt: string,
  coldReason: string,
  resetReason: string | undefined,
): TurnPlan {
  return {
    conversationId,
    groupId,
    conversation,
    checkpoint: new Uint8Array(0),
    priorUsed: undefined,
    userText,
    systemPrompt,
    continuity: "cold",
    coldReason,
    resetReason,
  };
}
