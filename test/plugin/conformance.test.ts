/**
 * The entries are typed against this package's own structural types; these assignments
 * fail to type-check when they stop fitting OpenCode's published plugin types
 * (`@opencode-ai/plugin` 1.18.33: the classic `Plugin` and the v2 promise `Plugin`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Hooks, Plugin, PluginModule } from "@opencode-ai/plugin";
import type { Plugin as V2Plugin } from "@opencode-ai/plugin/v2/promise";
import CursorPluginModule, { CursorPlugin } from "../../plugin/mod.ts";
import CursorV2Plugin from "../../plugin/v2.ts";
import CursorOpenCode2Plugin from "../../plugin/opencode2.ts";

const classic: Plugin = CursorPlugin;
const classicModule: PluginModule = CursorPluginModule;
const v2: V2Plugin = CursorV2Plugin;
const opencode2: V2Plugin = CursorOpenCode2Plugin;

describe("conformance with @opencode-ai/plugin", () => {
  it("the entries fit OpenCode's plugin types", async () => {
    assert.equal(classicModule.server, classic);
    assert.equal(typeof v2.setup, "function");
    assert.equal(typeof opencode2.setup, "function");
    const hooks: Hooks = await classic({} as Parameters<Plugin>[0]);
    assert.equal(hooks.auth?.provider, "cursor");
    assert.deepEqual(hooks.auth?.methods.map((m) => m.type), ["oauth", "api"]);
  });
});
