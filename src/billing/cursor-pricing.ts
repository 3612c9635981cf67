/**
 * Cursor's published token rates (data). Every number is copied from the model pricing
 * table of https://cursor.com/docs/models-and-pricing (USD per million tokens), read on
 * the date in `seen`; a model that table does not list is `unpriced` with the reason.
 * `scripts/check-pricing.ts` (part of `npm run check`) fails when a model of the
 * emulator's catalogue has neither; docs/decisions/055-pricing-catalogue.md says how to
 * refresh the table.
 *
 * @module
 */
import type { PricingCatalogue } from "./pricing-catalogue.ts";

const NOT_LISTED =
  "Cursor's model pricing table lists no rate for it (checked 2026-05-17 and 2026-12-01)";

/**
 * The built-in catalogue.
 *
 * @example
 * ```ts
 * import { CURSOR_PRICING } from "./cursor-pricing.ts";
 *
 * const sonnet = CURSOR_PRICING.models.find((model) => model.id === "claude-4.5-sonnet");
 * console.assert(sonnet?.kind === "priced" && sonnet.rates.output === 15);
 * ```
 */
export const CURSOR_PRICING: PricingCatalogue = {
  source: "https://cursor.com/docs/models-and-pricing",
  seen: "2026-12-01",
  maxMode:
    "Billed at the model's API rate on current individual plans; legacy request-based plans add 20%, Teams plans add a Cursor Token Rate of $0.25 per million tokens (neither is modelled here)",
  models: [
    {
      kind: "unpriced",
      id: "default",
      aliases: ["auto"],
      name: "Auto",
      reason:
        "Auto lets Cursor choose the model per request and meters it against the Auto + Composer pool, not at a model's API rate",
    },
    {
      kind: "priced",
      id: "claude-4.5-sonnet",
      name: "Claude 4.5 Sonnet",
      rates: { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
      note: "Up to 1M tokens (Max Mode) with no long-context surcharge",
    },
    {
      kind: "priced",
      id: "claude-4-sonnet",
      name: "Claude 4 Sonnet",
      rates: { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
      over200k: { input: 6, cacheWrite: 7.5, cacheRead: 0.6, output: 22.5 },
      note: "Claude 4 Sonnet 1M: the cost is 2x when the input exceeds 200k tokens",
    },
    {
      kind: "priced",
      id: "claude-sonnet-5",
      name: "Claude Sonnet 5",
      rates: { input: 2, cacheWrite: 2.5, cacheRead: 0.2, output: 10 },
    },
    {
      kind: "priced",
      id: "claude-opus-4-8",
      name: "Claude Opus 4.8",
      rates: { input: 5, cacheWrite: 6.25, cacheRead: 0.5, output: 25 },
      fast: { unpriced: "Cursor lists Fast mode for Claude Opus 4.8 without per-token rates" },
    },
    { kind: "unpriced", id: "claude-4.1-opus", name: "Claude 4.1 Opus", reason: NOT_LISTED },
    {
      kind: "priced",
      id: "gpt-5",
      name: "GPT-5",
      rates: { input: 1.25, cacheWrite: undefined, cacheRead: 0.125, output: 10 },
      fast: { input: 2.5, cacheWrite: undefined, cacheRead: 0.25, output: 20 },
      note: "GPT-5 Fast: faster speed but 2x price",
    },
    {
      kind: "priced",
      id: "gpt-5.6-luna",
      name: "GPT-5.6 Luna",
      rates: { input: 0.2, cacheWrite: 0.25, cacheRead: 0.02, output: 1.2 },
      fast: { unpriced: "Cursor says Fast mode costs 2x but lists no Fast row for GPT-5.6 Luna" },
    },
    { kind: "unpriced", id: "gemini-2.5-pro", name: "Gemini 2.5 Pro", reason: NOT_LISTED },
    {
      kind: "priced",
      id: "composer-1",
      name: "Composer 1",
      rates: { input: 1.25, cacheWrite: undefined, cacheRead: 0.125, output: 10 },
      note:
        "Listed on 2026-05-17; no longer in the table on 2026-12-01 (rate kept as last published)",
    },
    {
      kind: "priced",
      id: "composer-2.5",
      name: "Composer 2.5",
      rates: { input: 0.5, cacheWrite: undefined, cacheRead: 0.2, output: 2.5 },
      fast: { input: 3, cacheWrite: undefined, cacheRead: 0.5, output: 15 },
    },
  ],
};
