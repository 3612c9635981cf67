/**
 * The module OpenCode loads for a plugin named by its package
 * (`"plugin": ["ai-sdk-provider-cursor"]`): OpenCode 1.18 resolves a package-dir plugin
 * through the package's `exports["./server"]`. It is the OpenCode 2.x module (the
 * `./plugin/opencode2` entry, `{ id, setup }`), and its default export also carries
 * `server`, the classic plugin of `./plugin`, so OpenCode 1.x runs the classic hooks
 * (sign-in, the `cursor` provider, the model list) from the same module.
 *
 * ```json
 * { "plugin": ["ai-sdk-provider-cursor"] }
 * ```
 *
 * @example Both hosts' ways in
 * ```ts
 * import plugin from "./server.ts";
 *
 * const hooks = await plugin.server({ client: {} });
 * console.assert(hooks.auth?.provider === "cursor");
 * console.assert(typeof plugin.setup === "function");
 * ```
 *
 * @module
 */
import CursorOpenCode2Plugin from "./opencode2.ts";
import { CursorPlugin } from "./mod.ts";
import type { V2PluginDefinition } from "./v2/v2-types.ts";
import type { ClassicHooks, PluginInputLike } from "./host-types.ts";

export type * from "./v2/v2-types.ts";
export type * from "./host-types.ts";
export type { PluginToolLike, ToolContextLike, ToolOutputLike } from "./cursor-tools.ts";

/** A plugin module both OpenCode majors load: `setup` for 2.x, `server` for 1.x. */
export interface DualPluginDefinition extends V2PluginDefinition {
  /** The classic OpenCode 1.x plugin (the same as `./plugin`'s). */
  readonly server: (input: PluginInputLike, options?: Record<string, unknown>) => Promise<
    ClassicHooks
  >;
}

/** The OpenCode 2.x plugin with the classic plugin as `server`. */
const CursorServerPlugin: DualPluginDefinition = {
  ...CursorOpenCode2Plugin,
  server: CursorPlugin,
};

export default CursorServerPlugin;
