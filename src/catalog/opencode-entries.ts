/**
 * Catalogue models as OpenCode model entries: one entry per model with a clean name,
 * capabilities and limits; Cursor's variants as OpenCode variants carrying their exact
 * parameter tuple; a `<id>-1m` entry for the 1M tier (Max Mode, 128k output) and a
 * dedicated entry for each larger context tier below 1M (such as `<id>-500k`).
 *
 * The entries' `options` and variant values use only the keys the provider reads from
 * `providerOptions.cursor`: `cursorModelId`, `cursorVariantParameters`, `cursorMaxMode`.
 *
 * @module
 */
import type { PricingCatalogue } from "../billing/pricing-catalogue.ts";
import { CURSOR_PRICING } from "../billing/cursor-pricing.ts";
import {
  type CatalogModel,
  type CatalogParameterValue,
  type CatalogVariant,
  variantContextTokens,
} from "./catalog-model.ts";
import { openCodeFamily } from "./model-family.ts";
import { openCodeCost, type OpenCodeModelCost } from "./opencode-cost.ts";

/** Per-call Cursor options a model entry or variant carries. */
export interface CursorModelOptions {
  /** The Cursor model id when the entry id differs (tier entries). */
  readonly cursorModelId?: string;
  /** The exact parameter tuple of the chosen variant. */
  readonly cursorVariantParameters?: readonly CatalogParameterValue[];
  /** Ask for Max Mode. */
  readonly cursorMaxMode?: boolean;
}

/** One OpenCode model entry (the shape of `provider.<id>.models.<model>` in opencode.json). */
export interface OpenCodeModelEntry {
  readonly id: string;
  readonly name: string;
  /**
   * OpenCode's model family (`claude-haiku`, `gemini-flash`, …): OpenCode picks its small
   * model for titles and summaries by it. Only on a model's base entry (never a tier
   * entry such as `-1m`); absent when the id names no family.
   */
  readonly family?: string;
  readonly reasoning: boolean;
  readonly tool_call: boolean;
  readonly attachment: boolean;
  readonly temperature: boolean;
  readonly modalities: {
    readonly input: readonly ("text" | "image")[];
    readonly output: readonly "text"[];
  };
  readonly limit: { readonly context: number; readonly output: number };
  /** Cursor's published rates for the entry's default variant; absent when unpriced. */
  readonly cost?: OpenCodeModelCost;
  readonly options: CursorModelOptions;
  readonly variants?: Readonly<Record<string, CursorModelOptions>>;
}

/** Context window assumed when Cursor states none: 200k tokens. */
const DEFAULT_CONTEXT_TOKENS = 200_000;
/** Output limit of ordinary entries: 32k tokens. */
const DEFAULT_OUTPUT_TOKENS = 32_000;
/** Context window of the 1M tier. */
const LONG_CONTEXT_TOKENS = 1_000_000;
/** Output limit of the 1M tier: 128k tokens. */
const LONG_CONTEXT_OUTPUT_TOKENS = 128_000;

interface Tier {
  readonly id: string;
  readonly suffix: string;
  readonly variants: readonly CatalogVariant[];
  readonly defaultVariant: CatalogVariant | undefined;
  readonly context: number;
  readonly output: number;
  readonly realId: string | undefined;
}

/**
 * Maps catalogue models to OpenCode model entries, keyed by entry id. Each entry carries
 * OpenCode's `cost` for its default variant when Cursor publishes a rate, so OpenCode can
 * show what a session costs.
 *
 * @param models The catalogue.
 * @param pricing Token rates (default: Cursor's published rates).
 * @returns The entries, in catalogue order (tier entries after their model).
 *
 * @example
 * ```ts
 * import { openCodeModels } from "./opencode-entries.ts";
 *
 * const entries = openCodeModels([{
 *   id: "sonnet", displayName: "Sonnet", thinking: true, images: true, tools: true,
 *   variants: [
 *     { parameters: [{ id: "context", value: "200k" }], displayName: "Sonnet", maxMode: false, defaultNonMax: true, defaultMax: false },
 *     { parameters: [{ id: "context", value: "1m" }], displayName: "Sonnet 1M", maxMode: true, defaultNonMax: false, defaultMax: true },
 *   ],
 * }]);
 * console.assert(entries["sonnet-1m"]?.limit.context === 1_000_000);
 * console.assert(entries["sonnet-1m"]?.options.cursorModelId === "sonnet");
 * console.assert(entries["sonnet"]?.cost === undefined); // no published rate for "sonnet"
 * ```
 */
