/**
 * `createCursor()` for AI SDK 7: the same backend as the AI SDK 6 provider, with
 * `ProviderV4` models, so AI SDK 7 (and its `createProviderRegistry`) takes them as
 * they are and never wraps them in its V3 adapter.
 *
 * @module
 */
import type { LanguageModelV4, ProviderV4 } from "@ai-sdk/provider-v4";
// The V3 package's error class: AI SDK 7 recognises it by its marker, and the V4 package
// (which asks for Node 22) stays a types-only dependency that never loads on Node 20.
import { NoSuchModelError } from "@ai-sdk/provider";
import type { CursorProviderSettings } from "./cursor-settings.ts";
import { CursorLanguageModelV4 } from "./language-model-v4.ts";
import { createTurnBackend } from "./cursor-provider.ts";
import type { ProviderAdapters } from "./provider-adapters.ts";

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
export function createCursorProviderV4(
  settings: CursorProviderSettings = {},
  adapters: ProviderAdapters = {},
): CursorProviderV4 {
  const backend = createTurnBackend(settings, adapters);
  const languageModel = (modelId: string): LanguageModelV4 =>
    new CursorLanguageModelV4(modelId, backend);
  return Object.assign((modelId: string) => languageModel(modelId), {
    specificationVersion: "v4" as const,
    languageModel,
    embeddingModel(modelId: string): never {
      throw new NoSuchModelError({
        modelId,
        modelType: "embeddingModel",
        message: "Cursor offers no embedding models",
      });
    },
    imageModel(modelId: string): never {
      throw new NoSuchModelError({
        modelId,
        modelType: "imageModel",
        message: "Cursor offers no image models",
      });
    },
  });
}
