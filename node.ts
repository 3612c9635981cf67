/**
 * The entry for Node and Bun (and what OpenCode loads): the same provider as the
 * web-standard entry, with the Node adapters wired in — the HTTP/2 transport, the
 * debug log file (`CURSOR_PROVIDER_DEBUG`), a stable machine id, the workspace facts
 * of the current directory, and `process.env`.
 *
 * @module
 */
import type { CursorProviderSettings } from "./src/provider/settings/cursor-settings.ts";
import { createCursorProvider, type CursorProvider } from "./src/provider/cursor-provider.ts";
import { nodeProviderAdapters, nodeSettings } from "./src/adapters/node/provider-adapters.ts";

// Everything the web entry exports but its `createCursor`, which this module's own
// declaration replaces (a star export never re-exports a name the module declares).
export * from "./mod.ts";

/**
 * Creates the Cursor provider with the Node adapters. Reads `CURSOR_API_KEY`,
 * `CURSOR_API_BASE_URL`, `CURSOR_CLIENT_VERSION`, the debug variables and the proxy
 * variables (`HTTPS_PROXY`, `NO_PROXY`) from `process.env` unless `settings.env` is given.
 *
 * @param settings Credentials, endpoints, transport and debug options.
 * @returns A provider: `cursor(modelId)` gives a `LanguageModelV3`.
 * @throws {CursorError} `config` for invalid settings.
 *
 * @example
 * ```ts
 * import { createCursor } from "./node.ts";
 *
 * const cursor = createCursor({ accessToken: "token", transport: "http2" });
 * console.assert(cursor("composer-2").specificationVersion === "v3");
 * ```
 */
export function createCursor(settings: CursorProviderSettings = {}): CursorProvider {
  const resolved = nodeSettings(settings);
  return createCursorProvider(resolved, nodeProviderAdapters(resolved.env));
}
