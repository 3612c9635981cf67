import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { openCodeCost, type OpenCodeModelCost } from "../../src/catalog/opencode-cost.ts";
import { CURSOR_PRICING } from "../../src/billing/cursor-pricing.ts";
import { createBillingLedger } from "../../src/billing/ledger.ts";
import { lookupPrice } from "../../src/billing/price-lookup.ts";
import { NANO_AIU_PER_USD, type TokenUsage } from "../../src/billing/rates.ts";
import { usageChargeCapacity, usageForCharge } from "../../src/billing/usage-charge.ts";

/**
 * OpenCode 1.18.33's token price of one step, as its binary computes it when no
 * `copilot.totalNanoAiu` is given (reasoning is zero here).
 */
function openCodeStepCostUsd(cost: OpenCodeModelCost, usage: TokenUsage): number {
  const rates = cost.context_over_200k && usage.inputTokens > 200_000
    ? cost.context_over_200k
    : cost;
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  return (uncached * rates.input + usage.outputTokens * rates.output +
    usage.cacheReadTokens * rates.cache_read + usage.cacheWriteTokens * rates.cache_write) / 1e6;
}

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

describe("carrying a charge in the usage", () => {
  it("makes OpenCode's token price equal the ledger's charge, for every priced model", () => {
    const next = random(0xc0575);
    const priced = CURSOR_PRICING.models.filter((model) => model.kind === "priced");
    for (let i = 0; i < 400; i++) {
      const model = priced[Math.floor(next() * priced.length)];
      if (model === undefined) continue;
      const lookup = lookupPrice(CURSOR_PRICING, { modelId: model.id });
      const cost = openCodeCost(model.id);
      if (lookup.kind !== "priced" || cost === undefined) return assert.fail(model.id);
      const input = Math.floor(next() * 180_000);
      const output = next() < 0.5 ? 1 : Math.floor(next() * 4_000);
      const capacity = usageChargeCapacity(lookup.rates, input, output);
      const ledger = createBillingLedger("ses_carry");
      ledger.confirmRun({ runId: "r", model: model.id, realNanoAiu: Math.floor(next() * 3e9) });
      const quote = ledger.quoteTurnEnd({ runId: "r", model: model.id, priced: true }, capacity);
      const usage = usageForCharge(lookup.rates, input, output, quote.chargeNanoAiu);
      assert.equal(usage.inputTokens, input);
      assert.equal(usage.outputTokens, output);
      const hostUsd = openCodeStepCostUsd(cost, usage);
      assert.ok(
        Math.abs(hostUsd - quote.chargeNanoAiu / NANO_AIU_PER_USD) < 1e-12,
        `${model.id}: host prices ${hostUsd}, ledger charged ${quote.chargeNanoAiu}`,
      );
    }
  });

  it("carries the smallest charge with all input read from the cache", () => {
    const sonnet = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };
    const capacity = usageChargeCapacity(sonnet, 10_000, 1);
    assert.deepEqual(usageForCharge(sonnet, 10_000, 1, capacity.minNanoAiu), {
      inputTokens: 10_000,
      cacheReadTokens: 10_000,
      cacheWriteTokens: 0,
      outputTokens: 1,
    });
    assert.equal(
      usageForCharge(sonnet, 10_000, 1, capacity.maxNanoAiu).cacheReadTokens,
      0,
    );
  });

  it("refuses a charge the usage cannot carry exactly", () => {
    const gpt5 = { input: 1.25, cacheWrite: undefined, cacheRead: 0.125, output: 10 };
    const { minNanoAiu, maxNanoAiu } = usageChargeCapacity(gpt5, 100, 1);
    for (const charge of [minNanoAiu - 1, minNanoAiu + 1, maxNanoAiu + 112_500]) {
      assert.throws(
        () => usageForCharge(gpt5, 100, 1, charge),
        (error: unknown) =>
          error instanceof CursorError && error.code === "invalid_argument" &&
          error.message.includes(`charge of ${charge} nano-AIU`),
      );
    }
  });
});
