/**
 * The model selection of one call on the direct backend: the call's own Cursor options,
 * or, for AI SDK 7's `reasoning` option, the catalogue's variant for that level. An
 * explicit variant tuple wins over `reasoning`; a level with no variant, a model the
 * catalogue does not list, or a catalogue that cannot be read leaves the selection as
 * it was and says so in a warning.
 *
 * @module
 */
import type { SharedV3Warning } from "@ai-sdk/provider";
import type { CatalogModel } from "../../../catalog/catalog-model.ts";
import { reasoningVariant } from "../../../catalog/reasoning-variant.ts";
import type { CallArgs } from "../../model-call/call-args.ts";
import { type CursorCallOptions, type ModelSelection, selectModel } from "./model-options.ts";

/** What the selection reads. */
export interface CallModelInput {
  readonly call: CallArgs;
  readonly cursorOptions: CursorCallOptions;
  /** Cursor's catalogue (read once per provider), `undefined` when it cannot be read. */
  readonly catalogue: (
    signal: AbortSignal | undefined,
  ) => Promise<readonly CatalogModel[] | undefined>;
}

/**
 * The wire model selection of a call.
 *
 * @param input The call, its Cursor options and the catalogue.
 * @param warnings Where a `reasoning` level that could not be applied is reported.
 * @returns Model id, parameters and Max Mode.
 */
export async function selectCallModel(
  input: CallModelInput,
  warnings: SharedV3Warning[],
): Promise<ModelSelection> {
  const { call, cursorOptions } = input;
  const level = call.reasoning;
  if (level === undefined) return selectModel(call.modelId, cursorOptions);
  if (cursorOptions.cursorVariantParameters !== undefined) {
    warnings.push(
      reasoningWarning("providerOptions.cursor.cursorVariantParameters chose the variant"),
    );
    return selectModel(call.modelId, cursorOptions);
  }
  const modelId = cursorOptions.cursorModelId ?? call.modelId;
  const models = await input.catalogue(call.options.abortSignal);
  const model = models?.find((entry) => entry.id === modelId);
  if (model === undefined) {
    warnings.push(reasoningWarning(
      models === undefined
        ? "Cursor's model list could not be read; the default variant is used"
        : `Cursor's model list has no ${JSON.stringify(modelId)}; the default variant is used`,
    ));
    return selectModel(call.modelId, cursorOptions);
  }
  const variant = reasoningVariant(model, level);
  if ("warning" in variant) {
    warnings.push(reasoningWarning(variant.warning));
    return selectModel(call.modelId, cursorOptions);
  }
  return selectModel(call.modelId, {
    ...cursorOptions,
    cursorVariantParameters: variant.parameters,
    cursorMaxMode: cursorOptions.cursorMaxMode ?? variant.maxMode,
  });
}

function reasoningWarning(details: string): SharedV3Warning {
  return { type: "unsupported", feature: "reasoning", details };
}
