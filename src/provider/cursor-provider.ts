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
import { CursorLanguageModel } from "./language-model.ts";
import type { TurnBackend } from "./turn-backend.ts";
import { DirectBackend } from "./direct/direct-backend.ts";
import { CliBackend } from "./cli/cli-backend.ts";
import { resolveProviderConfig } from "./direct/provider-config.ts";
import type { ProviderAdapters } from "./provider-adapters.ts";
import { checkProviderSettings } from "./settings-check.ts";
import { DEFAULT_SIGN_IN_ADVICE } from "./api-call-error.ts";

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
  const backend = createTurnBackend(settings, adapters);
  const languageModel = (modelId: string): LanguageModelV3 =>
    new CursorLanguageModel(modelId, backend);
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

/**
 * The backend the settings ask for, after checking the settings; one per provider,
 * shared by all its models (of either AI SDK major).
 *
 * @param settings The user's settings.
 * @param adapters Runtime pieces supplied by the platform entry.
 * @returns The backend.
 * @throws {CursorError} `config` for invalid settings.
 */
export function createTurnBackend(
  settings: CursorProviderSettings,
  adapters: ProviderAdapters,
): TurnBackend {
  checkProviderSettings(settings);
  switch (settings.backend) {
    case undefined:
    case "direct":
      return new DirectBackend(resolveProviderConfig(settings, adapters));
    case "cli":
      return cliBackend(settings, adapters);
    default:
      throw new CursorError(
        "config",
        `Unknown backend ${JSON.stringify(settings.backend)}: use "direct" or "cli"`,
      );
  }
}

function cliBackend(settings: CursorProviderSettings, adapters: ProviderAdapters): TurnBackend {
  if (!adapters.processRunner) {
    throw new CursorError(
      "config",
      'backend "cli" needs the Node entry (import from "ai-sdk-provider-cursor/node")',
    );
  }
  const env = settings.env ?? {};
  const cli = settings.cli ?? {};
  const apiKey = settings.apiKey ?? env.CURSOR_API_KEY;
  return new CliBackend({
    ...cli,
    runner: adapters.processRunner(),
    binaryPath: adapters.findCursorAgent?.(cli.binaryPath) ?? cli.binaryPath,
    workspace: cli.workspace ?? (() => adapters.cwd?.() ?? "."),
    env,
    ...(apiKey ? { apiKey } : {}),
    resumeCache: createResumeCache(),
    resumeFile: adapters.resumeCacheFile?.(),
    logger: settings.debug ?? adapters.debugLogger?.() ?? silentLogger,
    clock: settings.now ?? Date.now,
    providerName: settings.name ?? "cursor",
    signInAdvice: settings.signInAdvice ?? adapters.signInAdvice ?? DEFAULT_SIGN_IN_ADVICE,
  });
}
