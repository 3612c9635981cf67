import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as web from "../../mod.ts";
import * as node from "../../node.ts";
import * as webV4 from "../../v4.ts";
import * as nodeV4 from "../../node-v4.ts";

describe("entry exports", () => {
  const entries = [["mod.ts", web], ["node.ts", node], ["v4.ts", webV4], [
    "node-v4.ts",
    nodeV4,
  ]] as const;
  for (const [name, entry] of entries) {
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

  it("the /v4 entries' providers and models are ProviderV4 and LanguageModelV4", () => {
    for (const create of [webV4.createCursor, nodeV4.createCursor]) {
      const cursor = create({ accessToken: "t", env: {} });
      assert.equal(cursor.specificationVersion, "v4");
      const model = cursor("composer-2");
      assert.equal(model.specificationVersion, "v4");
      assert.equal(model.provider, "cursor.direct");
      assert.ok(model instanceof webV4.CursorLanguageModelV4);
    }
  });
});
