import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import { openCodeFamily } from "../../src/catalog/model-family.ts";
import { openCodeModels } from "../../src/catalog/opencode-entries.ts";

function model(id: string, contexts: string[] = []): CatalogModel {
  return {
    id,
    displayName: id,
    thinking: false,
    images: false,
    tools: true,
    variants: contexts.map((value, index) => ({
      parameters: [{ id: "context", value }],
      displayName: `${id} ${value}`,
      maxMode: value === "1m",
      defaultNonMax: index === 0,
      defaultMax: value === "1m",
    })),
  };
}

describe("openCodeFamily", () => {
  it("names the families OpenCode looks for when it picks its small model", () => {
    assert.equal(openCodeFamily("gemini-2.5-flash"), "gemini-flash");
    assert.equal(openCodeFamily("gemini-3-flash"), "gemini-flash");
    assert.equal(openCodeFamily("gpt-5-nano"), "gpt-nano");
    assert.equal(openCodeFamily("claude-4.5-haiku"), "claude-haiku");
    assert.equal(openCodeFamily("claude-4.5-haiku-thinking"), "claude-haiku");
  });

  it("names the larger models' families so they are never taken for small ones", () => {
    assert.equal(openCodeFamily("claude-4.5-sonnet"), "claude-sonnet");
    assert.equal(openCodeFamily("claude-4.1-opus"), "claude-opus");
    assert.equal(openCodeFamily("gemini-2.5-pro"), "gemini-pro");
    assert.equal(openCodeFamily("gemini-2.5-flash-lite"), "gemini-flash-lite");
    assert.equal(openCodeFamily("gpt-5-mini"), "gpt-mini");
    assert.equal(openCodeFamily("gpt-5.1-codex"), "gpt-codex");
    assert.equal(openCodeFamily("gpt-5"), "gpt");
    assert.equal(openCodeFamily("grok-code-fast-1"), "grok");
    assert.equal(openCodeFamily("composer-1"), "composer");
  });

  it("names no family for Auto or an unknown id", () => {
    assert.equal(openCodeFamily("default"), undefined);
    assert.equal(openCodeFamily("something-new"), undefined);
  });
});

describe("openCodeModels families", () => {
  it("puts the family on the base entry only, never on a tier entry", () => {
    const entries = openCodeModels([model("gemini-2.5-flash", ["200k", "1m"]), model("default")]);
    assert.equal(entries["gemini-2.5-flash"]?.family, "gemini-flash");
    assert.ok(entries["gemini-2.5-flash-1m"], "the 1M tier entry exists");
    assert.equal("family" in (entries["gemini-2.5-flash-1m"] ?? {}), false);
    assert.equal("family" in (entries["default"] ?? {}), false);
  });
});
