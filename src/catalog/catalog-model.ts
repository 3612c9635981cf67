/**
 * The model catalogue as this library keeps it: Cursor's `AvailableModels` answer
 * reduced to what a host needs (ids, clean names, capabilities, context limits and the
 * exact variant tuples), small enough to cache as JSON.
 *
 * @module
 */
import {
  type AvailableModelsResponse,
  type AvailableModelsResponse_AvailableModel,
  AvailableModelsResponse_DegradationStatus,
  type ModelVariant,
} from "../gen/aiserver/v1/ai_service_pb.ts";

/** One parameter value of a variant (`effort=high`, `context=1m`, …); values are strings. */
export interface CatalogParameterValue {
  readonly id: string;
  readonly value: string;
}

/** One advertised variant: an exact parameter tuple. */
export interface CatalogVariant {
  readonly parameters: readonly CatalogParameterValue[];
  /** Display name without markup. */
  readonly displayName: string;
  /** Cursor marks it as a Max Mode configuration. */
  readonly maxMode: boolean;
  /** The default configuration outside Max Mode. */
  readonly defaultNonMax: boolean;
  /** The default configuration in Max Mode. */
  readonly defaultMax: boolean;
}

/** One model of the catalogue. */
export interface CatalogModel {
  /** The wire id (`RequestedModel.model_id`). */
  readonly id: string;
  /** Display name without markup. */
  readonly displayName: string;
  /** The model reasons (thinking). */
  readonly thinking: boolean;
  /** The model accepts images. */
  readonly images: boolean;
  /** The model can call tools (the agent). */
  readonly tools: boolean;
  /** Context window outside Max Mode, when Cursor says. */
  readonly contextTokenLimit?: number | undefined;
  /** Context window in Max Mode, when Cursor says. */
  readonly contextTokenLimitForMaxMode?: number | undefined;
  readonly variants: readonly CatalogVariant[];
}

/**
 * Reduces an `AvailableModels` answer to catalogue models. Disabled models, models
 * only for inline edits and models that cannot run the agent are left out; the first
 * model wins when an id repeats.
 *
 * @param response The decoded answer.
 * @returns The models, in Cursor's order.
 */
export function catalogFromResponse(response: AvailableModelsResponse): CatalogModel[] {
  const seen = new Set<string>();
  const models: CatalogModel[] = [];
  for (const model of response.models) {
    const id = model.name.trim();
    if (id === "" || seen.has(id) || !usable(model)) continue;
    seen.add(id);
    models.push(catalogModel(id, model));
  }
  return models;
}

function usable(model: AvailableModelsResponse_AvailableModel): boolean {
  if (model.degradationStatus === AvailableModelsResponse_DegradationStatus.DISABLED) return false;
  if (model.onlySupportsCmdK === true) return false;
  return model.supportsAgent !== false;
}

function catalogModel(id: string, model: AvailableModelsResponse_AvailableModel): CatalogModel {
  const variants = model.variants.map(catalogVariant).filter((variant) =>
    variant.parameters.length > 0
  );
  const thinking = model.supportsThinking ??
    variants.some((variant) => variant.parameters.some((p) => p.id === "thinking"));
  return {
    id,
    displayName: cleanDisplayName(
      model.clientDisplayName || model.inputboxShortModelName || model.serverModelName || id,
    ) || id,
    thinking,
    images: model.supportsImages ?? false,
    tools: model.supportsAgent ?? true,
    ...positive("contextTokenLimit", model.contextTokenLimit),
    ...positive("contextTokenLimitForMaxMode", model.contextTokenLimitForMaxMode),
    variants,
  };
}

function positive<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return value !== undefined && value > 0 ? { [key]: value } as { [P in K]?: number } : {};
}

function catalogVariant(variant: ModelVariant): CatalogVariant {
  return {
    parameters: variant.parameterValues
      .filter((p) => p.id !== "")
      .map((p) => ({ id: p.id, value: p.value })),
    displayName: cleanDisplayName(variant.displayName),
    maxMode: variant.isMaxMode,
    defaultNonMax: variant.isDefaultNonMaxConfig === true,
    defaultMax: variant.isDefaultMaxConfig === true,
  };
}

/**
 * Makes a display name safe to show: markup removed, the characters `<>&"'` and
 * backticks dropped, whitespace collapsed.
 *
 * @param name A display name as Cursor sends it (it may contain HTML).
 * @returns The clean name (possibly empty).
 *
 * @example
 * ```ts
 * import { cleanDisplayName } from "./catalog-model.ts";
 *
 * console.assert(cleanDisplayName('Opus <span style="color:red">5</span>  "Max"') === "Opus 5 Max");
 * ```
 */
export function cleanDisplayName(name: string): string {
  return name
    .replace(/<[^>]*>/g, " ")
    .replace(/&(nbsp|amp|lt|gt|quot|#39);/g, " ")
    .replace(/[<>&"'`]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Parses a context size parameter (`200k`, `1m`, `272000`) into tokens.
 *
 * @param value The parameter value.
 * @returns Tokens, or `undefined` when the value is not a size.
 *
 * @example
 * ```ts
 * import { parseContextTokens } from "./catalog-model.ts";
 *
 * console.assert(parseContextTokens("500k") === 500_000);
 * console.assert(parseContextTokens("1M") === 1_000_000);
 * console.assert(parseContextTokens("huge") === undefined);
 * ```
 */
export function parseContextTokens(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$/i.exec(value);
  if (!match?.[1]) return undefined;
  const unit = (match[2] ?? "").toLowerCase();
  const multiplier = unit === "m" ? 1_000_000 : unit === "k" ? 1_000 : 1;
  const tokens = Math.round(Number(match[1]) * multiplier);
  return tokens > 0 ? tokens : undefined;
}

/** The `context` parameter of a variant in tokens, if it has one. */
export function variantContextTokens(variant: CatalogVariant): number | undefined {
  const context = variant.parameters.find((p) => p.id === "context");
  return context === undefined ? undefined : parseContextTokens(context.value);
}
