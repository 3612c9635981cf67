/**
 * The one formatter of the debug log: a {@link DiagnosticEvent} to its runbook line
 * (`key=value` fields separated by spaces, so `rg` and `awk` read them), and the one way
 * events reach a logger.
 *
 * @module
 */
import type { DebugLogger } from "../../../core/logger.ts";
import { billingLine, turnRealLine } from "../../../billing/billing-line.ts";
import type {
  DiagnosticEvent,
  DisplayToolErrorEvent,
  DrainEvent,
  FreshTurnEvent,
  RebaseEvent,
  ResumeEvent,
  RunInterruptedEvent,
} from "./events.ts";
import type {
  CacheDiagnosisEvent,
  FinishEvent,
  TurnEndedRawEvent,
  UsageValidationEvent,
  WireCounter,
} from "./usage-events.ts";

/**
 * The runbook text of an event.
 *
 * @param event The event.
 * @returns The line, without timestamp or newline.
 *
 * @example
 * ```ts
 * import { formatDiagnostic } from "./format.ts";
 *
 * const text = formatDiagnostic({ kind: "held-run-released", conversationId: "c1", reason: "expired" });
 * console.assert(text === "held Run released: conversationId=c1 reason=expired");
 * ```
 */
export function formatDiagnostic(event: DiagnosticEvent): string {
  switch (event.kind) {
    case "outbound-run":
      return [
        "outbound Run:",
        `sessionKey=${event.sessionKey}`,
        `conversationId=${event.conversationId}`,
        `model=${event.model}`,
        `transport=${event.transport}`,
        `reset=${event.reset}`,
        `resume=${event.resume}`,
        `checkpointLen=${event.checkpointLen}`,
        `requestContext=${event.requestContext}`,
        `requestContextLen=${event.requestContextLen}`,
        `systemPromptSent=${event.systemPromptSent}`,
      ].join(" ");
    case "hash":
      return `hash ${event.subject} sha256=${event.sha256} ${
        event.sent === undefined ? `bytes=${event.bytes ?? 0}` : `sent=${event.sent}`
      }`;
    case "conversation-reset":
      return `conversation reset: reason=${event.reason} sessionKey=${event.sessionKey} conversationId=${event.conversationId} conversationGroupId=${event.conversationGroupId}`;
    case "context-epoch":
      return `context epoch: reason=${event.reason} sessionKey=${event.sessionKey} conversationId=${event.conversationId} sent=${
        JSON.stringify(event.sent)
      } removed=${JSON.stringify(event.removed)}`;
    case "checkpoint-unusable":
      return `checkpoint unusable: conversationId=${event.conversationId} code=${event.code} checkpointLen=${event.checkpointLen} (Cursor asked for a blob this client does not hold; reseeding)`;
    case "held-run-released":
      return `held Run released: conversationId=${event.conversationId} reason=${event.reason}${
        event.pending === undefined ? "" : ` pending=${event.pending}`
      }`;
    case "continuation":
      return `continuation: ${event.toolNames.length} interrupted trailing tool result(s) [${
        event.toolNames.join(",")
      }] heldRun=${event.heldRun}${event.reason === undefined ? "" : ` reason=${event.reason}`}`;
    case "call-failed":
      return `call failed: ${event.message}`;
    case "run-warning":
      return `run warning: ${event.message}`;
    case "exec-refused":
      return `exec refused: case=${event.execCase} reason=${JSON.stringify(event.reason)}`;
    case "exec-aborted":
      return `exec aborted by Cursor: id=${event.execId} toolCallId=${event.toolCallId}`;
    case "checkpoint-stored":
      return `checkpoint: stored sessionKey=${event.sessionKey} conversationId=${event.conversationId} bytes=${event.bytes} context=${event.used}/${event.max} categories=${
        categoriesText(event.categories)
      }`;
    default:
      return laterText(event);
  }
}

/** The kinds whose lines {@link formatDiagnostic} writes itself: a Run's start and its execs. */
type RunLineKind =
  | "outbound-run"
  | "hash"
  | "conversation-reset"
  | "context-epoch"
  | "checkpoint-unusable"
  | "held-run-released"
  | "continuation"
  | "call-failed"
  | "run-warning"
  | "exec-refused"
  | "exec-aborted"
  | "checkpoint-stored";

