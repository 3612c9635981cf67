/**
 * The debug log's usage and billing lines as data: the raw TurnEnded counters, each
 * finish's usage and its validation, the cache diagnosis, and the billing records (see
 * the cache and token log runbook). `DiagnosticEvent` in `events.ts` unites them
 * with every other line.
 *
 * @module
 */
import type { BillingRecord, TurnRealRecord } from "../../../billing/ledger.ts";

/** One TurnEnded counter as it arrived (absent counters read 0 and print `…0=`). */
export interface WireCounter {
  readonly value: number;
  readonly present: boolean;
}

/** `turn_ended raw wire fields:`. */
export interface TurnEndedRawEvent {
  readonly kind: "turn-ended-raw";
  readonly input: WireCounter;
  readonly output: WireCounter;
  readonly cacheRead: WireCounter;
  readonly cacheWrite: WireCounter;
  readonly reasoning: WireCounter;
}

/** Where a finish's usage came from (runbook `source=`). */
export type FinishSource =
  | "checkpoint-current-run"
  | "checkpoint-previous-turn"
  | "unavailable"
  | "occupancy-checkpoint-current-run"
  | "occupancy-checkpoint-previous-turn"
  | "intermediate-zero";

/** Which usage shape a finish reports. */
export type UsageMode = "occupancy" | "request";

/** Cursor's TurnEnded counters of a whole held Run. */
export interface RawCounters {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly reasoning: number;
}

/** `finish:` — the usage sent to the host and the counters behind it. */
export interface FinishEvent {
  readonly kind: "finish";
  readonly reason: "stop" | "tool-calls" | "error";
  readonly source: FinishSource;
  readonly v3In: number;
  readonly v3Out: number;
  readonly v3CacheRead: number;
  readonly v3CacheWrite: number;
  /** TurnEnded counters (printed with `reason=stop`). */
  readonly raw: RawCounters | undefined;
  readonly occupancyPrefixCache: number;
  /** The step's occupancy split (tool-call finishes with a snapshot). */
  readonly occupancy?: {
    readonly input: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
  };
  /** The char/4 estimate (tool-call finishes before any token details). */
  readonly estimate?: { readonly input: number; readonly output: number };
}

/** `turn usage validation:`. */
export interface UsageValidationEvent {
  readonly kind: "usage-validation";
  readonly sessionKey: string;
  readonly status: "ok" | "mismatch";
  readonly source: FinishSource;
  readonly used: number;
  readonly max: number;
  readonly occupancyTotal: number;
  readonly sentTotal: number;
  readonly occupancyCachedRatio: number;
  readonly sentCachedRatio: number;
  /** Aggregate TurnEnded input + output, only for a finish without token details. */
  readonly raw?: { readonly total: number; readonly cachedRatio: number };
  readonly breakdownMatch: "true" | "false" | "stale" | "unavailable";
  readonly mode: UsageMode;
}

/** `cache diagnosis:` — one completed Run. */
export interface CacheDiagnosisEvent {
  readonly kind: "cache-diagnosis";
  readonly sessionKey: string;
  readonly conversationId: string;
  readonly conversationGroupId: string;
  readonly model: string;
  readonly continuity: string;
  readonly coldReason: string | undefined;
  readonly requestContext: string;
  readonly requestContextHash: string;
  readonly systemPromptHash: string;
  readonly systemPromptSent: boolean;
  readonly rawInput: number;
  readonly rawCacheRead: number;
  readonly rawCacheWrite: number;
  readonly rawUncached: number;
  readonly priorContext: number;
  readonly currentContext: number;
  /** Sum of current categories whose token count equals the prior checkpoint's (sizes only). */
  readonly sameSizedCategoryTokens: number;
  /** Per category: the token change, or whether it appeared or disappeared. */
  readonly categoryDelta: Readonly<Record<string, number | "new" | "removed">> | undefined;
  /** `none`, `upstream-stable-overlay` or `client-overlay-changed`, once capability epochs report it. */
  readonly toolsCategoryChurn?: string;
  /** Skills appended to the conversation's by this Run (capability epoch), when any. */
  readonly skillsAppended?: number;
  /** A CreatePlan interaction happened in this Run. */
  readonly createPlanInTurn?: boolean;
  /** A SwitchMode interaction happened in this Run. */
  readonly switchModeInTurn?: boolean;
  /** TurnEnded reported no cache read for a turn with a plan or mode interaction. */
  readonly zeroInteractionCacheRead?: boolean;
  readonly checkpointUpdates: number;
  readonly tokenDetailUpdates: number;
  readonly pumpPasses: number;
  readonly stepsStarted: number;
  readonly stepsCompleted: number;
  readonly displayToolCalls: number;
  readonly execRequests: number;
  readonly toolCalls: number;
}

/** `context warning:` — Cursor counted no rule tokens although the Run sent its rule. */
export interface ContextWarningEvent {
  readonly kind: "context-warning";
  readonly sessionKey: string;
  readonly conversationId: string;
  /** Characters of the system-instructions rule the Run sent. */
  readonly ruleChars: number;
}

/** `billing: step=…` — a finish's charge and the session totals. */
export type BillingStepEvent = { readonly kind: "billing-step" } & BillingRecord;

/** `billing: turn real=…` — a Run's terminal counters priced. */
export type BillingTurnRealEvent = { readonly kind: "billing-turn-real" } & TurnRealRecord;
