/**
 * The debug log as data: every line the direct backend writes is one of these typed
 * events (see the cache and token log runbook). {@link formatDiagnostic} turns an event
 * into its runbook text; a structured sink writes the event itself as JSON.
 *
 * Events hold plain JSON values only (no bytes, no prompts, no credentials).
 *
 * @module
 */
import type {
  BillingStepEvent,
  BillingTurnRealEvent,
  CacheDiagnosisEvent,
  ContextWarningEvent,
  FinishEvent,
  TurnEndedRawEvent,
  UsageValidationEvent,
} from "./usage-events.ts";

/** `outbound Run:` — identity and continuity of a Run about to start. */
export interface OutboundRunEvent {
  readonly kind: "outbound-run";
  readonly sessionKey: string;
  readonly conversationId: string;
  readonly model: string;
  readonly transport: string;
  readonly reset: boolean;
  readonly resume: boolean;
  readonly checkpointLen: number;
  readonly requestContext: "reused" | "built";
  readonly requestContextLen: number;
  readonly systemPromptSent: boolean;
}

/** `hash systemPrompt|requestContext|checkpoint sha256=…`. */
export interface HashEvent {
  readonly kind: "hash";
  readonly subject: "systemPrompt" | "requestContext" | "checkpoint";
  readonly sha256: string;
  /** `sent=` (systemPrompt only). */
  readonly sent?: boolean;
  /** `bytes=` (requestContext and checkpoint). */
  readonly bytes?: number;
}

/** `conversation reset:` — a new Cursor identity and why. */
export interface ConversationResetEvent {
  readonly kind: "conversation-reset";
  readonly reason: string;
  readonly sessionKey: string;
  readonly conversationId: string;
  readonly conversationGroupId: string;
}

/** `context epoch:` — host instructions sent on a user turn's tail (new, changed, reasserted). */
export interface ContextEpochEvent {
  readonly kind: "context-epoch";
  readonly sessionKey: string;
  readonly conversationId: string;
  /** `reassert` (first Run after a restore) or `changed`. */
  readonly reason: "reassert" | "changed";
  /** Paths of the sources sent. */
  readonly sent: readonly string[];
  /** Paths of the sources that went away. */
  readonly removed: readonly string[];
}

/** `checkpoint unusable:` — Cursor asked for a blob this client no longer holds. */
export interface CheckpointUnusableEvent {
  readonly kind: "checkpoint-unusable";
  readonly conversationId: string;
  /** The failure's code (`blob_not_found`). */
  readonly code: string;
  readonly checkpointLen: number;
}

/** `held Run released:`. */
export interface HeldRunReleasedEvent {
  readonly kind: "held-run-released";
  readonly conversationId: string;
  readonly reason: string;
  /** Host calls the released Run was still waiting for (a new message while tools ran). */
  readonly pending?: number;
}

/** `continuation: … interrupted trailing tool result(s)`. */
export interface ContinuationEvent {
  readonly kind: "continuation";
  readonly toolNames: readonly string[];
  readonly heldRun: string;
  /** Why a stored step could not be continued (`heldRun=stored-batch-mismatch`). */
  readonly reason?: string;
}

/** `call failed:` (message already redacted). */
export interface CallFailedEvent {
  readonly kind: "call-failed";
  readonly message: string;
}

/** `run warning:`. */
export interface RunWarningEvent {
  readonly kind: "run-warning";
  readonly message: string;
}

/** `exec refused:`. */
export interface ExecRefusedEvent {
  readonly kind: "exec-refused";
  readonly execCase: string;
  readonly reason: string;
}

/** `exec aborted by Cursor:`. */
export interface ExecAbortedEvent {
  readonly kind: "exec-aborted";
  readonly execId: number;
  readonly toolCallId: string;
}

/** `checkpoint: stored`. */
export interface CheckpointStoredEvent {
  readonly kind: "checkpoint-stored";
  readonly sessionKey: string;
  readonly conversationId: string;
  readonly bytes: number;
  readonly used: number;
  readonly max: number;
  readonly categories: Readonly<Record<string, number>> | undefined;
}

/** `conversation persistence: restored` — a snapshot brought a conversation back. */
export interface PersistenceRestoredEvent {
  readonly kind: "persistence-restored";
  readonly sessionKey: string;
  readonly conversationId: string | undefined;
  readonly conversationGroupId: string | undefined;
  readonly blobs: number;
  readonly bytes: number;
  readonly ageMs: number;
  readonly restoreMs: number;
}

/** `conversation persistence: missing|invalid|expired|restore failure|save failure|save conflict`. */
export interface PersistenceOutcomeEvent {
  readonly kind: "persistence-outcome";
  readonly status:
    | "missing"
    | "invalid"
    | "expired"
    | "restore failure"
    | "save failure"
    | "save conflict";
  readonly sessionKey: string;
  /** Why (absent for `missing`); whitespace folded, at most 200 characters. */
  readonly reason?: string;
}

