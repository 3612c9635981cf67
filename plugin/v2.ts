/**
 * The OpenCode 1.18 v2 plugin entry (`define({ id, setup })` of
 * `@opencode-ai/plugin/v2/promise`): registers the Cursor provider through
 * `ctx.aisdk.sdk` and `ctx.aisdk.language`.
 *
 * OpenCode 1.18.33 loads a v2 plugin only from the top-level `plugins` field of a config
 * file that has no 1.x fields (`provider`, `plugin`): put it in its own file, for example
 * the global `~/.config/opencode/opencode.json`. Its AI SDK hooks are registered there but
 * 1.18.33's sessions still build models through the classic provider, so keep the classic
 * entry (`ai-sdk-provider-cursor/plugin`) for sign-in, the model list and chats. See
 * docs/decisions/031-opencode-v2-plugin-loading.md.
 *
 * ```json
 * { "plugins": ["ai-sdk-provider-cursor/plugin/v2"] }
 * ```
 *
 * @example Registering against a v2 context
 * ```ts
 * import plugin from "./v2.ts";
 *
 * const hooks: string[] = [];
 * const register = (name: string) => () => { hooks.push(name); return Promise.resolve(); };
 * await plugin.setup({
 *   options: {},
 *   aisdk: { sdk: register("sdk"), language: register("language") },
 *   integration: {
 *     transform: register("integration"),
 *     connection: { active: () => Promise.resolve(undefined), resolve: () => Promise.resolve(undefined) },
 *   },
 *   catalog: { transform: register("catalog") },
 * });
 * console.assert(hooks.join() === "sdk,language");
 * ```
 *
 * @module
 */
import { createCursor } from "../node.ts";
import { nodePlatform } from "./platform.ts";
import { registerAisdk } from "./v2/v2-registration.ts";
import type { V2ContextLike, V2PluginDefinition } from "./v2/v2-types.ts";

export type * from "./v2/v2-types.ts";

/** The v2 plugin: AI SDK registration of the Cursor provider. */
const CursorV2Plugin: V2PluginDefinition = {
  id: "ai-sdk-provider-cursor/v2",
  async setup(context: V2ContextLike) {
    const platform = nodePlatform(import.meta.url);
    if (platform.logger.enabled) platform.logger.line("plugin v2: setup (aisdk hooks)");
    await registerAisdk(context, { ...platform, createProvider: createCursor });
  },
};

export default CursorV2Plugin;
