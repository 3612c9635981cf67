/**
 * The emulator's model catalogue: a realistic set of models with effort, thinking,
 * fast and context variants, a 1M tier, a 500k tier, image and max-mode support on
 * some, and a default model. Served by `AvailableModels`, `GetUsableModels` and
 * `GetDefaultModelForCli`, and used to validate `requested_model` on every Run.
 *
 * @module
 */

/**
 * One selectable parameter of a model (`effort`, `thinking`, `fast`, `context`, …).
 *
 * @example
 * ```ts
 * import type { CatalogParameter } from "../../mod.ts";
 *
 * const effort: CatalogParameter = { id: "effort", name: "Effort", kind: "enum", values: ["low", "high"] };
 * console.assert(effort.values.length === 2);
 * ```
 */
export interface CatalogParameter {
  /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
  readonly id: string;
  /** Name shown in pickers. */
  readonly name: string;
  /** Boolean or enum. */
  readonly kind: "boolean" | "enum";
  /** Allowed values (all strings). */
  readonly values: readonly string[];
}

/**
 * One advertised variant: an exact parameter tuple.
 *
 * @example
 * ```ts
 * import type { CatalogVariant } from "../../mod.ts";
 *
 * const variant: CatalogVariant = { parameters: { context: "1m" }, displayName: "1M", maxMode: true };
 * console.assert(variant.maxMode);
 * ```
 */
export interface CatalogVariant {
  /** The exact parameter tuple (id → value) a client sends as `requested_model.parameters`. */
  readonly parameters: Readonly<Record<string, string>>;
  /** Name shown in pickers. */
  readonly displayName: string;
  /** A max-mode variant. */
  readonly maxMode: boolean;
  /** The default variant in max mode. */
  readonly defaultMax?: boolean;
  /** The default variant outside max mode. */
  readonly defaultNonMax?: boolean;
}

/**
 * One model of the catalogue.
 *
 * @example A custom catalogue
 * ```ts
 * import { type CatalogModel, createEmulator, defaultCatalog } from "../../mod.ts";
 *
 * const tiny: CatalogModel = {
 *   id: "tiny",
 *   displayName: "Tiny",
 *   thinking: false,
 *   thinkingStyle: 0,
 *   images: false,
 *   maxMode: false,
 *   nonMaxMode: true,
 *   contextTokens: 8_000,
 *   parameters: [],
 *   variants: [],
 * };
 * const emulator = await createEmulator({ models: [...defaultCatalog(), tiny] });
 * await emulator.close();
 * ```
 */
export interface CatalogModel {
  /** The wire id (`RequestedModel.model_id`, `AvailableModel.name`). */
  readonly id: string;
  /** Name shown in pickers. */
  readonly displayName: string;
  /** Emits thinking deltas (subject to a `thinking` parameter when the model has one). */
  readonly thinking: boolean;
  /** `ThinkingStyle` enum value sent with thinking deltas (0 unspecified, 1 default, 2 codex, 3 GPT-5). */
  readonly thinkingStyle: number;
  /** Accepts image input. */
  readonly images: boolean;
  /** Offers max mode. */
  readonly maxMode: boolean;
  /** Offers non-max mode. */
  readonly nonMaxMode: boolean;
  /** Context window without a `context` parameter. */
  readonly contextTokens: number;
  /** Selectable parameters. */
  readonly parameters: readonly CatalogParameter[];
  /** Advertised parameter tuples. */
  readonly variants: readonly CatalogVariant[];
}

/** The model a Run resolved to, with the window its parameters select. */
export interface ResolvedModel {
  readonly model: CatalogModel;
  /** Offers max mode. */
  readonly maxMode: boolean;
  /** Selectable parameters. */
  readonly parameters: Readonly<Record<string, string>>;
  /** Context window in tokens (a `context` parameter's, 1M in Max Mode, else the model's). */
  readonly contextTokens: number;
  /** Whether this call emits thinking. */
  readonly thinks: boolean;
  /** The parameters sent match an advertised variant exactly (or none were sent). */
  readonly matchesVariant: boolean;
}

/**
 * The id of the default (Auto) model.
 *
 * @example
 * ```ts
 * import { DEFAULT_MODEL_ID } from "../../mod.ts";
 *
 * console.assert(DEFAULT_MODEL_ID === "default");
 * ```
 */
export const DEFAULT_MODEL_ID = "default";

/** The context window of a model that offers Max Mode when it is on: 1M tokens. */
export const MAX_MODE_CONTEXT_TOKENS = 1_000_000;

/**
 * Parses a context size like `200k` or `1m` into tokens.
 *
 * @param value The parameter value.
 * @returns Tokens, or `undefined` when the value is not `N[k|m]`.
 */
export function parseContextSize(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([km])$/i.exec(value.trim());
  if (!match) return undefined;
  const scale = match[2]?.toLowerCase() === "m" ? 1_000_000 : 1_000;
  return Math.round(Number(match[1]) * scale);
}

/**
 * Resolves a requested model against the catalogue.
 *
 * @param catalog The models.
 * @param modelId The requested id; empty means the default model.
 * @param parameters The requested parameter tuple.
 * @param maxMode Whether max mode was requested.
 * @returns The resolution, or `undefined` for an unknown id (the service answers `not_found`).
 */
export function resolveModel(
  catalog: readonly CatalogModel[],
  modelId: string,
  /** Selectable parameters. */
  parameters: Readonly<Record<string, string>>,
  /** Offers max mode. */
  maxMode: boolean,
): ResolvedModel | undefined {
  const model = catalog.find((candidate) => candidate.id === (modelId || DEFAULT_MODEL_ID));
  if (model === undefined) return undefined;
  const context = parameters.context === undefined
    ? undefined
    : parseContextSize(parameters.context);
  const keys = Object.keys(parameters);
  const matchesVariant = keys.length === 0 || model.variants.some((candidate) => {
    const wanted = Object.entries(candidate.parameters);
    return wanted.length === keys.length &&
      wanted.every(([key, value]) => parameters[key] === value);
  });
  const hasThinkingParameter = model.parameters.some((parameter) => parameter.id === "thinking");
  const thinks = model.thinking && (!hasThinkingParameter || parameters.thinking === "true");
  return {
    model,
    /** Offers max mode. */
    maxMode: maxMode || parameters.context === "1m",
    parameters,
    contextTokens: context ??
      (maxMode && model.maxMode ? MAX_MODE_CONTEXT_TOKENS : model.contextTokens),
    thinks,
    matchesVariant,
  };
}
