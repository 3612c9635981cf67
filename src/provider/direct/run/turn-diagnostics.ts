/**
 * The diagnostic events of a finished `doStream` pass (see the cache and token log
 * runbook): `checkpoint: stored`, `turn_ended raw wire fields:`, `finish:`,
 * `turn usage validation:` and, for a completed Run, `cache diagnosis:`.
 *
 * @module
 */
import type { DiagnosticEvent } from "../diagnostics/events.ts";
import type {
  CacheDiagnosisEvent,
  FinishEvent,
  UsageMode,
  UsageValidationEvent,
} from "../diagnostics/usage-events.ts";
import type { PassContext } from "./pass-context.ts";
import { SYSTEM_RULE_PATH } from "../../../agent-run/request-context.ts";
import { toolsCategoryChurn } from "../turn-plan/capability-epoch.ts";

/** Inputs of {@link turnDiagnostics}. */
export interface DiagnosticsInputs {
  readonly context: PassContext;
  readonly finish: FinishEvent;
  readonly outcome: "tool-calls" | "turn-ended";
  readonly mode: UsageMode;
}

/**
 * The events of one finished pass.
 *
 * @param inputs The pass's context, finish, outcome and usage mode.
 * @returns Events, in log order.
 */
export function turnDiagnostics(inputs: DiagnosticsInputs): DiagnosticEvent[] {
  const { context, finish, outcome } = inputs;
  const { turn } = context;
  const state = turn.state;
  const failures = turn.run.takeDisplayFailures();
  const events: DiagnosticEvent[] = failures.map((failure) => ({
    kind: "display-tool-error",
    ...failure,
  }));
  const sessionKey = context.diagnostics.sessionKey;
  if (outcome === "turn-ended" && state.latestCheckpoint && state.latestCheckpoint.length > 0) {
    events.push({
      kind: "checkpoint-stored",
      sessionKey,
      conversationId: turn.conversationId,
      bytes: state.latestCheckpoint.length,
      used: state.latestUsed ?? 0,
      max: state.latestMax ?? 0,
      categories: state.latestCategories,
    });
  }
  const c = state.counters;
  if (outcome === "turn-ended" && c) {
    const present = new Set(c.present);
    events.push({
      kind: "turn-ended-raw",
      input: { value: c.inputTokens, present: present.has("input") },
      output: { value: c.outputTokens, present: present.has("output") },
      cacheRead: { value: c.cacheReadTokens, present: present.has("cacheRead") },
      cacheWrite: { value: c.cacheWriteTokens, present: present.has("cacheWrite") },
      reasoning: { value: c.reasoningTokens, present: present.has("reasoning") },
    });
  }
  const warning = outcome === "turn-ended" ? rulesWarning(context) : undefined;
  if (warning) events.push(warning);
  events.push(finish);
  events.push(usageValidation(inputs));
  if (outcome === "turn-ended") events.push(cacheDiagnosis(inputs));
  return events;
}

/** Cursor's checkpoint counted no rule tokens while the Run's request context held its rule. */
function rulesWarning(context: PassContext): DiagnosticEvent | undefined {
  const rules = context.turn.state.latestCategories?.rules;
  const rule = context.conversation?.requestContext?.message.rules.find((r) =>
    r.fullPath === SYSTEM_RULE_PATH
  );
  if (rules !== 0 || rule === undefined || rule.content.length === 0) return undefined;
  return {
    kind: "context-warning",
    sessionKey: context.diagnostics.sessionKey,
    conversationId: context.turn.conversationId,
    ruleChars: rule.content.length,
  };
}

function breakdownMatch(
  state: PassContext["turn"]["state"],
): UsageValidationEvent["breakdownMatch"] {
  if (!state.latestCategories) return "unavailable";
  const sum = Object.values(state.latestCategories).reduce((a, b) => a + b, 0);
  const total = state.latestBreakdownTotal;
  if (total !== undefined && sum !== total) return "false";
  return total !== undefined && total !== state.latestUsed ? "stale" : "true";
}

