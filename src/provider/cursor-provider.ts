/**
 * `createCursor()`: the provider factory.
 *
 * @module
 */
import { type LanguageModelV3, NoSuchModelError, type ProviderV3 } from "@ai-sdk/provider";
import { CursorError } from "../core/cursor-error.ts";
import { silentLogger } from "../core/logger.ts";
import { createResumeCache } from "../cli/resume-cache.ts";
import type { CursorProviderSettings } from "./cursor-settings.ts";
import { CursorLanguageModel } from "./direct/direct-backend.ts";
import { createCursorAgentLanguageModel } from "./cli/cli-backend.ts";
import { type ProviderAdapters, resolveProviderConfig } from "./provider-config.ts";

/** The Cursor provider: callable as `cursor(modelId)` and as `cursor.languageModel(modelId)`. */
export interface CursorProvider extends ProviderV3 {
  /** The model with this id (Cursor's model id, or the host's with `providerOptions.cursor`). */
  (modelId: string): LanguageModelV3;
  /** The model with this id; the same as calling the provider. */
  languageModel(modelId: string): LanguageModelV3;
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
  const languageModel = settings.backend === "cursor-agent"
    ? cursorAgentModels(settings, adapters)
    : agentModels(settings, adapters);
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

function agentModels(
  settings: CursorProviderSettings,
  adapters: ProviderAdapters,
): (modelId: string) => LanguageModelV3 {
  if (settings.backend !== undefined && settings.backend !== "agent") {
    throw new CursorError(
      "config",
      `Unknown backend ${JSON.stringify(settings.backend)}: use "agent" or "cursor-agent"`,
    );
  }
  const config = resolveProviderConfig(settings, adapters);
  return (modelId) => new CursorLanguageModel(modelId, config);
}

function cursorAgentModels(
  settings: CursorProviderSettings,
  adapters: ProviderAdapters,
): (modelId: string) => LanguageModelV3 {
  if (!adapters.processRunner) {
    throw new CursorError(
      "config",
      'backend "cursor-agent" needs the Node entry (import from "ai-sdk-provider-cursor/node")',
    );
  }
  const runner = adapters.processRunner();
  const resumeCache = createResumeCache();
  const env = settings.env ?? {};
  const agent = settings.cursorAgent ?? {};
  const logger = settings.debug ?? adapters.debugLogger?.() ?? silentLogger;
  const apiKey = settings.apiKey ?? env.CURSOR_API_KEY;
  return (modelId) =>
    createCursorAgentLanguageModel(modelId, {
      ...agent,
      runner,
      binaryPath: adapters.findCursorAgent?.(agent.binaryPath) ?? agent.binaryPath,
      workspace: agent.workspace ?? adapters.cwd?.() ?? ".",
      env,
      ...(apiKey ? { apiKey } : {}),
      resumeCache,
      logger,
      clock: settings.now ?? Date.now,
    });
}
