import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type OfferedModel, pricingCoverageProblems } from "../../src/billing/coverage.ts";
import { CURSOR_PRICING } from "../../src/billing/cursor-pricing.ts";
import type { PricingCatalogue } from "../../src/billing/pricing-catalogue.ts";
import { defaultCatalog } from "../../src/testing/emulator/catalog/catalog-data.ts";

function emulatorModels(): OfferedModel[] {
  return defaultCatalog().map((model) => ({
    id: model.id,
    variants: model.variants.map((variant) =>
      Object.entries(variant.parameters).map(([id, value]) => ({ id, value }))
    ),
  }));
}

function without(id: string): PricingCatalogue {
  return { ...CURSOR_PRICING, models: CURSOR_PRICING.models.filter((model) => model.id !== id) };
}

describe("pricing coverage", () => {
  it("covers every model and variant of the emulator's catalogue", () => {
    assert.deepEqual(pricingCoverageProblems(CURSOR_PRICING, emulatorModels()), []);
  });

  it("fails for a model that is neither priced nor marked unpriced", () => {
    const problems = pricingCoverageProblems(without("composer-1"), emulatorModels());
    assert.deepEqual(problems, [
      'Model "composer-1" has no rate and is not marked unpriced: No rate in the pricing catalogue for model "composer-1"',
    ]);
  });

  it("fails for every variant of a model once its entry is gone", () => {
    const problems = pricingCoverageProblems(without("gpt-5"), emulatorModels());
    assert.equal(problems.length, 6);
    assert.match(problems[0] ?? "", /^Model "gpt-5" variant "reasoning=low,fast=false"/);
  });

  it("fails for a Fast variant of a model without Fast rates or a reason", () => {
    const problems = pricingCoverageProblems(CURSOR_PRICING, [
      { id: "claude-4.5-sonnet", variants: [[{ id: "fast", value: "true" }]] },
    ]);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /Cursor lists no Fast variant rate for Claude 4.5 Sonnet/);
  });

  it("fails for malformed or unsourced pricing data", () => {
    const broken: PricingCatalogue = {
      source: "cursor.com/docs",
      seen: "Dec 2026",
      maxMode: "",
      models: [
        { kind: "unpriced", id: "a", name: "A", reason: " " },
        {
          kind: "priced",
          id: "b",
          aliases: ["a"],
          name: "B",
          rates: { input: 1.0000001, cacheWrite: undefined, cacheRead: -1, output: 2 },
          fast: { unpriced: "" },
        },
      ],
    };
    assert.deepEqual(pricingCoverageProblems(broken, []), [
      'Pricing source "cursor.com/docs" is not an https URL',
      'Pricing date "Dec 2026" is not YYYY-MM-DD',
      'Unpriced model "a" gives no reason',
      'Model id "a" appears twice',
      'Model "b" rates.input: Cannot price a token: rate 1.0000001 USD per million is not a non-negative amount with at most five decimals',
      'Model "b" rates.cacheRead: Cannot price a token: rate -1 USD per million is not a non-negative amount with at most five decimals',
      'Model "b" fast: unpriced without a reason',
    ]);
  });
});