function usageValidation({ context, finish, mode }: DiagnosticsInputs): UsageValidationEvent {
  const state = context.turn.state;
  const used = state.latestUsed ?? context.turn.priorUsed;
  const sentTotal = finish.v3In + finish.v3Out;
  const occupancyTotal = used ?? 0;
  const match = breakdownMatch(state);
  const partitionOk = finish.v3CacheRead + finish.v3CacheWrite <= finish.v3In;
  const raw = finish.raw;
  const rawTotal = raw ? raw.input + raw.output : 0;
  const totalOk = mode === "request"
    ? (finish.reason === "stop" && raw
      ? sentTotal === Math.max(raw.output, raw.reasoning) +
          raw.input
      : sentTotal === 0)
    : used === undefined || finish.source === "intermediate-zero" ||
      finish.source === "unavailable" || sentTotal === occupancyTotal;
  const inputBase = Math.max(occupancyTotal - 1, 0);
  const withoutDetails = used === undefined && raw !== undefined;
  return {
    kind: "usage-validation",
    sessionKey: context.diagnostics.sessionKey,
    status: partitionOk && totalOk && match !== "false" ? "ok" : "mismatch",
    source: finish.source,
    used: used ?? 0,
    max: state.latestMax ?? 0,
    occupancyTotal,
    sentTotal,
    occupancyCachedRatio: inputBase > 0
      ? Math.min(finish.v3CacheRead + finish.v3CacheWrite, inputBase) / inputBase
      : 0,
    sentCachedRatio: finish.v3In > 0 ? (finish.v3CacheRead + finish.v3CacheWrite) / finish.v3In : 0,
    ...(withoutDetails && raw
      ? {
        raw: {
          total: rawTotal,
          cachedRatio: raw.input > 0 ? (raw.cacheRead + raw.cacheWrite) / raw.input : 0,
        },
      }
      : {}),
    breakdownMatch: match,
    mode,
  };
}

function cacheDiagnosis({ context }: DiagnosticsInputs): CacheDiagnosisEvent {
  const { turn } = context;
  const state = turn.state;
  const c = state.counters;
  const rawInput = c?.inputTokens ?? 0;
  const rawCacheRead = c?.cacheReadTokens ?? 0;
  const rawCacheWrite = c?.cacheWriteTokens ?? 0;
  const prior = turn.priorUsed ?? 0;
  const activity = turn.run.activity;
  const facts = context.diagnostics;
  return {
    kind: "cache-diagnosis",
    sessionKey: facts.sessionKey,
    conversationId: turn.conversationId,
    conversationGroupId: context.conversation?.groupId ?? turn.conversationId,
    model: turn.modelId,
    continuity: facts.continuity,
    coldReason: facts.coldReason,
    requestContext: facts.requestContext,
    requestContextHash: facts.requestContextHash,
    systemPromptHash: facts.systemPromptHash,
    systemPromptSent: facts.systemPromptSent,
    rawInput,
    rawCacheRead,
    rawCacheWrite,
    rawUncached: Math.max(rawInput - rawCacheRead - rawCacheWrite, 0),
    priorContext: prior,
    currentContext: state.latestUsed ?? prior,
    sameSizedCategoryTokens: sameSized(turn.priorCategories, state.latestCategories),
    categoryDelta: categoryDelta(turn.priorCategories, state.latestCategories),
    toolsCategoryChurn: toolsCategoryChurn(
      turn.priorCategories,
      state.latestCategories,
      facts.requestContext,
    ),
    ...(facts.skillsAppended ? { skillsAppended: facts.skillsAppended } : {}),
    ...interactionTags(activity, c),
    checkpointUpdates: activity.checkpointUpdates,
    tokenDetailUpdates: activity.tokenDetailUpdates,
    pumpPasses: turn.pumpPasses,
    stepsStarted: activity.stepsStarted,
    stepsCompleted: activity.stepsCompleted,
    displayToolCalls: activity.displayToolCalls,
    execRequests: activity.execRequests,
    toolCalls: turn.toolCalls,
  };
}

/**
 * `createPlanInTurn` / `switchModeInTurn`, and `turnEndedCacheRead=zero-interaction` when
 * such a Run's TurnEnded reported no cache read (kept as reported; not evidence either way).
 */
function interactionTags(
  activity: PassContext["turn"]["run"]["activity"],
  counters: PassContext["turn"]["state"]["counters"],
): Pick<CacheDiagnosisEvent, "createPlanInTurn" | "switchModeInTurn" | "zeroInteractionCacheRead"> {
  const interaction = activity.createPlanInRun || activity.switchModeInRun;
  return {
    ...(activity.createPlanInRun ? { createPlanInTurn: true } : {}),
    ...(activity.switchModeInRun ? { switchModeInTurn: true } : {}),
    ...(interaction && counters !== undefined && counters.cacheReadTokens === 0
      ? { zeroInteractionCacheRead: true }
      : {}),
  };
}

function sameSized(
  prior: Record<string, number> | undefined,
  current: Record<string, number> | undefined,
): number {
  let sum = 0;
  for (const [id, tokens] of Object.entries(current ?? {})) {
    if (prior?.[id] === tokens) sum += tokens;
  }
  return sum;
}

function categoryDelta(
  prior: Record<string, number> | undefined,
  current: Record<string, number> | undefined,
): Record<string, number | "new" | "removed"> | undefined {
  if (!current) return undefined;
  const delta: Record<string, number | "new" | "removed"> = {};
  for (const [id, tokens] of Object.entries(current)) {
    const before = prior?.[id];
    delta[id] = before === undefined ? "new" : tokens - before;
  }
  for (const id of Object.keys(prior ?? {})) if (!(id in current)) delta[id] = "removed";
  return delta;
}
