/**
 * AI SDK 7's `reasoning` call option as a Cursor variant. Cursor offers reasoning as
 * model variants: an effort-like parameter (`effort` or `reasoning` with values such as
 * `low`, `medium`, `high`) or a `thinking` switch. A level maps to the advertised
 * variant that equals the model's default variant except for that parameter; a level
 * the model does not offer is a warning naming what it offers, never a guessed tuple.
 *
 * @module
 */
import type { CatalogModel, CatalogParameterValue, CatalogVariant } from "./catalog-model.ts";

/** The levels of the `reasoning` option, without `provider-default`. */
export type ReasoningChoice = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** The variant a level maps to, or why it maps to none. */
export type ReasoningVariant =
  | { readonly parameters: readonly CatalogParameterValue[]; readonly maxMode: boolean }
  | { readonly warning: string };

const EFFORT_IDS: readonly string[] = ["effort", "reasoning"];

/**
 * The variant of `model` for a reasoning level.
 *
 * @param model The model's catalogue entry.
 * @param level The level asked for.
 * @returns The parameter tuple and Max Mode of the variant, or a warning.
 *
 * @example
 * ```ts
 * import { reasoningVariant } from "./reasoning-variant.ts";
 *
 * const variant = (value: string) => ({
 *   parameters: [{ id: "reasoning", value }], displayName: value, maxMode: false,
 *   defaultNonMax: value === "medium", defaultMax: false,
 * });
 * const model = {
 *   id: "gpt-5", displayName: "GPT-5", thinking: true, images: true, tools: true,
 *   variants: ["low", "medium", "high"].map(variant),
 * };
 * const chosen = reasoningVariant(model, "high");
 * console.assert("parameters" in chosen && chosen.parameters[0]?.value === "high");
 * ```
 */
export function reasoningVariant(model: CatalogModel, level: ReasoningChoice): ReasoningVariant {
  const base = defaultVariant(model.variants);
  if (base === undefined) {
    return { warning: `Cursor model ${JSON.stringify(model.id)} has no reasoning variants` };
  }
  const effortId = base.parameters.find((p) => EFFORT_IDS.includes(p.id))?.id;
  if (effortId !== undefined) {
    const offered = valuesOf(model.variants, effortId);
    const chosen = level === "none"
      ? undefined
      : variantWith(model.variants, base, effortId, level);
    if (chosen !== undefined) return { parameters: chosen.parameters, maxMode: chosen.maxMode };
    return {
      warning: `Cursor model ${JSON.stringify(model.id)} offers no ${
        JSON.stringify(level)
      } reasoning (its ${effortId} values: ${offered.join(", ")}); the default variant is used`,
    };
  }
  if (base.parameters.some((p) => p.id === "thinking")) {
    const chosen = variantWith(
      model.variants,
      base,
      "thinking",
      level === "none" ? "false" : "true",
    );
    if (chosen !== undefined) return { parameters: chosen.parameters, maxMode: chosen.maxMode };
  }
  return {
    warning: `Cursor model ${JSON.stringify(model.id)} has no reasoning setting; ${
      JSON.stringify(level)
    } was not applied`,
  };
}

function defaultVariant(variants: readonly CatalogVariant[]): CatalogVariant | undefined {
  return variants.find((v) => v.defaultNonMax) ?? variants.find((v) => v.defaultMax) ??
    variants[0];
}

/** The advertised variant equal to `base` except that `id` has `value`. */
function variantWith(
  variants: readonly CatalogVariant[],
  base: CatalogVariant,
  id: string,
  value: string,
): CatalogVariant | undefined {
  const wanted = new Map(base.parameters.map((p) => [p.id, p.value]));
  wanted.set(id, value);
  return variants.find((variant) =>
    variant.parameters.length === wanted.size &&
    variant.parameters.every((p) => wanted.get(p.id) === p.value)
  );
}

function valuesOf(variants: readonly CatalogVariant[], id: string): string[] {
  const values = new Set<string>();
  for (const variant of variants) {
    for (const p of variant.parameters) if (p.id === id) values.add(p.value);
  }
  return [...values];
}
