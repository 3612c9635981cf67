/**
 * The entries are typed against this package's own structural types; these assignments
 * fail to type-check when they stop fitting OpenCode's published plugin types
 * (`@opencode-ai/plugin` 1.18.33: the classic `Plugin` and the v2 promise `Plugin`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Hooks, Plugin, PluginModule } from "@opencode-ai/plugin";
import type { Plugin as V2Plugin } from "@opencode-ai/plugin/v2/promise";
import CursorPluginModule, { type ClassicHooks, CursorPlugin } from "../../plugin/mod.ts";
import CursorV2Plugin from "../../plugin/v2.ts";
import CursorOpenCode2Plugin from "../../plugin/opencode2.ts";

// The classic entry's `tool` hook declares its arguments as JSON schemas, which 1.18.33's
// tool registry accepts (it builds the tool's schema from them) though the published types
// list only Zod shapes; test/e2e/opencode-surface.e2e.ts runs the tools in the real binary.
// Every other hook must fit the published types exactly.
type WithoutTools = (
  ...args: Parameters<typeof CursorPlugin>
) => Promise<Omit<ClassicHooks, "tool">>;
const classicWithoutTools: WithoutTools = CursorPlugin;
const classic: Plugin = classicWithoutTools;
const classicModule: PluginModule = { ...CursorPluginModule, server: classicWithoutTools };
const v2: V2Plugin = CursorV2Plugin;
const opencode2: V2Plugin = CursorOpenCode2Plugin;

describe("conformance with @opencode-ai/plugin", () => {
  it("the entries fit OpenCode's plugin types", async () => {
    assert.equal(classicModule.server, classic);
    assert.equal(CursorPluginModule.server, CursorPlugin);
    assert.equal(typeof v2.setup, "function");
    assert.equal(typeof opencode2.setup, "function");
    const hooks: Hooks = await classic({} as Parameters<Plugin>[0]);
    assert.equal(hooks.auth?.provider, "cursor");
    assert.deepEqual(hooks.auth?.methods.map((m) => m.type), ["oauth", "api"]);
  });
});
