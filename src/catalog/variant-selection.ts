/**
 * Checking a model selection against the catalogue before a turn: a variant the host
 * no longer offers, a malformed option or a parameter tuple Cursor does not advertise
 * fails with a message that says what to do, instead of silently falling back to the
 * default variant.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import type { CatalogModel, CatalogParameterValue } from "./catalog-model.ts";

/** A selection as the host is about to send it. */
export interface ModelSelectionCheck {
  /** The host's model id (e.g. `claude-4.5-sonnet-1m`). */
  readonly modelId: string;
  /** The variant the person chose, if any. */
  readonly variantKey?: string | undefined;
  /** The variants the host's model entry offers. */
  readonly offeredVariants: readonly string[];
  /** The merged per-call options (`providerOptions.cursor`). */
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * Checks a selection.
 *
 * @param catalog The catalogue, or `undefined` when none is known (then only the
 *   shape and the host's own variant list are checked).
 * @param selection The selection.
 * @returns An `invalid_argument` {@link CursorError} describing the problem, or
 *   `undefined` when the selection is valid.
 *
 * @example
 * ```ts
 * import { checkModelSelection } from "./variant-selection.ts";
 *
 * const error = checkModelSelection(undefined, {
 *   modelId: "gpt-5", variantKey: "ultra", offeredVariants: ["low", "high"], options: {},
 * });
 * console.assert(error?.message.includes('"ultra"'));
 * ```
 */
export function checkModelSelection(
  catalog: readonly CatalogModel[] | undefined,
  selection: ModelSelectionCheck,
): CursorError | undefined {
  const { modelId, variantKey, offeredVariants, options } = selection;
  if (variantKey !== undefined && variantKey !== "" && !offeredVariants.includes(variantKey)) {
    const offered = offeredVariants.length === 0
      ? "it has no variants"
      : `it offers ${offeredVariants.map((v) => JSON.stringify(v)).join(", ")}`;
    return invalid(
      `The variant ${JSON.stringify(variantKey)} of Cursor model ${
        JSON.stringify(modelId)
      } is no longer offered (${offered}). Pick a variant again.`,
    );
  }
  const shape = readShape(options);
  if (typeof shape === "string") return invalid(`Malformed Cursor model options: ${shape}`);
  if (catalog === undefined || shape.parameters === undefined || shape.parameters.length === 0) {
    return undefined;
  }
  const wireId = shape.modelId ?? modelId;
  const model = catalog.find((m) => m.id === wireId);
  if (model === undefined) return undefined;
  const wanted = tupleKey(shape.parameters);
  if (model.variants.some((variant) => tupleKey(variant.parameters) === wanted)) return undefined;
  return invalid(
    `The selected variant of Cursor model ${JSON.stringify(modelId)} (${
      shape.parameters.map((p) => `${p.id}=${p.value}`).join(", ") || "no parameters"
    }) is stale: Cursor no longer advertises it. Refresh the model list and pick a variant again.`,
  );
}

interface SelectionShape {
  readonly modelId: string | undefined;
  readonly parameters: CatalogParameterValue[] | undefined;
}

function readShape(options: Readonly<Record<string, unknown>>): SelectionShape | string {
  const { cursorModelId, cursorVariantParameters, cursorMaxMode } = options;
  if (cursorModelId !== undefined && (typeof cursorModelId !== "string" || cursorModelId === "")) {
    return "cursorModelId must be a non-empty string";
  }
  if (cursorMaxMode !== undefined && typeof cursorMaxMode !== "boolean") {
    return "cursorMaxMode must be true or false";
  }
  if (cursorVariantParameters === undefined) {
    return { modelId: cursorModelId, parameters: undefined };
  }
  if (!Array.isArray(cursorVariantParameters)) {
    return "cursorVariantParameters must be a list of {id, value}";
  }
  const parameters: CatalogParameterValue[] = [];
  for (const [index, item] of cursorVariantParameters.entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return `cursorVariantParameters[${index}] is not an {id, value} object`;
    }
    const { id, value } = item as Record<string, unknown>;
    if (typeof id !== "string" || id === "" || typeof value !== "string") {
      return `cursorVariantParameters[${index}] must have a string id and a string value`;
    }
    parameters.push({ id, value });
  }
  return { modelId: cursorModelId, parameters };
}

function tupleKey(parameters: readonly CatalogParameterValue[]): string {
  return parameters.map((p) => `${p.id}\u0000${p.value}`).sort().join("\u0001");
}

function invalid(message: string): CursorError {
  return new CursorError("invalid_argument", message);
}
