/**
 * The billing ledger of one host session (the runbook's `billing:` records): a pure state
 * machine over whole nano-AIU.
 *
 * - A tool-call finish bills a **step estimate** (`step=estimate`), owned by its Run.
 * - A Run's terminal counters (TurnEnded) add its catalogue-priced **real** cost and
 *   replace that Run's estimates — only that Run's (`billing: turn real=…`).
 * - The turn's last finish (`step=turn-end`) bills what is **outstanding**
 *   (`real + estimated − billed`), once per Run, except what other Runs still open owe:
 *   their own counters will settle it.
 * - A Run without counters counts the larger of its estimates and its charges as
 *   unconfirmed, so an open or **interrupted** Run charged above its estimate (a minimum
 *   charge) never creates a credit against other Runs; an interrupted Run keeps that
 *   amount for good.
 * - A charge is what the finish's usage can carry (a minimum plus whole quanta, rounded
 *   down, up to a maximum); the remainder stays outstanding and carries across turns.
 * - Only finishes the consumer accepted (`delivered`) change the billed total.
 *
 * Changes happen through quotes: {@link BillingLedger.quoteEstimate} and
 * {@link BillingLedger.quoteTurnEnd} say what a finish would bill without changing
 * anything; {@link BillingLedger.commit} records it once the delivery is known. A quote
 * committed after the ledger has changed since it was taken is refused, so nothing is
 * billed twice.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

/** What a finish's usage snapshot can carry as a charge. */
export interface ChargeCapacity {
  /** The smallest charge it can express (default 0). */
  readonly minNanoAiu?: number;
  /** The largest (default unbounded). */
  readonly maxNanoAiu?: number;
  /** Charges are the minimum plus whole multiples of this (default 1); the rest stays outstanding. */
  readonly quantumNanoAiu?: number;
}

/** Which kind of finish a record bills. */
export type BillingStep = "estimate" | "turn-end";

/** Session totals in nano-AIU. */
export interface BillingTotals {
  /** Catalogue-priced cost of Runs that supplied terminal counters. */
  readonly realNanoAiu: number;
  /** Charges the host accepted. */
  readonly billedNanoAiu: number;
  /** Per Run without terminal counters (open or interrupted): its estimates, or its charges if larger. */
  readonly estimatedNanoAiu: number;
  /** `real + estimated − billed`; negative when the host was charged ahead. */
  readonly outstandingNanoAiu: number;
}

/** What a finish would bill; pass it to {@link BillingLedger.commit}. */
export interface BillingQuote {
  readonly step: BillingStep;
  readonly runId: string;
  readonly model: string;
  /** The model has catalogue rates (false: `pricing=unpriced`, nothing is billed). */
  readonly priced: boolean;
  /** The step's catalogue cost (estimate) or the outstanding balance (turn-end). */
  readonly targetNanoAiu: number;
  /** What the finish bills the host. */
  readonly chargeNanoAiu: number;
  /** The ledger state the quote was taken in. */
  readonly revision: number;
}

/** One committed finish: the fields of a `billing: step=…` line. */
export interface BillingRecord extends BillingTotals {
  readonly sessionKey: string;
  readonly step: BillingStep;
  readonly runId: string;
  readonly model: string;
  readonly priced: boolean;
  readonly targetNanoAiu: number;
  /** What this finish bills (0 when not delivered). */
  readonly stepNanoAiu: number;
  /** The consumer accepted the finish. */
  readonly delivered: boolean;
}

/** A Run's terminal counters priced: the fields of a `billing: turn real=…` line. */
export interface TurnRealRecord extends BillingTotals {
  readonly sessionKey: string;
  readonly runId: string;
  readonly model: string;
  /** The Run's catalogue-priced cost. */
  readonly turnRealNanoAiu: number;
  /** The Run's estimates this replaced. */
  readonly replacedEstimateNanoAiu: number;
}

/** A step estimate to quote. */
export interface StepEstimate {
  readonly runId: string;
  readonly model: string;
  /** The step's cost at catalogue rates; `undefined` for an unpriced model. */
  readonly costNanoAiu: number | undefined;
}

