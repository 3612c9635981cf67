/**
 * Model id → price. Understands the ids the catalogue and hosts use: Cursor's wire id
 * with a variant tuple (`gpt-5` + `fast=true`), the CLI's parameterised form
 * (`claude-opus-4-8[context=1m,fast=false]`), OpenCode tier entries (`claude-4.5-sonnet-1m`,
 * `gemini-2.5-pro-500k`) and variant suffixes baked into an id (`gpt-5-high-fast`).
 *
 * @module
 */
import type { ModelPricing, PricedModel, PricingCatalogue } from "./pricing-catalogue.ts";
import { LONG_CONTEXT_THRESHOLD_TOKENS, type TokenRates } from "./rates.ts";

/** One variant parameter (`fast=true`, `context=1m`, `effort=high`). */
export interface PriceParameter {
  readonly id: string;
  readonly value: string;
}

/** What to price. */
export interface PriceQuery {
  /** A model id in any of the forms above. */
  readonly modelId: string;
  /** The chosen variant's exact parameter tuple, if any. */
  readonly parameters?: readonly PriceParameter[] | undefined;
}

/** The rates that apply to a model and variant. */
export interface PricedLookup {
  readonly kind: "priced";
  /** The catalogue's id for the model. */
  readonly modelId: string;
  /** The variant is a Fast one and these are its Fast rates. */
  readonly fast: boolean;
  readonly rates: TokenRates;
  /** Rates when a request's prompt exceeds 200k tokens, if Cursor lists a surcharge. */
  readonly over200k?: TokenRates;
}

/** No rate: nothing is billed. */
export interface UnpricedLookup {
  readonly kind: "unpriced";
  /** The catalogue's id, or the queried id when the catalogue does not know the model. */
  readonly modelId: string;
  readonly reason: string;
  /** The catalogue states this explicitly (false: the model is not in the catalogue). */
  readonly listed: boolean;
}

/** The result of {@link lookupPrice}. */
export type PriceLookup = PricedLookup | UnpricedLookup;

const VARIANT_SUFFIX = /-(fast|thinking|low|medium|high|xhigh|max|minimal|none|\d+(?:\.\d+)?[km])$/;

/**
 * Finds the rates for a model and variant.
 *
 * @param catalogue The pricing catalogue.
 * @param query The model id and the variant's parameters.
 * @returns The rates, or why there are none.
 *
 * @example
 * ```ts
 * import { CURSOR_PRICING } from "./cursor-pricing.ts";
 * import { lookupPrice } from "./price-lookup.ts";
 *
 * const fast = lookupPrice(CURSOR_PRICING, {
 *   modelId: "gpt-5",
 *   parameters: [{ id: "reasoning", value: "high" }, { id: "fast", value: "true" }],
 * });
 * console.assert(fast.kind === "priced" && fast.fast && fast.rates.output === 20);
 * console.assert(lookupPrice(CURSOR_PRICING, { modelId: "claude-4.5-sonnet-1m" }).kind === "priced");
 * console.assert(lookupPrice(CURSOR_PRICING, { modelId: "default" }).kind === "unpriced");
 * ```
 */
export function lookupPrice(catalogue: PricingCatalogue, query: PriceQuery): PriceLookup {
  const parsed = parseModelId(query.modelId);
  let id = parsed.id;
  let fast = parsed.fast || isFast(query.parameters);
  let model = findModel(catalogue, id);
  while (model === undefined) {
    const suffix = VARIANT_SUFFIX.exec(id);
    if (suffix === null) break;
    if (suffix[1] === "fast") fast = true;
    id = id.slice(0, suffix.index);
    model = findModel(catalogue, id);
  }
  if (model === undefined) {
    return {
      kind: "unpriced",
      modelId: query.modelId,
      reason: `No rate in the pricing catalogue for model ${JSON.stringify(query.modelId)}`,
      listed: false,
    };
  }
  if (model.kind === "unpriced") {
    return { kind: "unpriced", modelId: model.id, reason: model.reason, listed: true };
  }
  return fast ? fastLookup(model) : priced(model, false, model.rates, model.over200k);
}

/**
 * The rates for a request with this many prompt tokens: the `over200k` tier above 200k.
 *
 * @param lookup A priced lookup.
 * @param promptTokens The request's input tokens (cached included).
 * @returns The rates that apply.
 *
 * @example
 * ```ts
 * import { CURSOR_PRICING } from "./cursor-pricing.ts";
 * import { lookupPrice, ratesForPrompt } from "./price-lookup.ts";
 *
 * const sonnet4 = lookupPrice(CURSOR_PRICING, { modelId: "claude-4-sonnet-1m" });
 * if (sonnet4.kind === "priced") {
 *   console.assert(ratesForPrompt(sonnet4, 150_000).input === 3);
 *   console.assert(ratesForPrompt(sonnet4, 250_000).input === 6);
 * }
 * ```
 */
export function ratesForPrompt(lookup: PricedLookup, promptTokens: number): TokenRates {
  return lookup.over200k !== undefined && promptTokens > LONG_CONTEXT_THRESHOLD_TOKENS
    ? lookup.over200k
    : lookup.rates;
}

function fastLookup(model: PricedModel): PriceLookup {
  if (model.fast === undefined) {
    return {
      kind: "unpriced",
      modelId: model.id,
      reason: `Cursor lists no Fast variant rate for ${model.name}`,
      listed: false,
    };
  }
  if ("unpriced" in model.fast) {
    return { kind: "unpriced", modelId: model.id, reason: model.fast.unpriced, listed: true };
  }
  return priced(model, true, model.fast, undefined);
}

function priced(
  model: PricedModel,
  fast: boolean,
  rates: TokenRates,
  over200k: TokenRates | undefined,
): PricedLookup {
  return { kind: "priced", modelId: model.id, fast, rates, ...(over200k ? { over200k } : {}) };
}

function findModel(catalogue: PricingCatalogue, id: string): ModelPricing | undefined {
  return catalogue.models.find((model) => model.id === id || (model.aliases ?? []).includes(id));
}

function isFast(parameters: readonly PriceParameter[] | undefined): boolean {
  return (parameters ?? []).some((p) =>
    p.id.trim().toLowerCase() === "fast" && p.value.trim().toLowerCase() === "true"
  );
}

/** `id[key=value,…]` → the id and whether `fast=true` is among the bracketed parameters. */
function parseModelId(modelId: string): { id: string; fast: boolean } {
  const trimmed = modelId.trim().toLowerCase();
  const bracket = /^([^[\]]+)\[([^\]]*)\]$/.exec(trimmed);
  if (bracket === null) return { id: trimmed, fast: false };
  const parameters = (bracket[2] ?? "").split(",").map((pair) => {
    const [id = "", value = ""] = pair.split("=");
    return { id, value };
  });
  return { id: (bracket[1] ?? "").trim(), fast: isFast(parameters) };
}
