/**
 * Use your Cursor subscription models from any Vercel AI SDK app.
 *
 * This entry is web-standard (fetch, WebCrypto, streams) and runs on Deno, Node, Bun
 * and edge runtimes. On Node and Bun, the package's Node entry adds HTTP/2 and the
 * debug log file.
 *
 * @example A chat turn
 * ```ts ignore
 * import { streamText } from "ai";
 * import { createCursor } from "@ai-sdk-cursor/provider";
 *
 * const cursor = createCursor({ apiKey: Deno.env.get("CURSOR_API_KEY") });
 * const result = streamText({ model: cursor("composer-2"), prompt: "Hello" });
 * for await (const text of result.textStream) console.log(text);
 * ```
 *
 * @module
 */
import type { CursorProviderSettings } from "./src/provider/settings/cursor-settings.ts";
import { createCursorProvider, type CursorProvider } from "./src/provider/cursor-provider.ts";

import { runtimeEnvironment, webSignInAdvice } from "./src/adapters/web/runtime-env.ts";
export { CURSOR_ERROR_CODES, CursorError } from "./src/core/cursor-error.ts";
export type * from "./src/provider/public/public-types.ts";
export type { CursorProvider } from "./src/provider/cursor-provider.ts";
export { CursorLanguageModel } from "./src/provider/language-model.ts";
export type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
  ProviderV3,
} from "@ai-sdk/provider";

/**
 * Creates the Cursor provider.
 *
 * @param settings Credentials, endpoints, transport and debug options.
 * @returns A provider: `cursor(modelId)` gives a `LanguageModelV3`.
 * @throws {CursorError} `config` for invalid settings (an agent URL outside cursor.sh, an unknown transport).
 *
 * @example
 * ```ts
 * import { createCursor } from "./mod.ts";
 *
 * const cursor = createCursor({ accessToken: "token" });
 * console.assert(cursor("composer-2").specificationVersion === "v3");
 * ```
 */
export function createCursor(settings: CursorProviderSettings = {}): CursorProvider {
  const runtime = runtimeEnvironment();
  const env = settings.env ?? runtime?.env;
  return createCursorProvider(env === undefined ? settings : { ...settings, env }, {
    signInAdvice: webSignInAdvice(settings.env === undefined ? runtime?.source : "settings.env"),
  });
}
