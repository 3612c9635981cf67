import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { billingLine, formatUsd, turnRealLine } from "../../src/billing/billing-line.ts";
import { CURSOR_PRICING } from "../../src/billing/cursor-pricing.ts";
import { createBillingLedger } from "../../src/billing/ledger.ts";
import { lookupPrice } from "../../src/billing/price-lookup.ts";
import { runRealCost, stepEstimateCost } from "../../src/billing/step-cost.ts";

const USD = 100_000_000_000;

function refused(code: string, fragment: string) {
  return (error: unknown) =>
    error instanceof CursorError && error.code === code && error.message.includes(fragment);
}

describe("billing ledger: a held Run with two tool-call steps", () => {
  // Claude 4.5 Sonnet; context 10k → 12k → 15k tokens; TurnEnded reports the aggregate.
  const sonnet = lookupPrice(CURSOR_PRICING, { modelId: "claude-4.5-sonnet" });
  const first = stepEstimateCost(sonnet, {
    contextTokens: 12_000,
    previousContextTokens: 10_000,
    outputTokens: 1,
  });
  const second = stepEstimateCost(sonnet, {
    contextTokens: 15_000,
    previousContextTokens: 12_000,
    outputTokens: 1,
  });
  const real = runRealCost(sonnet, {
    inputTokens: 45_000,
    cacheReadTokens: 30_000,
    cacheWriteTokens: 5_000,
    outputTokens: 2_000,
  }, 15_000);

  it("prices the steps as one model call each and the Run from its counters", () => {
    // 2,000 new × $3 + 10,000 read × $0.30 + 1 out × $15, per million.
    assert.equal(first, 0.009015 * USD);
    assert.equal(second, 0.012615 * USD);
    // 10,000 × $3 + 30,000 × $0.30 + 5,000 × $3.75 + 2,000 × $15, per million.
    assert.equal(real, 0.08775 * USD);
  });

  it("logs each finish as the runbook's billing: lines (golden)", () => {
    const ledger = createBillingLedger("ses_A");
    const lines: string[] = [];
    for (const cost of [first, second]) {
      const quote = ledger.quoteEstimate({
        runId: "r1",
        model: "claude-4.5-sonnet",
        costNanoAiu: cost,
      });
      lines.push(billingLine(ledger.commit(quote, true)));
    }
    lines.push(turnRealLine(
      ledger.confirmRun({ runId: "r1", model: "claude-4.5-sonnet", realNanoAiu: real ?? 0 }),
    ));
    const end = ledger.quoteTurnEnd({ runId: "r1", model: "claude-4.5-sonnet", priced: true });
    lines.push(billingLine(ledger.commit(end, true)));
    assert.deepEqual(lines, [
      "billing: step=estimate sessionKey=ses_A run=r1 model=claude-4.5-sonnet estimateUsd=0.009015 stepUsd=0.009015 sessionRealUsd=0.000000 sessionBilledUsd=0.009015 sessionEstimatedUsd=0.009015 outstandingUsd=0.000000 delivered=true",
      "billing: step=estimate sessionKey=ses_A run=r1 model=claude-4.5-sonnet estimateUsd=0.012615 stepUsd=0.012615 sessionRealUsd=0.000000 sessionBilledUsd=0.021630 sessionEstimatedUsd=0.021630 outstandingUsd=0.000000 delivered=true",
      "billing: turn real=0.087750 sessionKey=ses_A run=r1 model=claude-4.5-sonnet replacedEstimateUsd=0.021630 sessionRealUsd=0.087750 sessionBilledUsd=0.021630 sessionEstimatedUsd=0.000000 outstandingUsd=0.066120",
      "billing: step=turn-end sessionKey=ses_A run=r1 model=claude-4.5-sonnet dueUsd=0.066120 stepUsd=0.066120 sessionRealUsd=0.087750 sessionBilledUsd=0.087750 sessionEstimatedUsd=0.000000 outstandingUsd=0.000000 delivered=true",
    ]);
  });
});

