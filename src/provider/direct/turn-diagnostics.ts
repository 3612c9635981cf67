/**
 * The debug lines written when a `doStream` pass finishes (see the cache and token log
 * runbook): `checkpoint: stored`, `turn_ended raw wire fields:`, `finish:`,
 * `turn usage validation:` and, for a completed Run, `cache diagnosis:`.
 *
 * @module
 */
import type { FinishLog } from "./finish.ts";
import { finishLine } from "./debug-lines.ts";
import { toolsCategoryChurn } from "./capability-epoch.ts";
import type { TurnStreamContext } from "./turn-stream-context.ts";

/** Inputs of {@link turnDiagnostics}. */
export interface DiagnosticsInputs {
  readonly context: TurnStreamContext;
  readonly finish: { readonly log: FinishLog };
  readonly outcome: "tool-calls" | "turn-ended";
}

/**
 * The lines for one finished pass.
 *
 * @param inputs The pass's context, finish and outcome.
 * @returns Log lines, in order.
 */
export function turnDiagnostics(inputs: DiagnosticsInputs): string[] {
  const { context, finish, outcome } = inputs;
  const { turn } = context;
  const state = turn.state;
  const lines: string[] = [];
  const sessionKey = context.diagnostics.sessionKey;
  if (outcome === "turn-ended" && state.latestCheckpoint && state.latestCheckpoint.length > 0) {
    lines.push(
      `checkpoint: stored sessionKey=${sessionKey} conversationId=${turn.conversationId} bytes=${state.latestCheckpoint.length} context=${
        state.latestUsed ?? 0
      }/${state.latestMax ?? 0} categories=${categoriesText(state.latestCategories)}`,
    );
  }
  const c = state.counters;
  if (outcome === "turn-ended" && c) {
    const present = new Set(c.present);
    const field = (n: number, label: string, key: typeof c.present[number], value: number) =>
      `f${n}:${label}${present.has(key) ? "" : "0"}=${value}`;
    lines.push(
      `turn_ended raw wire fields: ${field(1, "in", "input", c.inputTokens)} ${
        field(2, "out", "output", c.outputTokens)
      } ${field(3, "cr", "cacheRead", c.cacheReadTokens)} ${
        field(4, "wt", "cacheWrite", c.cacheWriteTokens)
      } ${field(5, "rs", "reasoning", c.reasoningTokens)}`,
    );
  }
  lines.push(finishLine(finish.log));
  lines.push(usageValidation(inputs));
  if (outcome === "turn-ended") lines.push(cacheDiagnosis(inputs));
  return lines;
}

function usageValidation({ context, finish }: DiagnosticsInputs): string {
  const state = context.turn.state;
  const log = finish.log;
  const used = state.latestUsed ?? context.turn.priorUsed;
  const sentTotal = log.v3In + log.v3Out;
  const occupancyTotal = used ?? 0;
  const categorySum = state.latestCategories
    ? Object.values(state.latestCategories).reduce((a, b) => a + b, 0)
    : undefined;
  const breakdownMatch = categorySum === undefined
    ? "unavailable"
    : categorySum !== (state.latestBreakdownTotal ?? categorySum)
    ? "false"
    : state.latestBreakdownTotal !== undefined && state.latestBreakdownTotal !== state.latestUsed
    ? "stale"
    : "true";
  const partitionOk = log.v3In ===
    (log.v3CacheRead + log.v3CacheWrite + (log.v3In - log.v3CacheRead - log.v3CacheWrite));
  const totalOk = used === undefined || log.source === "intermediate-zero" ||
    log.source === "unavailable" || sentTotal === occupancyTotal;
  const status = partitionOk && totalOk && breakdownMatch !== "false" ? "ok" : "mismatch";
  const inputBase = Math.max(occupancyTotal - 1, 0);
  const occupancyCachedRatio = inputBase > 0
    ? Math.min(log.v3CacheRead + log.v3CacheWrite, inputBase) / inputBase
    : 0;
  const sentCachedRatio = log.v3In > 0 ? (log.v3CacheRead + log.v3CacheWrite) / log.v3In : 0;
  const percent = used !== undefined && state.latestMax
    ? ((100 * used) / state.latestMax).toFixed(1)
    : "0.0";
  return [
    `turn usage validation: sessionKey=${context.diagnostics.sessionKey}`,
    `status=${status}`,
    `source=${log.source}`,
    `cursor=${used ?? 0}/${state.latestMax ?? 0}(${percent}%)`,
    `occupancyTotal=${occupancyTotal}`,
    `sentTotal=${sentTotal}`,
    `occupancyCachedRatio=${occupancyCachedRatio.toFixed(3)}`,
    `sentCachedRatio=${sentCachedRatio.toFixed(3)}`,
    `breakdownMatch=${breakdownMatch}`,
  ].join(" ");
}