/** `compaction=true` — the host compacted; the next Run is ephemeral. */
export interface CompactionEvent {
  readonly kind: "compaction";
  readonly sessionKey: string | undefined;
  readonly conversationId: string | undefined;
  readonly conversationGroupId: string | undefined;
}

/** `images: catalogue unreadable (ErrorName)`. */
export interface ImageCatalogueEvent {
  readonly kind: "image-catalogue-unreadable";
  readonly errorName: string;
}

/** `fresh turn: cancelled N pending exec(s)` — a new user turn supersedes a held Run. */
export interface FreshTurnEvent {
  readonly kind: "fresh-turn";
  readonly conversationId: string;
  readonly cancelled: number;
  readonly delivered: number;
}

/** How draining a superseded Run ended. */
export type DrainOutcome = "turn-ended" | "timeout" | "error" | "no-checkpoint";

/** `drain outcome=` — a superseded Run was drained (or could not be). */
export interface DrainEvent {
  readonly kind: "drain";
  readonly conversationId: string;
  readonly outcome: DrainOutcome;
  readonly discardedChars: number;
}

/** `Run interrupted:` — a turn's Run ended before `turn_ended`. */
export interface RunInterruptedEvent {
  readonly kind: "run-interrupted";
  readonly conversationId: string;
  readonly code: string;
  readonly streamedChars: number;
  readonly replaySafe: boolean;
  readonly checkpoints: number;
}

/** `rebasing fresh Run:` — an interrupted fresh Run replays from its starting checkpoint. */
export interface RebaseEvent {
  readonly kind: "rebase";
  readonly conversationId: string;
  readonly attempt: number;
  /** Which retry allowance the replay used. */
  readonly retry: string;
  readonly code: string;
  readonly delayMs: number;
}

/** `display tool_call_completed: ERROR` — Cursor reported a tool call as failed. */
export interface DisplayToolErrorEvent {
  readonly kind: "display-tool-error";
  readonly callId: string;
  /** The ToolCall variant (`mcpToolCall`, `readToolCall`, …). */
  readonly tool: string;
  /** The error text (for MCP calls, the error title and detail). */
  readonly error: string;
  /** For MCP calls: the chosen name, its namespace and bare tool name (empty when missing). */
  readonly mcp?: {
    readonly name: string;
    readonly providerIdentifier: string;
    readonly toolName: string;
  };
}

/** `git: discovery` — the workspace's git facts were read for a request context. */
export interface GitDiscoveryEvent {
  readonly kind: "git-discovery";
  readonly elapsedMs: number;
  /** How long `git status` took (0 outside a repository). */
  readonly statusMs: number;
  readonly statusComplete: boolean;
  readonly repos: number;
}

/** `git: \`…\` timed out after Nms` — a git command ran into its time limit. */
export interface GitTimeoutEvent {
  readonly kind: "git-timeout";
  /** The arguments after `git`. */
  readonly command: string;
  readonly timeoutMs: number;
}

/** `git: unavailable` — this runtime runs no git (the web entry). */
export interface GitUnavailableEvent {
  readonly kind: "git-unavailable";
}

/** `workspace facts: reused ageMs=` — a build within the reuse window took the last discovery. */
export interface WorkspaceFactsReusedEvent {
  readonly kind: "workspace-facts-reused";
  readonly ageMs: number;
}

/** `resuming Run from checkpoint:` — an interrupted turn resumes from its eligible checkpoint. */
export interface ResumeEvent {
  readonly kind: "resume";
  readonly conversationId: string;
  readonly attempt: number;
  /** Which retry allowance the resume used. */
  readonly retry: string;
  readonly code: string;
  readonly delayMs: number;
  readonly checkpointLen: number;
  /** Resumed attempts in a row that streamed without saving a checkpoint. */
  readonly resumesWithoutCheckpoint: number;
  readonly limit: number;
}

/** Every debug line of the direct backend. */
export type DiagnosticEvent =
  | OutboundRunEvent
  | HashEvent
  | ConversationResetEvent
  | ContextEpochEvent
  | CheckpointUnusableEvent
  | HeldRunReleasedEvent
  | ContinuationEvent
  | CallFailedEvent
  | RunWarningEvent
  | ExecRefusedEvent
  | ExecAbortedEvent
  | CheckpointStoredEvent
  | TurnEndedRawEvent
  | FinishEvent
  | UsageValidationEvent
  | CacheDiagnosisEvent
  | ContextWarningEvent
  | BillingStepEvent
  | BillingTurnRealEvent
  | PersistenceRestoredEvent
  | PersistenceOutcomeEvent
  | CompactionEvent
  | ImageCatalogueEvent
  | FreshTurnEvent
  | DrainEvent
  | RunInterruptedEvent
  | RebaseEvent
  | DisplayToolErrorEvent
  | GitDiscoveryEvent
  | GitTimeoutEvent
  | GitUnavailableEvent
  | WorkspaceFactsReusedEvent
  | ResumeEvent;
