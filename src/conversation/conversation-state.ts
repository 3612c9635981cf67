/**
 * The serialisable state of one host conversation and the facts its transitions take:
 * {@link ConversationState} is exactly what a snapshot, or a shared store, keeps; the
 * pending tool step, checkpoint facts and the turn in progress are the values
 * `Conversation` moves between.
 *
 * @module
 */
import type { AdvertisedTool, MaterializedRequestContext } from "../agent-run/request-context.ts";

/** The request context a conversation sent last, with the key of its inputs. */
export type FrozenRequestContext = MaterializedRequestContext & { readonly key: string };

/** What a snapshot keeps of a conversation: enough to continue it warm elsewhere. */
export interface ConversationState {
  readonly conversationId: string;
  /** Stable across conversation-id rotation (the host session). */
  readonly groupId: string;
  /** The latest checkpoint bytes, exactly as received. */
  readonly checkpoint: Uint8Array | undefined;
  /** `usedTokens` of that checkpoint, when it had token details. */
  readonly checkpointUsed: number | undefined;
  /** The category breakdown of that checkpoint. */
  readonly checkpointCategories: Readonly<Record<string, number>> | undefined;
  /** The system prompt frozen at the conversation's first Run. */
  readonly frozenSystemPrompt: string | undefined;
  /** Digests of the host messages the conversation holds, in order. */
  readonly history: readonly string[];
  /** The assistant text streamed in the last turn (to recognise it in host history). */
  readonly lastAssistantText: string;
  /** The request context sent last (reused while its inputs are unchanged). */
  readonly requestContext: FrozenRequestContext | undefined;
  /** Host tools advertised to Cursor so far (new ones are appended, none removed). */
  readonly advertisedTools: readonly AdvertisedTool[];
  /** A compaction Run finished: the next Run rebases on the host's summary. */
  readonly compactionPending: boolean;
  /** Cursor's mode for the next user message (`plan` after a declined plan; unset: agent). */
  readonly cursorMode: string | undefined;
  /** The tool step waiting for the host's results, when the last pass ended with one. */
  readonly pendingStep?: PendingStep | undefined;
}

/** One call of a step's pending tool batch: Cursor's tool call id and the host's. */
export interface PendingStepCall {
  readonly cursorCallId: string;
  readonly hostCallId: string;
  readonly toolName: string;
}

/**
 * A tool step waiting for the host's results (ADR 190): the checkpoint Cursor saved that
 * holds the pending batch, and the calls of that batch. A request with the results
 * continues from it (`resume_action`) on whichever instance it lands.
 */
export interface PendingStep {
  readonly checkpoint: Uint8Array;
  /** `usedTokens` of that checkpoint, when it had token details. */
  readonly used: number | undefined;
  readonly calls: readonly PendingStepCall[];
}

/** A checkpoint with the token facts it came with. */
export interface CheckpointFacts {
  readonly bytes: Uint8Array;
  /** Its `usedTokens` (kept from the previous checkpoint when absent). */
  readonly used?: number | undefined;
  /** Its categories (kept from the previous checkpoint when absent). */
  readonly categories?: Readonly<Record<string, number>> | undefined;
}

/**
 * The turn in progress: what the conversation held when it began and what its finished
 * steps showed. A step interrupted after earlier tool steps of the same turn falls back to
 * it (no checkpoint holds those steps), so the next prompt's copy of the whole turn is
 * recognised as ours.
 */
export interface TurnStart {
  readonly history: readonly string[];
  readonly assistantText: string;
  readonly shown: string;
}

/** The rule reminder Cursor's model was sent last. */
export type RuleReminderKind = "edit-denied" | "edit-allowed";

/** A new conversation's state: nothing received or sent yet. */
export function freshState(
  conversationId: string,
  groupId: string,
  cursorMode: string | undefined,
): ConversationState {
  return {
    conversationId,
    groupId,
    checkpoint: undefined,
    checkpointUsed: undefined,
    checkpointCategories: undefined,
    frozenSystemPrompt: undefined,
    history: [],
    lastAssistantText: "",
    requestContext: undefined,
    advertisedTools: [],
    compactionPending: false,
    cursorMode,
    pendingStep: undefined,
  };
}
