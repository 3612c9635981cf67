/**
 * Pricing coverage: every model and variant a catalogue offers must have a rate or be
 * explicitly unpriced, and the pricing data itself must be well-formed and sourced.
 *
 * @module
 */
import { lookupPrice, type PriceParameter } from "./price-lookup.ts";
import type { PricingCatalogue, TokenRatesOrReason } from "./pricing-catalogue.ts";
import { nanoAiuPerToken, type TokenRates } from "./rates.ts";

/** A model as a model catalogue offers it: its id and its variants' parameter tuples. */
export interface OfferedModel {
  readonly id: string;
  readonly variants: readonly (readonly PriceParameter[])[];
}

/**
 * Lists what is wrong: malformed pricing data, and offered models or variants with
 * neither a rate nor an explicit reason.
 *
 * @param catalogue The pricing catalogue.
 * @param offered The models to cover.
 * @returns One sentence per problem; empty when everything is covered.
 *
 * @example
 * ```ts
 * import { pricingCoverageProblems } from "./coverage.ts";
 * import { CURSOR_PRICING } from "./cursor-pricing.ts";
 *
 * const problems = pricingCoverageProblems(CURSOR_PRICING, [{ id: "no-such-model", variants: [] }]);
 * console.assert(problems.length === 1);
 * ```
 */
export function pricingCoverageProblems(
  catalogue: PricingCatalogue,
  offered: readonly OfferedModel[],
): string[] {
  const problems = dataProblems(catalogue);
  for (const model of offered) {
    const tuples = model.variants.length === 0 ? [[]] : model.variants;
    for (const parameters of tuples) {
      const lookup = lookupPrice(catalogue, { modelId: model.id, parameters });
      if (lookup.kind === "unpriced" && !lookup.listed) {
        const variant = parameters.map((p) => `${p.id}=${p.value}`).join(",");
        problems.push(
          `Model ${JSON.stringify(model.id)}${
            variant === "" ? "" : ` variant ${JSON.stringify(variant)}`
          } has no rate and is not marked unpriced: ${lookup.reason}`,
        );
      }
    }
  }
  return problems;
}

function dataProblems(catalogue: PricingCatalogue): string[] {
  const problems: string[] = [];
  if (!/^https:\/\/\S+$/.test(catalogue.source)) {
    problems.push(`Pricing source ${JSON.stringify(catalogue.source)} is not an https URL`);
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(catalogue.seen)) {
    problems.push(`Pricing date ${JSON.stringify(catalogue.seen)} is not YYYY-MM-DD`);
  }
  const seen = new Set<string>();
  for (const model of catalogue.models) {
    for (const id of [model.id, ...model.aliases ?? []]) {
      if (seen.has(id)) problems.push(`Model id ${JSON.stringify(id)} appears twice`);
      seen.add(id);
    }
    if (model.kind === "unpriced") {
      if (model.reason.trim() === "") {
        problems.push(`Unpriced model ${JSON.stringify(model.id)} gives no reason`);
      }
      continue;
    }
    problems.push(...rateProblems(model.id, "rates", model.rates));
    if (model.over200k) problems.push(...rateProblems(model.id, "over200k", model.over200k));
    if (model.fast) problems.push(...rateProblems(model.id, "fast", model.fast));
  }
  return problems;
}

function rateProblems(id: string, tier: string, rates: TokenRatesOrReason): string[] {
  if ("unpriced" in rates) {
    return rates.unpriced.trim() === ""
      ? [`Model ${JSON.stringify(id)} ${tier}: unpriced without a reason`]
      : [];
  }
  const problems: string[] = [];
  for (const [name, value] of Object.entries(rates) as [keyof TokenRates, number | undefined][]) {
    if (value === undefined && name === "cacheWrite") continue;
    try {
      nanoAiuPerToken(value ?? Number.NaN);
    } catch (error) {
      problems.push(`Model ${JSON.stringify(id)} ${tier}.${name}: ${(error as Error).message}`);
    }
  }
  return problems;
}
