/**
 * The shape of a pricing catalogue: Cursor's published per-model token rates, with
 * where and when they were read. A model is either priced (its rates, a Fast row and a
 * long-context tier where Cursor lists them) or explicitly unpriced with the reason.
 *
 * @module
 */
import type { TokenRates } from "./rates.ts";

/** Why a variant has no rate. */
export interface NoRate {
  readonly unpriced: string;
}

/** Rates, or the reason there are none. */
export type TokenRatesOrReason = TokenRates | NoRate;

/** A model with published rates. */
export interface PricedModel {
  readonly kind: "priced";
  /** Cursor's model id (`RequestedModel.model_id`, `cursor-agent --model`). */
  readonly id: string;
  /** Other ids Cursor uses for the same rates. */
  readonly aliases?: readonly string[];
  /** The row's name in Cursor's pricing table. */
  readonly name: string;
  /** The standard rates. */
  readonly rates: TokenRates;
  /**
   * The rates of the model's Fast row (a variant with `fast=true`), or the reason a Fast
   * variant is unpriced; absent when the model has no Fast variant.
   */
  readonly fast?: TokenRatesOrReason;
  /** Rates for requests whose prompt exceeds 200k tokens, when Cursor lists a surcharge. */
  readonly over200k?: TokenRates;
  /** What the table's notes say that matters for billing. */
  readonly note?: string;
}

/** A model Cursor publishes no rate for: nothing is billed. */
export interface UnpricedModel {
  readonly kind: "unpriced";
  readonly id: string;
  readonly aliases?: readonly string[];
  readonly name: string;
  /** Why there is no rate. */
  readonly reason: string;
}

/** One model of the catalogue. */
export type ModelPricing = PricedModel | UnpricedModel;

/** A dated, sourced set of model prices. */
export interface PricingCatalogue {
  /** The page the rates come from. */
  readonly source: string;
  /** The day the rates were last read from it (`YYYY-MM-DD`). */
  readonly seen: string;
  /** How Max Mode is billed, per the same page. */
  readonly maxMode: string;
  readonly models: readonly ModelPricing[];
}