export function openCodeModels(
  models: readonly CatalogModel[],
  pricing: PricingCatalogue = CURSOR_PRICING,
): Record<string, OpenCodeModelEntry> {
  const names = uniqueNames(models);
  const taken = new Set(models.map((model) => model.id));
  const entries: Record<string, OpenCodeModelEntry> = {};
  for (const model of models) {
    for (const tier of tiersOf(model, taken)) {
      const name = `${names.get(model.id) ?? model.displayName}${tier.suffix}`;
      entries[tier.id] = entryFor(model, tier, name, pricing);
    }
  }
  return entries;
}

function tiersOf(model: CatalogModel, taken: Set<string>): Tier[] {
  const long = model.variants.filter((v) => (variantContextTokens(v) ?? 0) >= LONG_CONTEXT_TOKENS);
  const normal = model.variants.filter((v) => !long.includes(v));
  const tiers: Tier[] = [];
  const longTier = (id: string, realId: string | undefined, suffix: string): Tier => ({
    id,
    suffix,
    variants: long,
    defaultVariant: pickDefault(long, "max"),
    context: Math.max(LONG_CONTEXT_TOKENS, ...long.map((v) => variantContextTokens(v) ?? 0)),
    output: LONG_CONTEXT_OUTPUT_TOKENS,
    realId,
  });
  if (normal.length === 0 && long.length > 0) return [longTier(model.id, undefined, "")];
  const baseDefault = pickDefault(normal, "non-max");
  const baseContext = (baseDefault && variantContextTokens(baseDefault)) ??
    model.contextTokenLimit ?? DEFAULT_CONTEXT_TOKENS;
  tiers.push({
    id: model.id,
    suffix: "",
    variants: normal,
    defaultVariant: baseDefault,
    context: baseContext,
    output: DEFAULT_OUTPUT_TOKENS,
    realId: undefined,
  });
  for (const [label, context] of largerContexts(normal, baseContext)) {
    const variants = normal.filter((v) => variantContextTokens(v) === context);
    tiers.push({
      id: freeId(`${model.id}-${label}`, taken),
      suffix: ` ${label.toUpperCase()}`,
      variants,
      defaultVariant: pickTierDefault(variants, baseDefault),
      context,
      output: DEFAULT_OUTPUT_TOKENS,
      realId: model.id,
    });
  }
  if (long.length > 0) tiers.push(longTier(freeId(`${model.id}-1m`, taken), model.id, " 1M"));
  return tiers;
}

function largerContexts(variants: readonly CatalogVariant[], base: number): [string, number][] {
  const found = new Map<number, string>();
  for (const variant of variants) {
    const tokens = variantContextTokens(variant);
    const label = variant.parameters.find((p) => p.id === "context")?.value.trim().toLowerCase();
    if (tokens !== undefined && label !== undefined && tokens > base && !found.has(tokens)) {
      found.set(tokens, label.replace(/[^a-z0-9]+/g, ""));
    }
  }
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([tokens, label]) => [label, tokens]);
}