describe("billing ledger: rules", () => {
  it("bills nothing for an unpriced model and says so", () => {
    const ledger = createBillingLedger("ses_B");
    const step = ledger.quoteEstimate({ runId: "r1", model: "default", costNanoAiu: undefined });
    assert.equal(
      billingLine(ledger.commit(step, true)),
      "billing: step=estimate sessionKey=ses_B run=r1 model=default stepUsd=0.000000 sessionRealUsd=0.000000 sessionBilledUsd=0.000000 sessionEstimatedUsd=0.000000 outstandingUsd=0.000000 delivered=true pricing=unpriced",
    );
    const end = ledger.quoteTurnEnd({ runId: "r1", model: "default", priced: false });
    assert.equal(ledger.commit(end, true).stepNanoAiu, 0);
  });

  it("records nothing for a finish the consumer rejected", () => {
    const ledger = createBillingLedger("ses_C");
    const quote = ledger.quoteEstimate({ runId: "r1", model: "gpt-5", costNanoAiu: 700 });
    const record = ledger.commit(quote, false);
    assert.equal(record.stepNanoAiu, 0);
    assert.match(billingLine(record), / stepUsd=0\.000000 .* delivered=false$/);
    assert.deepEqual(ledger.totals(), {
      realNanoAiu: 0,
      billedNanoAiu: 0,
      estimatedNanoAiu: 0,
      outstandingNanoAiu: 0,
    });
  });

  it("replaces only the matching Run's estimates", () => {
    const ledger = createBillingLedger("ses_D");
    ledger.commit(ledger.quoteEstimate({ runId: "a", model: "m", costNanoAiu: 100 }), true);
    ledger.commit(ledger.quoteEstimate({ runId: "b", model: "m", costNanoAiu: 40 }), true);
    const real = ledger.confirmRun({ runId: "b", model: "m", realNanoAiu: 90 });
    assert.equal(real.replacedEstimateNanoAiu, 40);
    assert.equal(real.estimatedNanoAiu, 100);
    assert.equal(real.outstandingNanoAiu, 50);
  });

  it("leaves what a Run still open owes to that Run's own counters", () => {
    const ledger = createBillingLedger("ses_D2");
    // Run a's step could carry only 60 of its 100 estimate; b ends first.
    ledger.commit(
      ledger.quoteEstimate({ runId: "a", model: "m", costNanoAiu: 100 }, { maxNanoAiu: 60 }),
      true,
    );
    ledger.confirmRun({ runId: "b", model: "m", realNanoAiu: 30 });
    const endB = ledger.quoteTurnEnd({ runId: "b", model: "m", priced: true });
    assert.equal(endB.chargeNanoAiu, 30);
    assert.equal(ledger.commit(endB, true).outstandingNanoAiu, 40);
    ledger.confirmRun({ runId: "a", model: "m", realNanoAiu: 120 });
    const endA = ledger.quoteTurnEnd({ runId: "a", model: "m", priced: true });
    assert.equal(endA.chargeNanoAiu, 60);
  });

  it("keeps an interrupted Run's estimates and lets it credit no later Run", () => {
    const ledger = createBillingLedger("ses_E");
    // The snapshot cannot carry less than 30: the step is charged above its estimate.
    const step = ledger.quoteEstimate({ runId: "a", model: "m", costNanoAiu: 10 }, {
      minNanoAiu: 30,
    });
    assert.equal(ledger.commit(step, true).outstandingNanoAiu, 0);
    ledger.interrupt("a");
    assert.deepEqual(ledger.totals(), {
      realNanoAiu: 0,
      billedNanoAiu: 30,
      estimatedNanoAiu: 30,
      outstandingNanoAiu: 0,
    });
    ledger.confirmRun({ runId: "b", model: "m", realNanoAiu: 50 });
    const end = ledger.quoteTurnEnd({ runId: "b", model: "m", priced: true });
    assert.equal(end.chargeNanoAiu, 50);
    assert.throws(
      () => ledger.confirmRun({ runId: "a", model: "m", realNanoAiu: 5 }),
      refused("invalid_argument", 'Run "a": it is already interrupted'),
    );
  });

  it("carries what a finish cannot express to the next turn", () => {
    const ledger = createBillingLedger("ses_F");
    ledger.confirmRun({ runId: "r1", model: "m", realNanoAiu: 1_234 });
    const capped = ledger.quoteTurnEnd({ runId: "r1", model: "m", priced: true }, {
      maxNanoAiu: 1_000,
      quantumNanoAiu: 100,
    });
    assert.equal(capped.chargeNanoAiu, 1_000);
    assert.equal(ledger.commit(capped, true).outstandingNanoAiu, 234);
    ledger.confirmRun({ runId: "r2", model: "m", realNanoAiu: 66 });
    const next = ledger.quoteTurnEnd({ runId: "r2", model: "m", priced: true }, {
      quantumNanoAiu: 100,
    });
    assert.equal(next.targetNanoAiu, 300);
    assert.equal(ledger.commit(next, true).outstandingNanoAiu, 0);
  });

  it("carries a rejected turn end's balance to the next turn", () => {
    const ledger = createBillingLedger("ses_G");
    ledger.confirmRun({ runId: "r1", model: "m", realNanoAiu: 500 });
    ledger.commit(ledger.quoteTurnEnd({ runId: "r1", model: "m", priced: true }), false);
    ledger.confirmRun({ runId: "r2", model: "m", realNanoAiu: 100 });
    const next = ledger.quoteTurnEnd({ runId: "r2", model: "m", priced: true });
    assert.equal(next.chargeNanoAiu, 600);
  });

  it("never bills a Run twice", () => {
    const ledger = createBillingLedger("ses_H");
    ledger.confirmRun({ runId: "r1", model: "m", realNanoAiu: 500 });
    assert.throws(
      () => ledger.confirmRun({ runId: "r1", model: "m", realNanoAiu: 500 }),
      refused("invalid_argument", "already confirmed"),
    );
    const end = ledger.quoteTurnEnd({ runId: "r1", model: "m", priced: true });
    const duplicate = ledger.quoteTurnEnd({ runId: "r1", model: "m", priced: true });
    ledger.commit(end, true);
    assert.throws(() => ledger.commit(duplicate, true), refused("invalid_argument", "changed"));
    assert.throws(
      () => ledger.quoteTurnEnd({ runId: "r1", model: "m", priced: true }),
      refused("invalid_argument", "already settled"),
    );
    assert.throws(
      () => ledger.quoteEstimate({ runId: "r1", model: "m", costNanoAiu: 1 }),
      refused("invalid_argument", "already settled"),
    );
    assert.equal(ledger.totals().billedNanoAiu, 500);
  });

  it("refuses a turn end before the Run's counters and malformed amounts", () => {
    const ledger = createBillingLedger("ses_I");
    assert.throws(
      () => ledger.quoteTurnEnd({ runId: "r1", model: "m", priced: true }),
      refused("invalid_argument", "terminal counters were not added"),
    );
    assert.throws(
      () => ledger.quoteEstimate({ runId: "r1", model: "m", costNanoAiu: 1.5 }),
      refused("invalid_argument", "step cost of 1.5 nano-AIU"),
    );
    assert.throws(
      () =>
        ledger.quoteEstimate({ runId: "r1", model: "m", costNanoAiu: 1 }, {
          minNanoAiu: 5,
          maxNanoAiu: 2,
        }),
      refused("invalid_argument", "Cannot carry a charge"),
    );
  });

  it("prints amounts with six decimals and no negative zero", () => {
    assert.equal(formatUsd(0), "0.000000");
    assert.equal(formatUsd(-1), "0.000000");
    assert.equal(formatUsd(-12_500_000), "-0.000125");
    assert.equal(formatUsd(123 * USD), "123.000000");
  });
});
