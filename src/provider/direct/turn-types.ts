/**
 * The facts about a turn that every room of the direct backend reads: how its Run
 * started, who it belongs to, how a successor Run relates to it, and why a pump stopped.
 * Types only, importing nothing of the backend's own, so any room may import it without
 * an arrow running up (docs/decisions/203-direct-backend-ranks.md).
 *
 * @module
 */

/** Why a pump stopped. */
export type PumpOutcome = "tool-calls" | "turn-ended";

/** How the Run started (continuity, request context), repeated on every pass's diagnostics. */
export interface StartFacts {
  readonly continuity: string;
  readonly coldReason: string | undefined;
  readonly requestContext: string;
  readonly requestContextHash: string;
  readonly systemPromptHash: string;
  readonly systemPromptSent: boolean;
  /** Skills this Run appended to the conversation's (a capability-epoch change). */
  readonly skillsAppended?: number;
}

/**
 * How a turn's next Run relates to the one before: the same request again (`replay`), a
 * new conversation seeded from host history (`rebuild`), `resume_action` from the turn's
 * latest eligible checkpoint (`resume`), or the build Run of an approved plan (`build`).
 */
export type SuccessorKind = "replay" | "rebuild" | "resume" | "build";

/** Who a Run belongs to: what a successor keeps unless its opener says otherwise. */
export interface TurnIdentity {
  readonly conversationId: string;
  readonly modelId: string;
  /** Context occupancy of the checkpoint the Run started from. */
  readonly priorUsed: number | undefined;
  /** The prior checkpoint's categories. */
  readonly priorCategories?: Readonly<Record<string, number>> | undefined;
  /** The workspace directory the Run's tools act in. */
  readonly workspaceRoot: string;
}