/** The lines of a turn's end, billing, persistence, git and recovery. */
function laterText(event: Exclude<DiagnosticEvent, { kind: RunLineKind }>): string {
  switch (event.kind) {
    case "turn-ended-raw":
      return turnEndedRawText(event);
    case "finish":
      return finishText(event);
    case "usage-validation":
      return usageValidationText(event);
    case "cache-diagnosis":
      return cacheDiagnosisText(event);
    case "context-warning":
      return `context warning: Cursor counted rules=0 although this Run sent the ${event.ruleChars}-character system-instructions rule sessionKey=${event.sessionKey} conversationId=${event.conversationId}`;
    case "billing-step":
      return billingLine(event);
    case "billing-turn-real":
      return turnRealLine(event);
    case "persistence-restored":
      return `conversation persistence: restored sessionKey=${event.sessionKey} conversationId=${event.conversationId} conversationGroupId=${event.conversationGroupId} blobs=${event.blobs} bytes=${event.bytes} ageMs=${event.ageMs} restoreMs=${event.restoreMs}`;
    case "persistence-outcome":
      return `conversation persistence: ${event.status} sessionKey=${event.sessionKey}${
        event.reason === undefined ? "" : ` reason=${event.reason}`
      }`;
    case "compaction":
      return `compaction=true sessionKey=${event.sessionKey ?? "none"} conversationId=${
        event.conversationId ?? "none"
      } conversationGroupId=${event.conversationGroupId ?? "none"} run=ephemeral`;
    case "image-catalogue-unreadable":
      return `images: catalogue unreadable (${event.errorName})`;
    case "display-tool-error":
      return displayToolErrorText(event);
    case "git-discovery":
      return `git: discovery elapsedMs=${event.elapsedMs} statusMs=${event.statusMs} statusComplete=${event.statusComplete} repos=${event.repos}`;
    case "git-timeout":
      return `git: \`${event.command}\` timed out after ${event.timeoutMs}ms`;
    case "git-unavailable":
      return "git: unavailable in this runtime (web entry): the request context carries no git facts";
    case "workspace-facts-reused":
      return `workspace facts: reused ageMs=${event.ageMs}`;
    default:
      return recoveryText(event);
  }
}

/**
 * Writes an event to a logger: as a typed record when the sink takes records, else as
 * its text line.
 *
 * @param logger The debug logger.
 * @param event The event.
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "../../../core/logger.ts";
 * import { emitDiagnostic } from "./format.ts";
 *
 * const { logger, lines } = createMemoryLogger();
 * emitDiagnostic(logger, { kind: "run-warning", message: "slow" });
 * console.assert(lines[0] === "run warning: slow");
 * ```
 */
export function emitDiagnostic(logger: DebugLogger, event: DiagnosticEvent): void {
  if (!logger.enabled) return;
  const text = formatDiagnostic(event);
  if (logger.record) logger.record(event, text);
  else logger.line(text);
}

function recoveryText(
  event: FreshTurnEvent | DrainEvent | RunInterruptedEvent | RebaseEvent | ResumeEvent,
): string {
  switch (event.kind) {
    case "fresh-turn":
      return `fresh turn: cancelled ${event.cancelled} pending exec(s) delivered=${event.delivered} conversationId=${event.conversationId}`;
    case "drain":
      return `drain outcome=${event.outcome} conversationId=${event.conversationId} discardedChars=${event.discardedChars}`;
    case "run-interrupted":
      return `Run interrupted: conversationId=${event.conversationId} code=${event.code} streamedChars=${event.streamedChars} replaySafe=${event.replaySafe} checkpoints=${event.checkpoints}`;
    case "rebase":
      return `rebasing fresh Run: conversationId=${event.conversationId} attempt=${event.attempt} retry=${event.retry} code=${event.code} delayMs=${event.delayMs} resume=false`;
    case "resume":
      return `resuming Run from checkpoint: conversationId=${event.conversationId} attempt=${event.attempt} retry=${event.retry} code=${event.code} delayMs=${event.delayMs} checkpointLen=${event.checkpointLen} resumesWithoutCheckpoint=${event.resumesWithoutCheckpoint}/${event.limit} resume=true`;
  }
}

function displayToolErrorText(event: DisplayToolErrorEvent): string {
  const named = (value: string) => value === "" ? "(missing)" : value;
  const mcp = event.mcp === undefined ? [] : [
    `name=${named(event.mcp.name)}`,
    `namespace=${named(event.mcp.providerIdentifier)}`,
    `toolName=${named(event.mcp.toolName)}`,
  ];
  return [
    "display tool_call_completed: ERROR",
    `callId=${JSON.stringify(event.callId)}`,
    `tool=${event.tool}`,
    ...mcp,
    `error=${JSON.stringify(event.error)}`,
  ].join(" ");
}

function turnEndedRawText(event: TurnEndedRawEvent): string {
  const field = (n: number, label: string, counter: WireCounter) =>
    `f${n}:${label}${counter.present ? "" : "0"}=${counter.value}`;
  return `turn_ended raw wire fields: ${field(1, "in", event.input)} ${
    field(2, "out", event.output)
  } ${field(3, "cr", event.cacheRead)} ${field(4, "wt", event.cacheWrite)} ${
    field(5, "rs", event.reasoning)
  }`;
}

