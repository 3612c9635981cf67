/**
 * `createCursor()`: the provider factory.
 *
 * @module
 */
import { type LanguageModelV3, NoSuchModelError, type ProviderV3 } from "@ai-sdk/provider";
import { CursorError } from "../core/cursor-error.ts";
import { silentLogger } from "../core/logger.ts";
import { PUBLISHED_AS } from "../core/package-name.ts";
import { createResumeCache } from "../cli/resume-cache.ts";
import type { CursorProviderSettings } from "./settings/cursor-settings.ts";
import { CursorLanguageModel } from "./language-model.ts";
import type { TurnBackend } from "./turn-backend.ts";
import { DirectBackend } from "./direct/direct-backend.ts";
import { CliBackend } from "./cli/cli-backend.ts";
import { resolveProviderConfig } from "./direct/config/provider-config.ts";
import type { ProviderAdapters } from "./provider-adapters.ts";
import { checkProviderSettings } from "./settings/settings-check.ts";
import { DEFAULT_SIGN_IN_ADVICE } from "./api-call-error.ts";

/** The Cursor provider: callable as `cursor(modelId)` and as `cursor.languageModel(modelId)`. */
export interface CursorProvider extends ProviderV3 {
  /** The model with this id (Cursor's model id, or the host's with `providerOptions.cursor`). */
  (modelId: string): LanguageModelV3;
  /** The model with this id; the same as calling the provider. */
  languageModel(modelId: string): LanguageModelV3;
}

/**
 * Builds an AI SDK 6 provider from settings and the platform's adapters. Platform entries
 * (`mod.ts`, `node.ts`) wrap this as their `createCursor`.
 *
 * @param settings The user's settings.
 * @param adapters Runtime pieces supplied by the platform entry.
 * @returns The provider.
 * @throws {CursorError} `config` for invalid settings.
 */
export const createCursorProvider: ProviderFactory<CursorProvider> = buildProvider(
  "v3",
  (modelId, backend): LanguageModelV3 => new CursorLanguageModel(modelId, backend),
);

/** A platform entry's way to build the provider of one AI SDK major. */
export type ProviderFactory<Provider> = (
  settings?: CursorProviderSettings,
  adapters?: ProviderAdapters,
) => Provider;

/** What {@link buildProvider} gives: the provider of one AI SDK major. */
type BuiltProvider<Version extends string, Model> = ((modelId: string) => Model) & {
  readonly specificationVersion: Version;
  languageModel(modelId: string): Model;
  embeddingModel(modelId: string): never;
  imageModel(modelId: string): never;
};

/**
 * The provider factory of either AI SDK major: each provider it builds has one backend
 * (from the settings, which it checks), models from `makeModel` over that backend, and
 * no embedding or image models. The error class is the V3 package's for both majors:
 * AI SDK 7 recognises it by its marker, and the V4 package (which asks for Node 22)
 * stays a types-only dependency that never loads on Node 20.
 *
 * @param version The providers' `specificationVersion` (`v3` or `v4`).
 * @param makeModel Builds the major's language model over the backend.
 * @returns The factory: `(settings, adapters) => provider`.
 */
export function buildProvider<Version extends "v3" | "v4", Model>(
  version: Version,
  makeModel: (modelId: string, backend: TurnBackend) => Model,
): ProviderFactory<BuiltProvider<Version, Model>> {
  return (settings = {}, adapters = {}) => {
    const backend = createTurnBackend(settings, adapters);
    const languageModel = (modelId: string): Model => makeModel(modelId, backend);
    return Object.assign((modelId: string) => languageModel(modelId), {
      specificationVersion: version,
      languageModel,
      embeddingModel: (modelId: string): never => noSuchModel(modelId, "embeddingModel"),
      imageModel: (modelId: string): never => noSuchModel(modelId, "imageModel"),
    });
  };
}

function noSuchModel(modelId: string, modelType: "embeddingModel" | "imageModel"): never {
  const kind = modelType === "embeddingModel" ? "embedding" : "image";
  throw new NoSuchModelError({ modelId, modelType, message: `Cursor offers no ${kind} models` });
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
      `backend "cli" needs the Node entry (import from "${PUBLISHED_AS.nodeEntry}")`,
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