/** A Run's priced terminal counters. */
export interface RunReal {
  readonly runId: string;
  readonly model: string;
  readonly realNanoAiu: number;
}

/** The ledger of one session. */
export interface BillingLedger {
  /** What a tool-call finish of an open Run would bill for this step. */
  quoteEstimate(step: StepEstimate, capacity?: ChargeCapacity): BillingQuote;
  /** Adds a Run's real cost and drops that Run's estimates (once per Run). */
  confirmRun(real: RunReal): TurnRealRecord;
  /** What the turn's last finish would bill: the outstanding balance, for a confirmed Run. */
  quoteTurnEnd(
    run: { readonly runId: string; readonly model: string; readonly priced: boolean },
    capacity?: ChargeCapacity,
  ): BillingQuote;
  /** Records a quoted finish once its delivery is known. */
  commit(quote: BillingQuote, delivered: boolean): BillingRecord;
  /** Marks a Run that ended without terminal counters. */
  interrupt(runId: string): void;
  /** The session totals. */
  totals(): BillingTotals;
}

type RunState = "open" | "confirmed" | "settled" | "interrupted";

interface RunEntry {
  state: RunState;
  estimated: number;
  billed: number;
}

/**
 * Creates the ledger of one session.
 *
 * @param sessionKey The host session id, repeated on every record.
 * @returns An empty ledger.
 *
 * @example A tool-call step, then the turn's end
 * ```ts
 * import { createBillingLedger } from "./ledger.ts";
 *
 * const ledger = createBillingLedger("ses_1");
 * const step = ledger.quoteEstimate({ runId: "run-1", model: "gpt-5", costNanoAiu: 500 });
 * ledger.commit(step, true);
 * ledger.confirmRun({ runId: "run-1", model: "gpt-5", realNanoAiu: 800 });
 * const end = ledger.quoteTurnEnd({ runId: "run-1", model: "gpt-5", priced: true });
 * console.assert(end.chargeNanoAiu === 300);
 * console.assert(ledger.commit(end, true).outstandingNanoAiu === 0);
 * ```
 */
export function createBillingLedger(sessionKey: string): BillingLedger {
  return new SessionLedger(sessionKey);
}

class SessionLedger implements BillingLedger {
  readonly #sessionKey: string;
  readonly #runs = new Map<string, RunEntry>();
  #real = 0;
  #billed = 0;
  #estimated = 0;
  #revision = 0;

  constructor(sessionKey: string) {
    this.#sessionKey = sessionKey;
  }

  quoteEstimate(step: StepEstimate, capacity: ChargeCapacity = {}): BillingQuote {
    const state = this.#runs.get(step.runId)?.state ?? "open";
    if (state !== "open") refuse("bill a step estimate", step.runId, state);
    const priced = step.costNanoAiu !== undefined;
    const target = priced ? checkedAmount("step cost", step.costNanoAiu ?? 0) : 0;
    return {
      step: "estimate",
      runId: step.runId,
      model: step.model,
      priced,
      targetNanoAiu: target,
      chargeNanoAiu: priced ? carry(target, capacity) : 0,
      revision: this.#revision,
    };
  }

  confirmRun(run: RunReal): TurnRealRecord {
    const current = this.#entry(run.runId);
    if (current.state !== "open") refuse("add terminal counters", run.runId, current.state);
    const cost = checkedAmount("Run cost", run.realNanoAiu);
    const replaced = unconfirmed(current);
    this.#real += cost;
    this.#estimated -= replaced;
    current.state = "confirmed";
    this.#revision++;
    return {
      sessionKey: this.#sessionKey,
      runId: run.runId,
      model: run.model,
      turnRealNanoAiu: cost,
      replacedEstimateNanoAiu: replaced,
      ...this.totals(),
    };
  }