function finishText(event: FinishEvent): string {
  const fields = [
    `finish: reason=${event.reason}`,
    `source=${event.source}`,
    `v3In=${event.v3In}`,
    `v3Out=${event.v3Out}`,
    `v3CacheRead=${event.v3CacheRead}`,
    `v3CacheWrite=${event.v3CacheWrite}`,
  ];
  if (event.raw && event.reason === "stop") {
    fields.push(
      `rawIn=${event.raw.input}`,
      `rawOut=${event.raw.output}`,
      `rawCacheRead=${event.raw.cacheRead}`,
      `rawCacheWrite=${event.raw.cacheWrite}`,
      `rawReasoning=${event.raw.reasoning}`,
      `occupancyPrefixCache=${event.occupancyPrefixCache}`,
    );
  }
  if (event.occupancy) {
    fields.push(
      `occupancyIn=${event.occupancy.input}`,
      `occupancyCacheRead=${event.occupancy.cacheRead}`,
      `occupancyCacheWrite=${event.occupancy.cacheWrite}`,
    );
  }
  if (event.estimate) {
    fields.push(`estIn=${event.estimate.input}`, `estOut=${event.estimate.output}`);
  }
  return fields.join(" ");
}

function usageValidationText(event: UsageValidationEvent): string {
  const percent = event.max > 0 ? ((100 * event.used) / event.max).toFixed(1) : "0.0";
  return [
    `turn usage validation: sessionKey=${event.sessionKey}`,
    `status=${event.status}`,
    `source=${event.source}`,
    `cursor=${event.used}/${event.max}(${percent}%)`,
    `occupancyTotal=${event.occupancyTotal}`,
    ...(event.raw ? [`rawTotal=${event.raw.total}`] : []),
    `sentTotal=${event.sentTotal}`,
    event.raw
      ? `rawCachedRatio=${event.raw.cachedRatio.toFixed(3)}`
      : `occupancyCachedRatio=${event.occupancyCachedRatio.toFixed(3)}`,
    `sentCachedRatio=${event.sentCachedRatio.toFixed(3)}`,
    `breakdownMatch=${event.breakdownMatch}`,
    `usage=${event.mode}`,
  ].join(" ");
}

function cacheDiagnosisText(event: CacheDiagnosisEvent): string {
  const ratio = (part: number) =>
    event.rawInput > 0 ? ((100 * part) / event.rawInput).toFixed(1) : "0.0";
  const prior = event.priorContext;
  return [
    `cache diagnosis: sessionKey=${event.sessionKey}`,
    `conversationId=${event.conversationId}`,
    `conversationGroupId=${event.conversationGroupId}`,
    `model=${event.model}`,
    `continuity=${event.continuity}`,
    ...(event.coldReason ? [`coldReason=${event.coldReason}`] : []),
    `requestContext=${event.requestContext}`,
    `requestContextHash=${event.requestContextHash}`,
    `systemPromptHash=${event.systemPromptHash}`,
    `systemPromptSent=${event.systemPromptSent}`,
    `rawInput=${event.rawInput}`,
    `rawCacheRead=${event.rawCacheRead}`,
    `rawCacheWrite=${event.rawCacheWrite}`,
    `rawUncached=${event.rawUncached}`,
    `rawReadRatio=${ratio(event.rawCacheRead)}`,
    `rawWriteRatio=${ratio(event.rawCacheWrite)}`,
    `priorContext=${prior}`,
    `currentContext=${event.currentContext}`,
    `contextDelta=${event.currentContext - prior}`,
    `rawReadVsPriorContext=${prior > 0 ? (event.rawCacheRead / prior).toFixed(2) : "0.00"}x`,
    `sameSizedCategoryTokens=${event.sameSizedCategoryTokens}`,
    `categoryDelta=${categoryDeltaText(event.categoryDelta)}`,
    ...(event.toolsCategoryChurn ? [`toolsCategoryChurn=${event.toolsCategoryChurn}`] : []),
    ...(event.skillsAppended ? [`skillsAppended=${event.skillsAppended}`] : []),
    ...(event.createPlanInTurn ? ["createPlanInTurn=true"] : []),
    ...(event.switchModeInTurn ? ["switchModeInTurn=true"] : []),
    ...(event.zeroInteractionCacheRead
      ? ["turnEndedCacheRead=zero-interaction", "cacheReuseEvidence=unavailable"]
      : []),
    `checkpointUpdates=${event.checkpointUpdates}`,
    `tokenDetailUpdates=${event.tokenDetailUpdates}`,
    `pumpPasses=${event.pumpPasses}`,
    `steps=${event.stepsStarted}/${event.stepsCompleted}`,
    `displayToolCalls=${event.displayToolCalls}`,
    `execRequests=${event.execRequests}`,
    `toolCalls=${event.toolCalls}`,
    "perModelCallCache=unavailable",
  ].join(" ");
}

function categoriesText(categories: Readonly<Record<string, number>> | undefined): string {
  if (!categories) return "{}";
  return `{${Object.entries(categories).map(([k, v]) => `${k}:${v}`).join(",")}}`;
}

function categoryDeltaText(
  delta: Readonly<Record<string, number | "new" | "removed">> | undefined,
): string {
  if (!delta) return "{}";
  const parts = Object.entries(delta).map(([id, change]) =>
    typeof change === "string" ? `${id}:${change}` : `${id}:${change >= 0 ? "+" : ""}${change}`
  );
  return `{${parts.join(",")}}`;
}
