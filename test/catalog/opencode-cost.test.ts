import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ProviderConfig } from "@opencode-ai/sdk";
import type { CatalogModel, CatalogVariant } from "../../src/catalog/catalog-model.ts";
import { fetchAvailableModels } from "../../src/catalog/available-models.ts";
import { openCodeCost } from "../../src/catalog/opencode-cost.ts";
import { type OpenCodeModelEntry, openCodeModels } from "../../src/catalog/opencode-entries.ts";
import type { PricingCatalogue } from "../../src/billing/pricing-catalogue.ts";
import { EMULATOR_ORIGIN, emulatorWithFetch } from "../auth/support/emulator-fetch.ts";

/** OpenCode 1.18.33's config type of a model's `cost`. */
type OpenCodeConfigCost = NonNullable<NonNullable<ProviderConfig["models"]>[string]["cost"]>;

async function emulatorEntries(): Promise<Record<string, OpenCodeModelEntry>> {
  const { emulator, fetch } = await emulatorWithFetch();
  try {
    const session = await emulator.auth.issueTokens();
    const models = await fetchAvailableModels({
      apiBaseURL: EMULATOR_ORIGIN,
      accessToken: session.accessToken,
      fetch,
      machineId: "c".repeat(64),
    });
    return openCodeModels(models);
  } finally {
    await emulator.close();
  }
}

function variant(parameters: Record<string, string>, defaultNonMax = false): CatalogVariant {
  return {
    parameters: Object.entries(parameters).map(([id, value]) => ({ id, value })),
    displayName: "",
    maxMode: false,
    defaultNonMax,
    defaultMax: false,
  };
}

function model(id: string, variants: CatalogVariant[]): CatalogModel {
  return { id, displayName: id, thinking: false, images: false, tools: true, variants };
}

describe("OpenCode model cost", () => {
  it("prices the emulator's entries and leaves unpriced ones without a cost", async () => {
    const entries = await emulatorEntries();
    const costs = Object.fromEntries(
      Object.entries(entries).map(([id, entry]) => [id, entry.cost]),
    );
    const sonnet = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
    assert.deepEqual(costs, {
      "default": undefined,
      "claude-4.5-sonnet": sonnet,
      "claude-4.5-sonnet-1m": sonnet,
      "claude-4.1-opus": undefined,
      "gpt-5": { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 },
      "gemini-2.5-pro": undefined,
      "gemini-2.5-pro-500k": undefined,
      "composer-1": { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 },
    });
    assert.equal("cost" in (entries["default"] ?? {}), false);
  });

  it("has OpenCode 1.18's config shape", () => {
    const cost = openCodeCost("claude-4-sonnet");
    assert.ok(cost);
    const typed: OpenCodeConfigCost = cost;
    assert.deepEqual(typed, {
      input: 3,
      output: 15,
      cache_read: 0.3,
      cache_write: 3.75,
      context_over_200k: { input: 6, output: 22.5, cache_read: 0.6, cache_write: 7.5 },
    });
  });

  it("follows the entry's default variant, Fast included", () => {
    const entries = openCodeModels([
      model("composer-2.5", [variant({ fast: "true" }, true), variant({ fast: "false" })]),
    ]);
    assert.deepEqual(entries["composer-2.5"]?.cost, {
      input: 3,
      output: 15,
      cache_read: 0.5,
      cache_write: 3,
    });
  });

  it("uses the pricing catalogue it is given", () => {
    const pricing: PricingCatalogue = {
      source: "https://example.test/prices",
      seen: "2026-12-01",
      maxMode: "API rate",
      models: [{
        kind: "priced",
        id: "m",
        name: "M",
        rates: { input: 1, cacheWrite: 2, cacheRead: 0.1, output: 4 },
      }],
    };
    const entries = openCodeModels([model("m", []), model("n", [])], pricing);
    assert.deepEqual(entries["m"]?.cost, { input: 1, output: 4, cache_read: 0.1, cache_write: 2 });
    assert.equal(entries["n"]?.cost, undefined);
  });
});
