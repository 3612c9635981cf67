/**
 * Per-call Cursor options (`providerOptions.cursor`) and the model selection they give.
 *
 * @module
 */
import type { CursorCallOptions, CursorParameter } from "../../settings/cursor-options.ts";

export type { CursorCallOptions, CursorParameter } from "../../settings/cursor-options.ts";

/** The model selection as it goes on the wire. */
export interface ModelSelection {
  readonly modelId: string;
  readonly parameters: readonly CursorParameter[];
  readonly maxMode: boolean;
}

/**
 * The wire model selection for a call.
 *
 * @param modelId The host's model id.
 * @param options The call's Cursor options.
 * @returns Model id, parameters and Max Mode.
 *
 * @example
 * ```ts
 * import { selectModel } from "./model-options.ts";
 *
 * const selection = selectModel("gpt-x-1m", { cursorModelId: "gpt-x", cursorVariantParameters: [{ id: "context", value: "1m" }] });
 * console.assert(selection.modelId === "gpt-x" && selection.maxMode);
 * ```
 */
export function selectModel(modelId: string, options: CursorCallOptions): ModelSelection {
  const parameters = options.cursorVariantParameters ?? [];
  const longContext = parameters.some((p) => p.id === "context" && p.value.toLowerCase() === "1m");
  return {
    modelId: options.cursorModelId ?? modelId,
    parameters,
    maxMode: options.cursorMaxMode ?? longContext,
  };
}
