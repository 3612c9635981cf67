import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fetchAvailableModels } from "../../src/catalog/available-models.ts";
import type { CatalogModel, CatalogVariant } from "../../src/catalog/catalog-model.ts";
import {
  type OpenCodeModelEntry,
  openCodeModels,
  variantKey,
} from "../../src/catalog/opencode-entries.ts";
import { EMULATOR_ORIGIN, emulatorWithFetch } from "../auth/support/emulator-fetch.ts";

async function emulatorEntries(): Promise<Record<string, OpenCodeModelEntry>> {
  const { emulator, fetch } = await emulatorWithFetch();
  try {
    const session = await emulator.auth.issueTokens();
    const models = await fetchAvailableModels({
      apiBaseURL: EMULATOR_ORIGIN,
      accessToken: session.accessToken,
      fetch,
      machineId: "b".repeat(64),
    });
    return openCodeModels(models);
  } finally {
    await emulator.close();
  }
}

function variant(
  parameters: Record<string, string>,
  flags: Partial<Pick<CatalogVariant, "maxMode" | "defaultMax" | "defaultNonMax">> = {},
): CatalogVariant {
  return {
    parameters: Object.entries(parameters).map(([id, value]) => ({ id, value })),
    displayName: "",
    maxMode: flags.maxMode ?? false,
    defaultMax: flags.defaultMax ?? false,
    defaultNonMax: flags.defaultNonMax ?? false,
  };
}

function model(
  id: string,
  variants: CatalogVariant[],
  extra: Partial<CatalogModel> = {},
): CatalogModel {
  return { id, displayName: id, thinking: false, images: false, tools: true, variants, ...extra };
}

describe("openCodeModels (the emulator's catalogue)", () => {
  it("makes one entry per model plus the 1M and 500k tier entries", async () => {
    const entries = await emulatorEntries();
    assert.deepEqual(Object.keys(entries), [
      "default",
      "claude-4.5-sonnet",
      "claude-4.5-sonnet-1m",
      "claude-4.1-opus",
      "gpt-5",
      "gemini-2.5-pro",
      "gemini-2.5-pro-500k",
      "composer-1",
    ]);
  });

  it("gives the base entry its default variant's tuple and every non-1M variant", async () => {
    const sonnet = (await emulatorEntries())["claude-4.5-sonnet"];
    assert.deepEqual(sonnet, {
      id: "claude-4.5-sonnet",
      name: "Sonnet 4.5",
      family: "claude-sonnet",
      reasoning: true,
      tool_call: true,
      attachment: true,
      temperature: false,
      modalities: { input: ["text", "image"], output: ["text"] },
      limit: { context: 200_000, output: 32_000 },
      cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
      options: {
        cursorVariantParameters: [{ id: "thinking", value: "false" }, {
          id: "context",
          value: "200k",
        }],
        cursorMaxMode: false,
      },
      variants: {
        standard: {
          cursorVariantParameters: [{ id: "thinking", value: "false" }, {
            id: "context",
            value: "200k",
          }],
          cursorMaxMode: false,
        },
        thinking: {
          cursorVariantParameters: [{ id: "thinking", value: "true" }, {
            id: "context",
            value: "200k",
          }],
          cursorMaxMode: false,
        },
      },
    });
  });

  it("makes a -1m entry with the 1M limit, 128k output, the real id and Max Mode", async () => {
    const long = (await emulatorEntries())["claude-4.5-sonnet-1m"];
    assert.equal(long?.name, "Sonnet 4.5 1M");
    assert.deepEqual(long?.limit, { context: 1_000_000, output: 128_000 });
    assert.deepEqual(long?.options, {
      cursorModelId: "claude-4.5-sonnet",
      cursorVariantParameters: [{ id: "thinking", value: "true" }, { id: "context", value: "1m" }],
      cursorMaxMode: true,
    });
    assert.deepEqual(Object.keys(long?.variants ?? {}), ["standard", "thinking"]);
    for (const value of Object.values(long?.variants ?? {})) {
      assert.equal(value.cursorMaxMode, true);
    }
  });

  it("makes a dedicated 500k entry and keeps the 500k variant on the base entry", async () => {
    const entries = await emulatorEntries();
    const tier = entries["gemini-2.5-pro-500k"];
    assert.equal(tier?.name, "Gemini 2.5 Pro 500K");
    assert.deepEqual(tier?.limit, { context: 500_000, output: 32_000 });
    assert.deepEqual(tier?.options, {
      cursorModelId: "gemini-2.5-pro",
      cursorVariantParameters: [{ id: "context", value: "500k" }],
      cursorMaxMode: true,
    });
    const base = entries["gemini-2.5-pro"];
    assert.equal(base?.limit.context, 200_000);
    assert.deepEqual(Object.keys(base?.variants ?? {}), ["standard", "500k"]);
  });

  it("names effort and fast variants after their values", async () => {
    const entries = await emulatorEntries();
    assert.deepEqual(Object.keys(entries["gpt-5"]?.variants ?? {}), [
      "low",
      "low-fast",
      "medium",
      "medium-fast",
      "high",
      "high-fast",
    ]);
    assert.deepEqual(entries["gpt-5"]?.options.cursorVariantParameters, [
      { id: "reasoning", value: "medium" },
      { id: "fast", value: "false" },
    ]);
    assert.equal(entries["gpt-5"]?.limit.context, 272_000);
    const opus = entries["claude-4.1-opus"];
    assert.deepEqual(Object.keys(opus?.variants ?? {}), ["low", "medium", "high"]);
    assert.deepEqual(opus?.options, {
      cursorVariantParameters: [{ id: "effort", value: "high" }],
      cursorMaxMode: true,
    });
  });

  it("gives a model without variants plain options and text-only input when it has no images", async () => {
    const composer = (await emulatorEntries())["composer-1"];
    assert.deepEqual(composer?.options, {});
    assert.equal(composer?.variants, undefined);
    assert.deepEqual(composer?.modalities.input, ["text"]);
    assert.equal(composer?.reasoning, false);
  });
});

