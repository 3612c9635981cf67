/**
 * The debug log's `billing:` lines (see the cache and token log runbook): `key=value`
 * fields separated by spaces, amounts in USD with six decimals.
 *
 * ```text
 * billing: turn real=0.051750 sessionKey=ses_1 run=run-1 model=claude-4.5-sonnet replacedEstimateUsd=0.030000 sessionRealUsd=0.051750 sessionBilledUsd=0.030000 sessionEstimatedUsd=0.000000 outstandingUsd=0.021750
 * billing: step=turn-end sessionKey=ses_1 run=run-1 model=claude-4.5-sonnet dueUsd=0.021750 stepUsd=0.021750 sessionRealUsd=0.051750 sessionBilledUsd=0.051750 sessionEstimatedUsd=0.000000 outstandingUsd=0.000000 delivered=true
 * ```
 *
 * @module
 */
import type { BillingRecord, TurnRealRecord } from "./ledger.ts";
import { nanoAiuToUsd } from "./rates.ts";

/**
 * An amount as the log prints it.
 *
 * @param nanoAiu An amount in nano-AIU.
 * @returns USD with six decimals (`0.003760`, `-0.000125`).
 *
 * @example
 * ```ts
 * import { formatUsd } from "./billing-line.ts";
 *
 * console.assert(formatUsd(376_000_000) === "0.003760");
 * ```
 */
export function formatUsd(nanoAiu: number): string {
  const text = nanoAiuToUsd(nanoAiu).toFixed(6);
  return text === "-0.000000" ? "0.000000" : text;
}

/**
 * The `billing: step=…` line of a committed finish.
 *
 * @param record What the ledger recorded.
 * @returns The line text.
 *
 * @example
 * ```ts
 * import { billingLine } from "./billing-line.ts";
 * import { createBillingLedger } from "./ledger.ts";
 *
 * const ledger = createBillingLedger("ses_1");
 * const quote = ledger.quoteEstimate({ runId: "run-1", model: "default", costNanoAiu: undefined });
 * console.assert(billingLine(ledger.commit(quote, true)).endsWith("delivered=true pricing=unpriced"));
 * ```
 */
export function billingLine(record: BillingRecord): string {
  const fields = [
    `billing: step=${record.step}`,
    `sessionKey=${record.sessionKey}`,
    `run=${record.runId}`,
    `model=${record.model}`,
  ];
  if (record.priced) {
    const target = record.step === "estimate" ? "estimateUsd" : "dueUsd";
    fields.push(`${target}=${formatUsd(record.targetNanoAiu)}`);
  }
  fields.push(
    `stepUsd=${formatUsd(record.stepNanoAiu)}`,
    ...totalsFields(record),
    `delivered=${record.delivered}`,
  );
  if (!record.priced) fields.push("pricing=unpriced");
  return fields.join(" ");
}

/**
 * The `billing: turn real=…` line of a Run's priced terminal counters.
 *
 * @param record What the ledger recorded.
 * @returns The line text.
 *
 * @example
 * ```ts
 * import { turnRealLine } from "./billing-line.ts";
 * import { createBillingLedger } from "./ledger.ts";
 *
 * const ledger = createBillingLedger("ses_1");
 * const record = ledger.confirmRun({ runId: "run-1", model: "gpt-5", realNanoAiu: 376_000_000 });
 * console.assert(turnRealLine(record).startsWith("billing: turn real=0.003760 sessionKey=ses_1"));
 * ```
 */
export function turnRealLine(record: TurnRealRecord): string {
  return [
    `billing: turn real=${formatUsd(record.turnRealNanoAiu)}`,
    `sessionKey=${record.sessionKey}`,
    `run=${record.runId}`,
    `model=${record.model}`,
    `replacedEstimateUsd=${formatUsd(record.replacedEstimateNanoAiu)}`,
    ...totalsFields(record),
  ].join(" ");
}

function totalsFields(record: BillingRecord | TurnRealRecord): string[] {
  return [
    `sessionRealUsd=${formatUsd(record.realNanoAiu)}`,
    `sessionBilledUsd=${formatUsd(record.billedNanoAiu)}`,
    `sessionEstimatedUsd=${formatUsd(record.estimatedNanoAiu)}`,
    `outstandingUsd=${formatUsd(record.outstandingNanoAiu)}`,
  ];
}
