/**
 * Property tests of the billing ledger: random sessions of step estimates, terminal
 * counters, turn ends, rejected finishes and interruptions, checked against an
 * independent account of what should have been billed.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type BillingLedger,
  type BillingQuote,
  type ChargeCapacity,
  createBillingLedger,
} from "../../src/billing/ledger.ts";

/** mulberry32: a tiny seeded PRNG, so a failing seed can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Event =
  | {
    kind: "estimate";
    run: string;
    cost: number | undefined;
    capacity: ChargeCapacity;
    delivered: boolean;
  }
  | {
    kind: "finish";
    run: string;
    real: number | undefined;
    capacity: ChargeCapacity;
    delivered: boolean;
  }
  | { kind: "interrupt"; run: string };

/** A random session: up to three Runs open at once, each ending by finish or interruption. */
function session(seed: number, boundedTurnEnds: boolean): Event[] {
  const next = random(seed);
  const int = (n: number) => Math.floor(next() * n);
  const capacity = (): ChargeCapacity => {
    const roll = int(4);
    if (roll === 0) return {};
    if (roll === 1) return { quantumNanoAiu: [1, 10, 1_000][int(3)] ?? 1 };
    const min = int(400);
    return { minNanoAiu: min, maxNanoAiu: min + int(3_000), quantumNanoAiu: 1 + int(50) };
  };
  const events: Event[] = [];
  const open: { id: string; priced: boolean }[] = [];
  let runs = 0;
  for (let i = 0; i < 60; i++) {
    const roll = int(10);
    if (open.length === 0 || (roll < 2 && open.length < 3)) {
      open.push({ id: `run-${++runs}`, priced: next() > 0.15 });
      continue;
    }
    const index = int(open.length);
    const run = open[index];
    if (run === undefined) continue;
    if (roll < 7) {
      events.push({
        kind: "estimate",
        run: run.id,
        cost: run.priced ? int(2_000) : undefined,
        capacity: capacity(),
        delivered: next() > 0.2,
      });
    } else {
      open.splice(index, 1);
      events.push(
        roll < 9
          ? {
            kind: "finish",
            run: run.id,
            real: run.priced ? int(5_000) : undefined,
            capacity: boundedTurnEnds ? capacity() : {},
            delivered: next() > 0.2,
          }
          : { kind: "interrupt", run: run.id },
      );
    }
  }
  return events;
}

/** What a replay observed: each turn end's charge by Run, and every record's numbers. */
interface Replay {
  ledger: BillingLedger;
  turnEndCharges: Map<string, number>;
}

/** The independent account: what the totals must be after each event. */
interface Account {
  real: number;
  billed: number;
  openEstimates: Map<string, { estimated: number; billed: number }>;
  closedEstimates: number;
}

function estimatedTotal(account: Account): number {
  let sum = account.closedEstimates;
  for (const run of account.openEstimates.values()) sum += Math.max(run.estimated, run.billed);
  return sum;
}

function owedByOpen(account: Account): number {
  let owed = 0;
  for (const run of account.openEstimates.values()) {
    owed += Math.max(run.estimated, run.billed) - run.billed;
  }
  return owed;
}

