import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { CURSOR_PRICING } from "../../src/billing/cursor-pricing.ts";
import { lookupPrice, type PriceLookup, ratesForPrompt } from "../../src/billing/price-lookup.ts";
import { nanoAiuPerToken, usageCostNanoAiu } from "../../src/billing/rates.ts";

function price(modelId: string, parameters: Record<string, string> = {}): PriceLookup {
  return lookupPrice(CURSOR_PRICING, {
    modelId,
    parameters: Object.entries(parameters).map(([id, value]) => ({ id, value })),
  });
}

function output(lookup: PriceLookup): number | undefined {
  return lookup.kind === "priced" ? lookup.rates.output : undefined;
}

describe("lookupPrice: Cursor ids and variants", () => {
  it("prices a model by its wire id", () => {
    const sonnet = price("claude-4.5-sonnet");
    assert.deepEqual(sonnet, {
      kind: "priced",
      modelId: "claude-4.5-sonnet",
      fast: false,
      rates: { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
    });
  });

  it("uses the Fast row for a variant with fast=true and the standard row otherwise", () => {
    assert.equal(output(price("gpt-5", { reasoning: "high", fast: "true" })), 20);
    assert.equal(output(price("gpt-5", { reasoning: "high", fast: "false" })), 10);
    assert.equal(output(price("composer-2.5", { fast: "true" })), 15);
  });

  it("resolves OpenCode tier entries to their model", () => {
    assert.equal(price("claude-4.5-sonnet-1m").modelId, "claude-4.5-sonnet");
    assert.equal(output(price("claude-4.5-sonnet-1m", { thinking: "true", context: "1m" })), 15);
    const gemini = price("gemini-2.5-pro-500k");
    assert.equal(gemini.kind, "unpriced");
    assert.equal(gemini.modelId, "gemini-2.5-pro");
  });

  it("reads variant suffixes and the CLI's bracketed parameters", () => {
    const highFast = price("gpt-5-high-fast");
    assert.equal(highFast.kind === "priced" && highFast.fast, true);
    assert.equal(output(highFast), 20);
    assert.equal(output(price("Composer-2.5[fast=true]")), 15);
    assert.equal(output(price("composer-2.5[fast=false]")), 2.5);
  });

  it("says why Auto and unlisted models are unpriced, and tells listed from unknown", () => {
    const auto = price("auto");
    assert.equal(auto.kind === "unpriced" && auto.listed, true);
    assert.equal(auto.modelId, "default");
    const opus = price("claude-4.1-opus");
    assert.equal(opus.kind === "unpriced" && opus.listed, true);
    const unknown = price("mystery-9");
    assert.deepEqual(unknown, {
      kind: "unpriced",
      modelId: "mystery-9",
      reason: 'No rate in the pricing catalogue for model "mystery-9"',
      listed: false,
    });
  });

  it("keeps a Fast variant unpriced when Cursor lists no Fast rate", () => {
    const opusFast = price("claude-opus-4-8", { fast: "true" });
    assert.equal(opusFast.kind === "unpriced" && opusFast.listed, true);
    const sonnetFast = price("claude-4.5-sonnet", { fast: "true" });
    assert.equal(sonnetFast.kind === "unpriced" && !sonnetFast.listed, true);
  });

  it("switches to the over-200k rates only above 200k prompt tokens", () => {
    const sonnet4 = price("claude-4-sonnet", { context: "1m" });
    assert.equal(sonnet4.kind, "priced");
    if (sonnet4.kind !== "priced") return;
    assert.equal(ratesForPrompt(sonnet4, 200_000).input, 3);
    assert.equal(ratesForPrompt(sonnet4, 200_001).input, 6);
    const sonnet45 = price("claude-4.5-sonnet-1m");
    if (sonnet45.kind !== "priced") return assert.fail("Sonnet 4.5 is priced");
    assert.equal(ratesForPrompt(sonnet45, 900_000).input, 3);
  });
});

describe("token rates", () => {
  it("costs each partition of a usage at its own rate", () => {
    const rates = { input: 1.25, cacheWrite: undefined, cacheRead: 0.125, output: 10 };
    // 1,000 uncached + 500 written (billed as input) + 2,000 read + 100 out.
    const cost = usageCostNanoAiu(rates, {
      inputTokens: 3_500,
      cacheReadTokens: 2_000,
      cacheWriteTokens: 500,
      outputTokens: 100,
    });
    assert.equal(cost, 1_500 * 125_000 + 2_000 * 12_500 + 100 * 1_000_000);
  });

  it("caps cached parts at the input and ignores negative counts", () => {
    const rates = { input: 2, cacheWrite: 2.5, cacheRead: 0.2, output: 10 };
    const cost = usageCostNanoAiu(rates, {
      inputTokens: 100,
      cacheReadTokens: 500,
      cacheWriteTokens: 50,
      outputTokens: -3,
    });
    assert.equal(cost, 100 * 20_000);
  });

  it("refuses a rate that is not a whole number of nano-AIU per token", () => {
    assert.throws(
      () => nanoAiuPerToken(0.000001),
      (error: unknown) =>
        error instanceof CursorError && error.code === "invalid_argument" &&
        error.message.includes("rate 0.000001 USD per million"),
    );
    assert.throws(() => nanoAiuPerToken(-1), CursorError);
    assert.throws(() => nanoAiuPerToken(Number.NaN), CursorError);
  });
});