  quoteTurnEnd(
    run: { readonly runId: string; readonly model: string; readonly priced: boolean },
    capacity: ChargeCapacity = {},
  ): BillingQuote {
    const state = this.#runs.get(run.runId)?.state ?? "open";
    if (state === "settled" || state === "interrupted") {
      refuse("bill the turn end", run.runId, state);
    }
    if (run.priced && state !== "confirmed") {
      throw new CursorError(
        "invalid_argument",
        `Cannot bill the turn end for Run ${
          JSON.stringify(run.runId)
        }: its terminal counters were not added`,
      );
    }
    const { outstandingNanoAiu } = this.totals();
    const target = run.priced ? outstandingNanoAiu - owedByOpenRuns(this.#runs) : 0;
    return {
      step: "turn-end",
      runId: run.runId,
      model: run.model,
      priced: run.priced,
      targetNanoAiu: target,
      chargeNanoAiu: run.priced ? carry(target, capacity) : 0,
      revision: this.#revision,
    };
  }

  commit(quote: BillingQuote, delivered: boolean): BillingRecord {
    if (quote.revision !== this.#revision) {
      throw new CursorError(
        "invalid_argument",
        `Cannot commit the ${quote.step} quote for Run ${
          JSON.stringify(quote.runId)
        }: the ledger changed since it was quoted`,
      );
    }
    const run = this.#entry(quote.runId);
    const charge = delivered ? quote.chargeNanoAiu : 0;
    if (quote.step === "turn-end") run.state = "settled";
    else if (delivered && quote.priced) {
      const before = unconfirmed(run);
      run.estimated += quote.targetNanoAiu;
      run.billed += charge;
      this.#estimated += unconfirmed(run) - before;
    }
    this.#billed += charge;
    this.#revision++;
    return {
      sessionKey: this.#sessionKey,
      step: quote.step,
      runId: quote.runId,
      model: quote.model,
      priced: quote.priced,
      targetNanoAiu: quote.targetNanoAiu,
      stepNanoAiu: charge,
      delivered,
      ...this.totals(),
    };
  }

  interrupt(runId: string): void {
    const run = this.#entry(runId);
    if (run.state !== "open") return;
    run.state = "interrupted";
    this.#revision++;
  }

  totals(): BillingTotals {
    return {
      realNanoAiu: this.#real,
      billedNanoAiu: this.#billed,
      estimatedNanoAiu: this.#estimated,
      outstandingNanoAiu: this.#real + this.#estimated - this.#billed,
    };
  }

  #entry(runId: string): RunEntry {
    let run = this.#runs.get(runId);
    if (run === undefined) {
      run = { state: "open", estimated: 0, billed: 0 };
      this.#runs.set(runId, run);
    }
    return run;
  }
}

function refuse(what: string, runId: string, state: RunState): never {
  throw new CursorError(
    "invalid_argument",
    `Cannot ${what} for Run ${JSON.stringify(runId)}: it is already ${state}`,
  );
}

/** What open Runs were estimated beyond their charges (their own counters settle it). */
function owedByOpenRuns(runs: ReadonlyMap<string, RunEntry>): number {
  let owed = 0;
  for (const run of runs.values()) {
    if (run.state === "open") owed += unconfirmed(run) - run.billed;
  }
  return owed;
}

/** What a Run without counters adds to the unconfirmed total. */
function unconfirmed(run: RunEntry): number {
  return Math.max(run.estimated, run.billed);
}

/** The charge a finish can carry for a target amount. */
function carry(target: number, capacity: ChargeCapacity): number {
  const quantum = capacity.quantumNanoAiu ?? 1;
  const min = capacity.minNanoAiu ?? 0;
  const max = capacity.maxNanoAiu ?? Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(quantum) || quantum < 1 || min < 0 || max < min) {
    throw new CursorError(
      "invalid_argument",
      `Cannot carry a charge: capacity ${
        JSON.stringify({ min, max, quantum })
      } is not a whole quantum of at least 1 with 0 <= min <= max`,
    );
  }
  const steps = Math.floor(Math.max(0, target - min) / quantum);
  return Math.min(min + steps * quantum, max);
}

function checkedAmount(what: string, nanoAiu: number): number {
  if (!Number.isSafeInteger(nanoAiu) || nanoAiu < 0) {
    throw new CursorError(
      "invalid_argument",
      `Cannot record a ${what} of ${
        JSON.stringify(nanoAiu)
      } nano-AIU: expected a whole non-negative amount`,
    );
  }
  return nanoAiu;
}