function replay(events: readonly Event[]): Replay {
  const ledger = createBillingLedger("ses_prop");
  const turnEndCharges = new Map<string, number>();
  const account: Account = { real: 0, billed: 0, openEstimates: new Map(), closedEstimates: 0 };
  const runAccount = (run: string) => {
    let entry = account.openEstimates.get(run);
    if (!entry) account.openEstimates.set(run, entry = { estimated: 0, billed: 0 });
    return entry;
  };
  for (const event of events) {
    if (event.kind === "estimate") {
      const quote = ledger.quoteEstimate(
        { runId: event.run, model: "m", costNanoAiu: event.cost },
        event.capacity,
      );
      checkCharge(quote, event.capacity);
      const record = ledger.commit(quote, event.delivered);
      if (event.delivered && event.cost !== undefined) {
        runAccount(event.run).estimated += event.cost;
        runAccount(event.run).billed += quote.chargeNanoAiu;
        account.billed += quote.chargeNanoAiu;
      }
      assert.equal(record.stepNanoAiu, event.delivered ? quote.chargeNanoAiu : 0);
    } else if (event.kind === "finish") {
      if (event.real !== undefined) {
        const real = ledger.confirmRun({ runId: event.run, model: "m", realNanoAiu: event.real });
        const owned = runAccount(event.run);
        assert.equal(real.replacedEstimateNanoAiu, Math.max(owned.estimated, owned.billed));
        account.real += event.real;
        account.openEstimates.delete(event.run);
        // A second set of counters for the same Run is refused and changes nothing.
        const before = ledger.totals();
        assert.throws(() =>
          ledger.confirmRun({ runId: event.run, model: "m", realNanoAiu: event.real ?? 0 })
        );
        assert.deepEqual(ledger.totals(), before);
      }
      account.openEstimates.delete(event.run);
      const due = account.real + estimatedTotal(account) - account.billed - owedByOpen(account);
      const quote = ledger.quoteTurnEnd(
        { runId: event.run, model: "m", priced: event.real !== undefined },
        event.capacity,
      );
      assert.equal(quote.targetNanoAiu, event.real === undefined ? 0 : due);
      checkCharge(quote, event.capacity);
      const stale = quote.chargeNanoAiu > 0 ? { ...quote } : undefined;
      ledger.commit(quote, event.delivered);
      if (stale) assert.throws(() => ledger.commit(stale, true));
      const charged = event.delivered ? quote.chargeNanoAiu : 0;
      account.billed += charged;
      turnEndCharges.set(event.run, charged);
      account.openEstimates.delete(event.run);
      if (event.real !== undefined && event.delivered && noBounds(event.capacity) && due >= 0) {
        assert.equal(
          ledger.totals().outstandingNanoAiu,
          owedByOpen(account),
          "an unbounded turn end settles all but what open Runs owe",
        );
      }
    } else {
      ledger.interrupt(event.run);
      const run = account.openEstimates.get(event.run);
      if (run) account.closedEstimates += Math.max(run.estimated, run.billed);
      account.openEstimates.delete(event.run);
    }
    const totals = ledger.totals();
    assert.equal(totals.realNanoAiu, account.real);
    assert.equal(totals.billedNanoAiu, account.billed);
    assert.equal(totals.estimatedNanoAiu, estimatedTotal(account));
    assert.equal(
      totals.outstandingNanoAiu,
      totals.realNanoAiu + totals.estimatedNanoAiu - totals.billedNanoAiu,
    );
    assert.ok(totals.estimatedNanoAiu >= 0);
  }
  return { ledger, turnEndCharges };
}

function noBounds(capacity: ChargeCapacity): boolean {
  return capacity.minNanoAiu === undefined && capacity.maxNanoAiu === undefined &&
    (capacity.quantumNanoAiu ?? 1) === 1;
}

function checkCharge(quote: BillingQuote, capacity: ChargeCapacity): void {
  const charge = quote.chargeNanoAiu;
  assert.ok(Number.isSafeInteger(charge) && charge >= 0);
  if (!quote.priced) return assert.equal(charge, 0, "unpriced finishes bill nothing");
  assert.ok(charge >= (capacity.minNanoAiu ?? 0));
  assert.ok(charge <= (capacity.maxNanoAiu ?? Number.POSITIVE_INFINITY));
  const clamped = charge === capacity.minNanoAiu || charge === capacity.maxNanoAiu;
  if (!clamped) {
    assert.equal((charge - (capacity.minNanoAiu ?? 0)) % (capacity.quantumNanoAiu ?? 1), 0);
    assert.ok(charge <= Math.max(0, quote.targetNanoAiu), "rounding never bills ahead");
  }
}

const SEEDS = Array.from({ length: 300 }, (_, i) => 0x5eed + i * 7919);

describe("billing ledger properties", () => {
  it("keeps the balance invariant and bills each charge once (bounded finishes)", () => {
    for (const seed of SEEDS) {
      try {
        replay(session(seed, true));
      } catch (error) {
        throw new Error(`Seed ${seed} failed`, { cause: error });
      }
    }
  });

  it("lets interrupted Runs credit no later Run", () => {
    for (const seed of SEEDS) {
      const events = session(seed, false);
      const interrupted = new Set(
        events.filter((event) => event.kind === "interrupt").map((event) => event.run),
      );
      const withThem = replay(events).turnEndCharges;
      const withoutThem = replay(events.filter((event) => !interrupted.has(event.run)))
        .turnEndCharges;
      for (const [run, charge] of withoutThem) {
        assert.ok(
          (withThem.get(run) ?? 0) >= charge,
          `seed ${seed}: Run ${run} was charged ${withThem.get(run)} instead of at least ${charge}`,
        );
      }
    }
  });

  it("settles every delivered, unbounded session to a zero or negative balance", () => {
    for (const seed of SEEDS) {
      const events = session(seed, false).map((event): Event =>
        event.kind === "interrupt" ? event : { ...event, capacity: {}, delivered: true }
      );
      const { ledger } = replay(events);
      const last = events.findLast((event) => event.kind === "finish" && event.real !== undefined);
      if (last === undefined) continue;
      // After the last priced turn end only later estimates (billed at cost) and
      // interruptions happened: nothing can be left unbilled.
      assert.ok(ledger.totals().outstandingNanoAiu <= 0, `seed ${seed}`);
    }
  });
});