describe("openCodeModels (edge cases)", () => {
  it("uses the base id for a model that has only 1M variants", () => {
    const entries = openCodeModels([
      model("long-only", [variant({ context: "1m", effort: "high" }, { maxMode: true })]),
    ]);
    assert.deepEqual(Object.keys(entries), ["long-only"]);
    assert.equal(entries["long-only"]?.limit.context, 1_000_000);
    assert.equal(entries["long-only"]?.options.cursorModelId, undefined);
    assert.equal(entries["long-only"]?.options.cursorMaxMode, true);
  });

  it("does not take an id Cursor already uses for a tier entry", () => {
    const entries = openCodeModels([
      model("m", [variant({ context: "200k" }), variant({ context: "1m" })]),
      model("m-1m", []),
    ]);
    assert.ok(entries["m-1m-2"]);
    assert.equal(entries["m-1m-2"]?.options.cursorModelId, "m");
    assert.equal(entries["m-1m"]?.options.cursorModelId, undefined);
  });

  it("tells apart models with the same display name", () => {
    const entries = openCodeModels([
      model("a", [], { displayName: "Same" }),
      model("a-thinking", [], { displayName: "Same", thinking: true }),
      model("b", [], { displayName: "Twin" }),
      model("c", [], { displayName: "Twin" }),
    ]);
    assert.equal(entries["a"]?.name, "Same");
    assert.equal(entries["a-thinking"]?.name, "Same Thinking");
    assert.equal(entries["b"]?.name, "Twin (b)");
    assert.equal(entries["c"]?.name, "Twin (c)");
  });

  it("keeps variant names unique", () => {
    const entries = openCodeModels([
      model("m", [variant({ effort: "high", thinking: "false" }), variant({ effort: "high" })]),
    ]);
    assert.deepEqual(Object.keys(entries["m"]?.variants ?? {}), ["high", "high-2"]);
  });

  it("derives variant names from parameters", () => {
    assert.equal(
      variantKey(variant({ effort: "xhigh", thinking: "true", fast: "true" }), undefined),
      "xhigh-thinking-fast",
    );
    assert.equal(variantKey(variant({ context: "500k" }), "200k"), "500k");
    assert.equal(variantKey(variant({ context: "200k" }), "200k"), "standard");
    assert.equal(variantKey(variant({ reasoning_effort: "Very High!" }), undefined), "very-high");
  });
});
