/**
 * The billing ledger wired to finishes (runbook section 3, ADR 080): one ledger per host
 * session, held by the provider's {@link BillingBook}; a tool-call finish bills a step
 * estimate owned by its Run, the Run's TurnEnded counters replace only its own estimates
 * and the turn's last finish bills what is outstanding. The charge travels as
 * `providerMetadata.copilot.totalNanoAiu` (what OpenCode 1.x reads) and
 * `providerMetadata.cursor.billing`; the usage itself is never reshaped to carry it.
 *
 * @module
 */
import type { SharedV3ProviderMetadata } from "@ai-sdk/provider";
import { CURSOR_PRICING } from "../../../billing/cursor-pricing.ts";
import {
  type BillingLedger,
  type BillingQuote,
  type BillingRecord,
  createBillingLedger,
  type TurnRealRecord,
} from "../../../billing/ledger.ts";
import { lookupPrice, type PriceParameter } from "../../../billing/price-lookup.ts";
import { runRealCost, stepEstimateCost } from "../../../billing/step-cost.ts";
import type { TurnCounters } from "../../../agent-run/run-events.ts";

/** Most sessions whose ledgers are kept (the oldest is dropped first). */
const MAX_LEDGERS = 256;

/** The ledgers of one provider, by session, and the Runs they bill. */
export interface BillingBook {
  /** The session's ledger (created on first use). */
  ledger(sessionKey: string): BillingLedger;
  /** A stable id for a Run (one per held turn object), filed under its session. */
  runId(run: object, sessionKey: string): string;
  /** The session a Run was filed under, if it was. */
  sessionOf(run: object): string | undefined;
  /** The context occupancy billed at the Run's previous finish. */
  readonly previousStepUsed: WeakMap<object, number>;
  /** The variant tuple each Run asked for (`fast=true` selects a model's Fast rates). */
  readonly variantOf: WeakMap<object, readonly PriceParameter[]>;
}

/**
 * Creates the billing book of one provider (no module state: it lives in the config).
 *
 * @param newId Makes Run ids.
 * @returns An empty book.
 *
 * @example
 * ```ts
 * import { createBillingBook } from "./turn-billing.ts";
 *
 * const book = createBillingBook(() => "run-1");
 * console.assert(book.ledger("ses_1") === book.ledger("ses_1"));
 * ```
 */
export function createBillingBook(newId: () => string): BillingBook {
  const ledgers = new Map<string, BillingLedger>();
  const runs = new WeakMap<object, { readonly id: string; readonly sessionKey: string }>();
  return {
    ledger(sessionKey) {
      let ledger = ledgers.get(sessionKey);
      if (ledger === undefined) {
        ledger = createBillingLedger(sessionKey);
        ledgers.set(sessionKey, ledger);
        for (const key of ledgers.keys()) {
          if (ledgers.size <= MAX_LEDGERS) break;
          ledgers.delete(key);
        }
      }
      return ledger;
    },
    runId(run, sessionKey) {
      let entry = runs.get(run);
      if (entry === undefined) {
        entry = { id: newId(), sessionKey };
        runs.set(run, entry);
      }
      return entry.id;
    },
    sessionOf(run) {
      return runs.get(run)?.sessionKey;
    },
    previousStepUsed: new WeakMap(),
    variantOf: new WeakMap(),
  };
}

/** What a finish bills. */
export interface FinishBilling {
  readonly sessionKey: string;
  readonly run: object;
  readonly model: string;
  readonly reason: "stop" | "tool-calls";
  readonly counters: TurnCounters | undefined;
  /** Context occupancy now (checkpoint token details), else the estimate's input. */
  readonly contextTokens: number;
  /** Context occupancy at the Run's previous finish, or at its start. */
  readonly previousContextTokens: number;
  readonly outputTokens: number;
}

/** A quoted finish, waiting for its delivery to be known. */
export interface PendingCharge {
  readonly ledger: BillingLedger;
  readonly quote: BillingQuote;
  /** The Run's priced counters, for a turn end. */
  readonly turnReal: TurnRealRecord | undefined;
  /** Provider metadata that carries the charge. */
  readonly metadata: SharedV3ProviderMetadata;
}

/**
 * Quotes a finish's charge; nothing is recorded until {@link commitCharge}.
 *
 * @param book The provider's billing book.
 * @param finish The finish.
 * @returns The pending charge, or `undefined` when the Run can bill nothing more (a Run
 *   that ended without terminal counters, or one already settled).
 */
export function quoteCharge(book: BillingBook, finish: FinishBilling): PendingCharge | undefined {
  const ledger = book.ledger(finish.sessionKey);
  const runId = book.runId(finish.run, finish.sessionKey);
  const price = lookupPrice(CURSOR_PRICING, {
    modelId: finish.model,
    parameters: book.variantOf.get(finish.run),
  });
  try {
    if (finish.reason === "tool-calls") {
      const quote = ledger.quoteEstimate({
        runId,
        model: finish.model,
        costNanoAiu: stepEstimateCost(price, {
          contextTokens: finish.contextTokens,
          previousContextTokens: finish.previousContextTokens,
          outputTokens: finish.outputTokens,
        }),
      });
      return pending(ledger, quote, undefined);
    }
    if (finish.counters === undefined) {
      ledger.interrupt(runId);
      return undefined;
    }
    const real = runRealCost(
      price,
      {
        inputTokens: finish.counters.inputTokens,
        cacheReadTokens: finish.counters.cacheReadTokens,
        cacheWriteTokens: finish.counters.cacheWriteTokens,
        outputTokens: Math.max(finish.counters.outputTokens, finish.counters.reasoningTokens),
      },
      finish.contextTokens,
    );
    const turnReal = real === undefined
      ? undefined
      : ledger.confirmRun({ runId, model: finish.model, realNanoAiu: real });
    const quote = ledger.quoteTurnEnd({ runId, model: finish.model, priced: real !== undefined });
    return pending(ledger, quote, turnReal);
  } catch {
    // The Run is settled or interrupted: it bills nothing more.
    return undefined;
  }
}

/**
 * Records a quoted charge once the consumer accepted (or rejected) the finish.
 *
 * @param charge The pending charge.
 * @param delivered Whether the consumer accepted the finish.
 * @returns The ledger's record, or `undefined` when the ledger moved on meanwhile.
 */
export function commitCharge(charge: PendingCharge, delivered: boolean): BillingRecord | undefined {
  try {
    return charge.ledger.commit(charge.quote, delivered);
  } catch {
    return undefined;
  }
}

/**
 * Marks a Run that ended without terminal counters: its estimates stay unconfirmed and
 * never credit a later Run.
 *
 * @param book The provider's billing book.
 * @param run The Run's turn object.
 */
export function interruptRun(book: BillingBook, run: object): void {
  const sessionKey = book.sessionOf(run);
  if (sessionKey !== undefined) book.ledger(sessionKey).interrupt(book.runId(run, sessionKey));
}

function pending(
  ledger: BillingLedger,
  quote: BillingQuote,
  turnReal: TurnRealRecord | undefined,
): PendingCharge {
  return {
    ledger,
    quote,
    turnReal,
    metadata: {
      copilot: { totalNanoAiu: quote.chargeNanoAiu },
      cursor: {
        billing: {
          step: quote.step,
          priced: quote.priced,
          chargeNanoAiu: quote.chargeNanoAiu,
          targetNanoAiu: quote.targetNanoAiu,
        },
      },
    },
  };
}
