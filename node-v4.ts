/**
 * The AI SDK 7 entry for Node and Bun: `ProviderV4` models with the Node adapters —
 * the HTTP/2 transport, the debug log file (`CURSOR_PROVIDER_DEBUG`), a stable machine
 * id, the workspace facts of each call's directory, and `process.env`.
 *
 * @module
 */
import type { CursorProviderSettings } from "./src/provider/settings/cursor-settings.ts";
import {
  createCursorProviderV4,
  type CursorProviderV4,
} from "./src/provider/v4/cursor-provider-v4.ts";
import { nodeProviderAdapters, nodeSettings } from "./src/adapters/node/provider-adapters.ts";

// Everything the web entry exports but its `createCursor`, which this module's own
// declaration replaces (a star export never re-exports a name the module declares).
export * from "./v4.ts";

/**
 * Creates the Cursor provider for AI SDK 7 with the Node adapters. Reads
 * `CURSOR_API_KEY`, `CURSOR_API_BASE_URL`, `CURSOR_CLIENT_VERSION` and the debug
 * variables from `process.env` unless `settings.env` is given.
 *
 * @param settings Credentials, endpoints, transport and debug options.
 * @returns A provider: `cursor(modelId)` gives a `LanguageModelV4`.
 * @throws {CursorError} `config` for invalid settings.
 *
 * @example
 * ```ts
 * import { createCursor } from "./node-v4.ts";
 *
 * const cursor = createCursor({ accessToken: "token", transport: "http2" });
 * console.assert(cursor("composer-2").specificationVersion === "v4");
 * ```
 */
export function createCursor(settings: CursorProviderSettings = {}): CursorProviderV4 {
  const resolved = nodeSettings(settings);
  return createCursorProviderV4(resolved, nodeProviderAdapters(resolved.env));
}