function freeId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted}-${n}`;
  taken.add(id);
  return id;
}

function pickDefault(
  variants: readonly CatalogVariant[],
  kind: "max" | "non-max",
): CatalogVariant | undefined {
  const flagged = variants.find((v) => (kind === "max" ? v.defaultMax : v.defaultNonMax));
  return flagged ?? variants.find((v) => v.defaultNonMax || v.defaultMax) ?? variants[0];
}

function pickTierDefault(
  variants: readonly CatalogVariant[],
  baseDefault: CatalogVariant | undefined,
): CatalogVariant | undefined {
  const flagged = variants.find((v) => v.defaultNonMax || v.defaultMax);
  if (flagged) return flagged;
  const others = (v: CatalogVariant) =>
    v.parameters.filter((p) => p.id !== "context").map((p) => `${p.id}=${p.value}`).sort().join(
      "&",
    );
  const wanted = baseDefault === undefined ? undefined : others(baseDefault);
  return variants.find((v) => others(v) === wanted) ?? variants[0];
}

function entryFor(
  model: CatalogModel,
  tier: Tier,
  name: string,
  pricing: PricingCatalogue,
): OpenCodeModelEntry {
  const tierContextValue = tier.defaultVariant?.parameters.find((p) => p.id === "context")?.value;
  const variants = variantMap(tier.variants, tierContextValue);
  const cost = openCodeCost(model.id, tier.defaultVariant?.parameters, pricing);
  // Only the base entry: OpenCode takes a family's highest id, which would be a tier entry.
  const family = tier.realId === undefined ? openCodeFamily(model.id) : undefined;
  return {
    id: tier.id,
    name,
    ...(family === undefined ? {} : { family }),
    reasoning: model.thinking,
    tool_call: model.tools,
    attachment: model.images,
    temperature: false,
    modalities: { input: model.images ? ["text", "image"] : ["text"], output: ["text"] },
    limit: { context: tier.context, output: tier.output },
    ...(cost === undefined ? {} : { cost }),
    options: {
      ...(tier.realId === undefined ? {} : { cursorModelId: tier.realId }),
      ...(tier.defaultVariant === undefined ? {} : variantOptions(tier.defaultVariant)),
    },
    ...(Object.keys(variants).length === 0 ? {} : { variants }),
  };
}

/**
 * The Cursor options of one variant: its exact tuple and whether it needs Max Mode
 * (a Max Mode variant, or a 1M context).
 *
 * @param variant The catalogue variant.
 * @returns `{ cursorVariantParameters, cursorMaxMode }`.
 */
function variantOptions(variant: CatalogVariant): CursorModelOptions {
  return {
    cursorVariantParameters: variant.parameters.map((p) => ({ id: p.id, value: p.value })),
    cursorMaxMode: variant.maxMode || (variantContextTokens(variant) ?? 0) >= LONG_CONTEXT_TOKENS,
  };
}

function variantMap(
  variants: readonly CatalogVariant[],
  tierContextValue: string | undefined,
): Record<string, CursorModelOptions> {
  const map: Record<string, CursorModelOptions> = {};
  for (const variant of variants) {
    const base = variantKey(variant, tierContextValue);
    let key = base;
    for (let n = 2; key in map; n++) key = `${base}-${n}`;
    map[key] = variantOptions(variant);
  }
  return map;
}

/**
 * The OpenCode variant name of a Cursor variant, from its parameters: enum values as
 * they are (`high`), a `true` boolean as its parameter id (`thinking`, `fast`), a
 * `false` boolean left out, the context only when it differs from the entry's
 * (`500k`); `standard` when nothing is left.
 *
 * @param variant The variant.
 * @param tierContextValue The entry's own `context` value, if any.
 * @returns A name like `high-thinking-fast`.
 *
 * @example
 * ```ts
 * import { variantKey } from "./opencode-entries.ts";
 *
 * const variant = {
 *   parameters: [{ id: "effort", value: "high" }, { id: "fast", value: "true" }, { id: "thinking", value: "false" }],
 *   displayName: "", maxMode: false, defaultNonMax: false, defaultMax: false,
 * };
 * console.assert(variantKey(variant, undefined) === "high-fast");
 * ```
 */
export function variantKey(variant: CatalogVariant, tierContextValue: string | undefined): string {
  const tokens: string[] = [];
  for (const { id, value } of variant.parameters) {
    const lower = value.trim().toLowerCase();
    if (id === "context") {
      if (value !== tierContextValue) tokens.push(lower);
    } else if (lower === "true") {
      tokens.push(id.toLowerCase());
    } else if (lower !== "false" && lower !== "") {
      tokens.push(lower);
    }
  }
  const key = tokens.join("-").replace(/[^a-z0-9.]+/g, "-").replace(/^-+|-+$/g, "");
  return key === "" ? "standard" : key;
}

function uniqueNames(models: readonly CatalogModel[]): Map<string, string> {
  const byName = new Map<string, CatalogModel[]>();
  for (const model of models) {
    byName.set(model.displayName, [...byName.get(model.displayName) ?? [], model]);
  }
  const names = new Map<string, string>();
  for (const [name, group] of byName) {
    const mixed = group.some((m) => m.thinking) && group.some((m) => !m.thinking);
    for (const model of group) {
      names.set(model.id, mixed && model.thinking ? `${name} Thinking` : name);
    }
  }
  const counts = new Map<string, number>();
  for (const name of names.values()) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [id, name] of names) {
    if ((counts.get(name) ?? 0) > 1) names.set(id, `${name} (${id})`);
  }
  return names;
}