function cacheDiagnosis({ context }: DiagnosticsInputs): string {
  const { turn } = context;
  const state = turn.state;
  const c = state.counters;
  const rawInput = c?.inputTokens ?? 0;
  const rawCacheRead = c?.cacheReadTokens ?? 0;
  const rawCacheWrite = c?.cacheWriteTokens ?? 0;
  const rawUncached = Math.max(rawInput - rawCacheRead - rawCacheWrite, 0);
  const prior = turn.priorUsed ?? 0;
  const current = state.latestUsed ?? prior;
  const ratio = (part: number) => (rawInput > 0 ? ((100 * part) / rawInput).toFixed(1) : "0.0");
  const activity = turn.run.activity;
  return [
    `cache diagnosis: sessionKey=${context.diagnostics.sessionKey}`,
    `conversationId=${turn.conversationId}`,
    `conversationGroupId=${context.conversation?.groupId ?? turn.conversationId}`,
    `model=${turn.modelId}`,
    `continuity=${context.diagnostics.continuity}`,
    ...(context.diagnostics.coldReason ? [`coldReason=${context.diagnostics.coldReason}`] : []),
    `requestContext=${context.diagnostics.requestContext}`,
    `requestContextHash=${context.diagnostics.requestContextHash}`,
    `systemPromptHash=${context.diagnostics.systemPromptHash}`,
    `systemPromptSent=${context.diagnostics.systemPromptSent}`,
    `rawInput=${rawInput}`,
    `rawCacheRead=${rawCacheRead}`,
    `rawCacheWrite=${rawCacheWrite}`,
    `rawUncached=${rawUncached}`,
    `rawReadRatio=${ratio(rawCacheRead)}`,
    `rawWriteRatio=${ratio(rawCacheWrite)}`,
    `priorContext=${prior}`,
    `currentContext=${current}`,
    `contextDelta=${current - prior}`,
    `rawReadVsPriorContext=${prior > 0 ? (rawCacheRead / prior).toFixed(2) : "0.00"}x`,
    `categoryDelta=${categoryDelta(turn.priorCategories, state.latestCategories)}`,
    `toolsCategoryChurn=${
      toolsCategoryChurn(
        turn.priorCategories,
        state.latestCategories,
        context.diagnostics.requestContext,
      )
    }`,
    `checkpointUpdates=${activity.checkpointUpdates}`,
    `tokenDetailUpdates=${activity.tokenDetailUpdates}`,
    `pumpPasses=${turn.pumpPasses}`,
    `steps=${activity.stepsStarted}/${activity.stepsCompleted}`,
    `displayToolCalls=${activity.displayToolCalls}`,
    `execRequests=${activity.execRequests}`,
    `toolCalls=${turn.toolCalls}`,
    "perModelCallCache=unavailable",
  ].join(" ");
}

function categoriesText(categories: Record<string, number> | undefined): string {
  if (!categories) return "{}";
  return `{${Object.entries(categories).map(([k, v]) => `${k}:${v}`).join(",")}}`;
}

function categoryDelta(
  prior: Record<string, number> | undefined,
  current: Record<string, number> | undefined,
): string {
  if (!current) return "{}";
  const parts: string[] = [];
  for (const [id, tokens] of Object.entries(current)) {
    const before = prior?.[id];
    parts.push(
      before === undefined
        ? `${id}:new`
        : `${id}:${tokens - before >= 0 ? "+" : ""}${tokens - before}`,
    );
  }
  for (const id of Object.keys(prior ?? {})) if (!(id in current)) parts.push(`${id}:removed`);
  return `{${parts.join(",")}}`;
}
