/**
 * Catalogue costs of the two things the ledger bills: a tool-call step estimated as one
 * model call, and a Run's terminal (TurnEnded) counters.
 *
 * @module
 */
import { type PriceLookup, ratesForPrompt } from "./price-lookup.ts";
import { type TokenUsage, usageCostNanoAiu } from "./rates.ts";

/** The context of a tool-call step, from checkpoint occupancy. */
export interface StepContext {
  /** Tokens in context at this step (the checkpoint's used tokens). */
  readonly contextTokens: number;
  /** Tokens in context at the previous step (read from the prompt cache this time). */
  readonly previousContextTokens: number;
  /** Output tokens of the step, if known. */
  readonly outputTokens: number;
}

/**
 * A step as one model call: the previous step's context as cache read, the rest new input.
 *
 * @param step The step's context sizes.
 * @returns The usage the step is billed with.
 *
 * @example
 * ```ts
 * import { stepEstimateUsage } from "./step-cost.ts";
 *
 * const usage = stepEstimateUsage({ contextTokens: 12_000, previousContextTokens: 10_000, outputTokens: 1 });
 * console.assert(usage.cacheReadTokens === 10_000 && usage.inputTokens === 12_000);
 * ```
 */
export function stepEstimateUsage(step: StepContext): TokenUsage {
  const input = Math.max(0, step.contextTokens);
  return {
    inputTokens: input,
    cacheReadTokens: Math.min(Math.max(0, step.previousContextTokens), input),
    cacheWriteTokens: 0,
    outputTokens: Math.max(0, step.outputTokens),
  };
}

/**
 * The catalogue cost of a step estimate, or `undefined` for an unpriced model.
 *
 * @param lookup The model's price.
 * @param step The step's context sizes.
 * @returns Nano-AIU, or `undefined` when nothing is billed.
 *
 * @example
 * ```ts
 * import { CURSOR_PRICING } from "./cursor-pricing.ts";
 * import { lookupPrice } from "./price-lookup.ts";
 * import { stepEstimateCost } from "./step-cost.ts";
 *
 * const gpt5 = lookupPrice(CURSOR_PRICING, { modelId: "gpt-5" });
 * // 2,000 new × $1.25/M + 10,000 cached × $0.125/M + 1 output × $10/M
 * const cost = stepEstimateCost(gpt5, { contextTokens: 12_000, previousContextTokens: 10_000, outputTokens: 1 });
 * console.assert(cost === 376_000_000);
 * ```
 */
export function stepEstimateCost(lookup: PriceLookup, step: StepContext): number | undefined {
  if (lookup.kind === "unpriced") return undefined;
  const usage = stepEstimateUsage(step);
  return usageCostNanoAiu(ratesForPrompt(lookup, usage.inputTokens), usage);
}

/**
 * The catalogue cost of a Run's aggregate terminal counters, or `undefined` for an
 * unpriced model. Aggregate counters cannot show which internal call crossed a tier, so
 * the tier follows `promptTokens` (the Run's context at its end), not the aggregate input.
 *
 * @param lookup The model's price.
 * @param counters The Run's TurnEnded counters.
 * @param promptTokens The Run's largest prompt (context) size.
 * @returns Nano-AIU, or `undefined` when nothing is billed.
 *
 * @example
 * ```ts
 * import { CURSOR_PRICING } from "./cursor-pricing.ts";
 * import { lookupPrice } from "./price-lookup.ts";
 * import { runRealCost } from "./step-cost.ts";
 *
 * const sonnet = lookupPrice(CURSOR_PRICING, { modelId: "claude-4.5-sonnet" });
 * const counters = { inputTokens: 30_000, cacheReadTokens: 20_000, cacheWriteTokens: 5_000, outputTokens: 800 };
 * // 5,000 × $3 + 20,000 × $0.30 + 5,000 × $3.75 + 800 × $15, per million
 * console.assert(runRealCost(sonnet, counters, 15_000) === 5_175_000_000);
 * ```
 */
export function runRealCost(
  lookup: PriceLookup,
  counters: TokenUsage,
  promptTokens: number,
): number | undefined {
  if (lookup.kind === "unpriced") return undefined;
  return usageCostNanoAiu(ratesForPrompt(lookup, promptTokens), counters);
}
