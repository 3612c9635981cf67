/**
 * The OpenCode 2.x plugin entry, built against the published v2 plugin types
 * (`@opencode-ai/plugin/v2/promise`). No OpenCode 2.x binary is available to us, so this
 * entry is tested only against a structural fake of the v2 context, never against a
 * real OpenCode 2 (docs/decisions/032-opencode-2-entry.md). It:
 *
 * - registers the `cursor` integration with an API-key method (the v2 promise API has no
 *   way to register a browser login without Effect; sign in with an API key);
 * - registers the `cursor` provider (as "Cursor Integration") and its models from the
 *   model cache, fetching the catalogue when the cache is empty and credentials exist;
 * - provides the provider and models through `ctx.aisdk.sdk` / `ctx.aisdk.language`.
 *
 * Do not load it in OpenCode 1.x; use `ai-sdk-provider-cursor/plugin` there.
 *
 * ```json
 * { "plugins": ["ai-sdk-provider-cursor/plugin/opencode2"] }
 * ```
 *
 * @example Setting up against a v2 context
 * ```ts
 * import plugin from "./opencode2.ts";
 *
 * const domains: string[] = [];
 * const register = (name: string) => () => { domains.push(name); return Promise.resolve(); };
 * await plugin.setup({
 *   options: { apiBaseURL: "http://127.0.0.1:9" },
 *   aisdk: { sdk: register("sdk"), language: register("language") },
 *   integration: {
 *     transform: register("integration"),
 *     connection: { active: () => Promise.resolve(undefined), resolve: () => Promise.resolve(undefined) },
 *   },
 *   catalog: { transform: register("catalog") },
 * });
 * console.assert(domains.join() === "integration,catalog,sdk,language");
 * ```
 *
 * @module
 */
import { createCursor } from "../node.ts";
import { createOpenCode2Plugin } from "./opencode2-plugin.ts";
import { nodePlatform } from "./platform.ts";
import type { V2PluginDefinition } from "./v2/v2-types.ts";

export type * from "./v2/v2-types.ts";

/** The OpenCode 2.x plugin. */
const CursorOpenCode2Plugin: V2PluginDefinition = createOpenCode2Plugin(() => ({
  ...nodePlatform(import.meta.url),
  createProvider: createCursor,
}));

export default CursorOpenCode2Plugin;
