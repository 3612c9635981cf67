/**
 * `createCursor()`: the provider factory.
 *
 * @module
 */
import { NoSuchModelError, type ProviderV3 } from "@ai-sdk/provider";
import type { CursorProviderSettings } from "./cursor-settings.ts";
import { CursorLanguageModel } from "./cursor-language-model.ts";
import { type ProviderAdapters, resolveProviderConfig } from "./provider-config.ts";

/** The Cursor provider: callable as `cursor(modelId)` and as `cursor.languageModel(modelId)`. */
export interface CursorProvider extends ProviderV3 {
  (modelId: string): CursorLanguageModel;
  languageModel(modelId: string): CursorLanguageModel;
}

/**
 * Builds a provider from settings and the platform's adapters. Platform entries
 * (`mod.ts`, `node.ts`) wrap this as their `createCursor`.
 *
 * @param settings The user's settings.
 * @param adapters Runtime pieces supplied by the platform entry.
 * @returns The provider.
 * @throws {CursorError} `config` for invalid settings.
 */
export function createCursorProvider(
  settings: CursorProviderSettings = {},
  adapters: ProviderAdapters = {},
): CursorProvider {
  const config = resolveProviderConfig(settings, adapters);
  const languageModel = (modelId: string) => new CursorLanguageModel(modelId, config);
  const provider = Object.assign((modelId: string) => languageModel(modelId), {
    specificationVersion: "v3" as const,
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
  return provider;
}
