import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import { checkModelSelection } from "../../src/catalog/variant-selection.ts";
import { CursorError } from "../../src/core/cursor-error.ts";

const catalog: CatalogModel[] = [{
  id: "gpt-5",
  displayName: "GPT-5",
  thinking: true,
  images: true,
  tools: true,
  variants: ["low", "high"].map((level) => ({
    parameters: [{ id: "reasoning", value: level }, { id: "fast", value: "false" }],
    displayName: level,
    maxMode: false,
    defaultNonMax: level === "low",
    defaultMax: false,
  })),
}];

const tuple = (
  level: string,
) => [{ id: "reasoning", value: level }, { id: "fast", value: "false" }];

describe("checkModelSelection", () => {
  it("accepts an advertised tuple in any order, and no tuple at all", () => {
    const offered = ["low", "high"];
    const ok = (options: Record<string, unknown>, variantKey?: string) =>
      checkModelSelection(catalog, {
        modelId: "gpt-5",
        variantKey,
        offeredVariants: offered,
        options,
      });
    assert.equal(ok({ cursorVariantParameters: tuple("high") }, "high"), undefined);
    assert.equal(ok({ cursorVariantParameters: [...tuple("low")].reverse() }), undefined);
    assert.equal(ok({}), undefined);
    assert.equal(ok({ cursorVariantParameters: [] }), undefined);
  });

  it("rejects a variant name the model entry no longer offers, listing the offered ones", () => {
    const error = checkModelSelection(catalog, {
      modelId: "gpt-5",
      variantKey: "medium",
      offeredVariants: ["low", "high"],
      options: { cursorVariantParameters: tuple("low") },
    });
    assert.ok(error instanceof CursorError);
    assert.equal(error.code, "invalid_argument");
    assert.match(
      error.message,
      /"medium" of Cursor model "gpt-5" is no longer offered \(it offers "low", "high"\)/,
    );
  });

  it("rejects a tuple Cursor does not advertise as stale, naming the parameters", () => {
    const error = checkModelSelection(catalog, {
      modelId: "gpt-5",
      offeredVariants: [],
      options: { cursorVariantParameters: tuple("xhigh") },
    });
    assert.match(error?.message ?? "", /reasoning=xhigh, fast=false\) is stale/);
    const partial = checkModelSelection(catalog, {
      modelId: "gpt-5",
      offeredVariants: [],
      options: { cursorVariantParameters: [{ id: "reasoning", value: "low" }] },
    });
    assert.ok(partial, "a subset of a tuple is not the tuple");
  });

  it("checks a tier entry against its real model id", () => {
    const error = checkModelSelection(catalog, {
      modelId: "gpt-5-1m",
      offeredVariants: [],
      options: {
        cursorModelId: "gpt-5",
        cursorVariantParameters: [{ id: "context", value: "1m" }],
      },
    });
    assert.match(error?.message ?? "", /stale/);
  });

  it("rejects malformed options", () => {
    const cases: Record<string, unknown>[] = [
      { cursorVariantParameters: "reasoning=high" },
      { cursorVariantParameters: [["reasoning", "high"]] },
      { cursorVariantParameters: [{ id: "reasoning", value: 3 }] },
      { cursorMaxMode: "yes" },
      { cursorModelId: 42 },
    ];
    for (const options of cases) {
      const error = checkModelSelection(catalog, {
        modelId: "gpt-5",
        offeredVariants: [],
        options,
      });
      assert.match(
        error?.message ?? "",
        /^Malformed Cursor model options/,
        JSON.stringify(options),
      );
    }
  });

  it("leaves models it does not know, or a missing catalogue, to Cursor", () => {
    const options = { cursorVariantParameters: [{ id: "x", value: "y" }] };
    assert.equal(
      checkModelSelection(catalog, { modelId: "custom", offeredVariants: [], options }),
      undefined,
    );
    assert.equal(
      checkModelSelection(undefined, { modelId: "gpt-5", offeredVariants: [], options }),
      undefined,
    );
  });
});
