/**
 * `createCursor()` for AI SDK 7: the same backend as the AI SDK 6 provider, with
 * `ProviderV4` models, so AI SDK 7 (and its `createProviderRegistry`) takes them as
 * they are and never wraps them in its V3 adapter.
 *
 * @module
 */
import type { LanguageModelV4, ProviderV4 } from "@ai-sdk/provider-v4";
import { CursorLanguageModelV4 } from "./language-model-v4.ts";
import { buildProvider, type ProviderFactory } from "../cursor-provider.ts";

/** The Cursor provider for AI SDK 7: callable as `cursor(modelId)` and as `cursor.languageModel(modelId)`. */
export interface CursorProviderV4 extends ProviderV4 {
  /** The model with this id (Cursor's model id, or the host's with `providerOptions.cursor`). */
  (modelId: string): LanguageModelV4;
  /** The model with this id; the same as calling the provider. */
  languageModel(modelId: string): LanguageModelV4;
}

/**
 * Builds an AI SDK 7 provider from settings and the platform's adapters. The `/v4`
 * entries wrap this as their `createCursor`.
 *
 * @param settings The user's settings.
 * @param adapters Runtime pieces supplied by the platform entry.
 * @returns The provider.
 * @throws {CursorError} `config` for invalid settings.
 */
export const createCursorProviderV4: ProviderFactory<CursorProviderV4> = buildProvider(
  "v4",
  (modelId, backend): LanguageModelV4 => new CursorLanguageModelV4(modelId, backend),
);
