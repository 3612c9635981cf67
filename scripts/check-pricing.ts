/**
 * Pricing coverage: every model and variant of the emulator's catalogue (the models the
 * test suites and the OpenCode end-to-end run offer) has a rate in the pricing catalogue
 * or is explicitly unpriced, and the pricing data is well-formed and sourced.
 *
 * Usage: `deno run -A scripts/check-pricing.ts` (part of `npm run check`)
 *
 * @module
 */
import { type OfferedModel, pricingCoverageProblems } from "../src/billing/coverage.ts";
import { CURSOR_PRICING } from "../src/billing/cursor-pricing.ts";
import { defaultCatalog } from "../src/testing/emulator/catalog/catalog-data.ts";

const offered: OfferedModel[] = defaultCatalog().map((model) => ({
  id: model.id,
  variants: model.variants.map((variant) =>
    Object.entries(variant.parameters).map(([id, value]) => ({ id, value }))
  ),
}));
const problems = pricingCoverageProblems(CURSOR_PRICING, offered);
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(
    `Pricing coverage failed: ${problems.length} problem(s); see src/billing/cursor-pricing.ts`,
  );
  Deno.exit(1);
}
console.log(
  `Pricing covers ${offered.length} models (source ${CURSOR_PRICING.source}, seen ${CURSOR_PRICING.seen})`,
);
