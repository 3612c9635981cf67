/**
 * The OpenCode 1.x plugin: sign in to Cursor (browser login or API key), register the
 * `cursor` provider when your config has no `cursor` block, and list your Cursor models
 * with their variants, 1M and larger-context tiers.
 *
 * Load it next to the provider in opencode.json (see docs/opencode.md):
 *
 * ```json
 * {
 *   "plugin": ["ai-sdk-provider-cursor/plugin"],
 *   "provider": { "cursor": { "npm": "ai-sdk-provider-cursor", "models": {} } }
 * }
 * ```
 *
 * The module exports plugins only: OpenCode calls every exported function as a plugin.
 *
 * @example Calling the plugin as OpenCode does
 * ```ts
 * import CursorPluginModule from "./mod.ts";
 *
 * const hooks = await CursorPluginModule.server({ client: {} });
 * console.assert(hooks.auth?.provider === "cursor");
 * console.assert(hooks.auth?.methods.length === 2);
 * ```
 *
 * @module
 */
import { type ClassicPlugin, createClassicPlugin } from "./classic.ts";
import type { ClassicHooks, PluginInputLike } from "./host-types.ts";
import { nodePlatform } from "./platform.ts";

export type * from "./host-types.ts";
export type { PluginToolLike, ToolContextLike, ToolOutputLike } from "./cursor-tools.ts";

/**
 * The Cursor plugin for OpenCode 1.x.
 *
 * @param input What OpenCode passes a plugin (its SDK client is used to save renewed logins).
 * @param options Plugin options: `apiBaseURL`, `websiteURL`, `clientVersion`.
 * @returns The `auth`, `config` and `chat.params` hooks.
 */
export function CursorPlugin(
  input: PluginInputLike,
  options?: Record<string, unknown>,
): Promise<ClassicHooks> {
  const plugin: ClassicPlugin = createClassicPlugin(nodePlatform(import.meta.url));
  return plugin(input, options);
}

/** The plugin module as OpenCode 1.x loads it: `{ id, server }`. */
const CursorPluginModule: {
  readonly id: string;
  readonly server: typeof CursorPlugin;
} = { id: "ai-sdk-provider-cursor", server: CursorPlugin };

export default CursorPluginModule;
