import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as web from "../../mod.ts";
import * as node from "../../node.ts";

describe("entry exports", () => {
  for (const [name, entry] of [["mod.ts", web], ["node.ts", node]] as const) {
    it(`${name} exports exactly one create* function (OpenCode calls the first one)`, () => {
      const factories = Object.entries(entry).filter(([key, value]) =>
        key.startsWith("create") && typeof value === "function"
      );
      assert.deepEqual(factories.map(([key]) => key), ["createCursor"]);
    });
  }

  it("the Node entry's models are LanguageModelV3", () => {
    const model = node.createCursor({ accessToken: "t", env: {} })("composer-2");
    assert.equal(model.specificationVersion, "v3");
    assert.equal(model.provider, "cursor.direct");
  });
});
