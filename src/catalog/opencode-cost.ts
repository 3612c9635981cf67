/**
 * A model's price in OpenCode's shape (`provider.<id>.models.<model>.cost` in opencode.json,
 * OpenCode 1.18): USD per million tokens for input, output, cache reads and writes, and
 * the `context_over_200k` rates OpenCode applies when a step's input exceeds 200k tokens.
 *
 * @module
 */
import { CURSOR_PRICING } from "../billing/cursor-pricing.ts";
import { lookupPrice, type PriceParameter } from "../billing/price-lookup.ts";
import type { PricingCatalogue } from "../billing/pricing-catalogue.ts";
import type { TokenRates } from "../billing/rates.ts";

/** OpenCode's per-token rates (USD per million tokens). */
export interface OpenCodeTokenCost {
  readonly input: number;
  readonly output: number;
  readonly cache_read: number;
  readonly cache_write: number;
}

/** OpenCode's `cost` of a model entry. */
export interface OpenCodeModelCost extends OpenCodeTokenCost {
  /** The rates for a step whose input exceeds 200k tokens. */
  readonly context_over_200k?: OpenCodeTokenCost;
}

/**
 * The OpenCode `cost` of a model and variant, or `undefined` when Cursor publishes no rate
 * (Auto, unlisted models): the entry then has no `cost`, which OpenCode counts as free,
 * instead of a zero price that would claim the model is free.
 *
 * @param modelId Cursor's model id.
 * @param parameters The entry's default variant tuple, if any.
 * @param pricing The pricing catalogue (default: Cursor's published rates).
 * @returns The cost, or `undefined` for an unpriced model.
 *
 * @example
 * ```ts
 * import { openCodeCost } from "./opencode-cost.ts";
 *
 * console.assert(openCodeCost("gpt-5", [{ id: "fast", value: "true" }])?.output === 20);
 * console.assert(openCodeCost("gpt-5")?.cache_write === 1.25);
 * console.assert(openCodeCost("default") === undefined);
 * ```
 */
export function openCodeCost(
  modelId: string,
  parameters: readonly PriceParameter[] = [],
  pricing: PricingCatalogue = CURSOR_PRICING,
): OpenCodeModelCost | undefined {
  const lookup = lookupPrice(pricing, { modelId, parameters });
  if (lookup.kind === "unpriced") return undefined;
  const base = tokenCost(lookup.rates);
  return lookup.over200k ? { ...base, context_over_200k: tokenCost(lookup.over200k) } : base;
}

/** Cursor lists no cache-write rate ("-") where writes cost what input costs. */
function tokenCost(rates: TokenRates): OpenCodeTokenCost {
  return {
    input: rates.input,
    output: rates.output,
    cache_read: rates.cacheRead,
    cache_write: rates.cacheWrite ?? rates.input,
  };
}
