/**
 * Use your Cursor subscription models from AI SDK 7 apps: `createCursor()` gives
 * `ProviderV4` models (`LanguageModelV4`), which AI SDK 7 uses natively. The package
 * root gives `LanguageModelV3` models for AI SDK 6 and OpenCode; both share one
 * implementation and every setting.
 *
 * This entry is web-standard (fetch, WebCrypto, streams) and runs on Deno, Node, Bun
 * and edge runtimes. On Node and Bun, the package resolves `/v4` to its Node flavour,
 * with HTTP/2 and the debug log file.
 *
 * @example A chat turn with AI SDK 7
 * ```ts ignore
 * import { streamText } from "ai";
 * import { createCursor } from "@ai-sdk-cursor/provider/v4";
 *
 * const cursor = createCursor({ apiKey: Deno.env.get("CURSOR_API_KEY") });
 * const result = streamText({ model: cursor("gpt-5"), prompt: "Hello", reasoning: "high" });
 * for await (const text of result.textStream) console.log(text);
 * ```
 *
 * @module
 */
import type { CursorProviderSettings } from "./src/provider/settings/cursor-settings.ts";
import {
  createCursorProviderV4,
  type CursorProviderV4,
} from "./src/provider/v4/cursor-provider-v4.ts";

import { runtimeEnvironment, webSignInAdvice } from "./src/adapters/web/runtime-env.ts";
export { CURSOR_ERROR_CODES, CursorError } from "./src/core/cursor-error.ts";
export type * from "./src/provider/public/public-types.ts";
export type { CursorProviderV4 } from "./src/provider/v4/cursor-provider-v4.ts";
export { CursorLanguageModelV4 } from "./src/provider/v4/language-model-v4.ts";
// `CursorCallInput` (the call as the provider takes it) is the AI SDK 6 call options plus
// `reasoning`: name the type it is built on.
export type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
export type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
  ProviderV4,
} from "@ai-sdk/provider-v4";

/**
 * Creates the Cursor provider for AI SDK 7.
 *
 * @param settings Credentials, endpoints, transport and debug options (the same as the root entry's).
 * @returns A provider: `cursor(modelId)` gives a `LanguageModelV4`.
 * @throws {CursorError} `config` for invalid settings.
 *
 * @example
 * ```ts
 * import { createCursor } from "./v4.ts";
 *
 * const cursor = createCursor({ accessToken: "token" });
 * console.assert(cursor.specificationVersion === "v4");
 * console.assert(cursor("composer-2").specificationVersion === "v4");
 * ```
 */
export function createCursor(settings: CursorProviderSettings = {}): CursorProviderV4 {
  const runtime = runtimeEnvironment();
  const env = settings.env ?? runtime?.env;
  return createCursorProviderV4(env === undefined ? settings : { ...settings, env }, {
    signInAdvice: webSignInAdvice(settings.env === undefined ? runtime?.source : "settings.env"),
  });
}
