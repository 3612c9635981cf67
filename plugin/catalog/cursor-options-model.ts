/**
 * A language model that adds fixed Cursor options (model id, variant tuple, Max Mode)
 * to every call's `providerOptions`, for hosts that pass a model's options when the
 * model is created rather than on each call (OpenCode's v2 API).
 *
 * @module
 */
import type { JSONObject, LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { CursorModelOptions } from "../../src/catalog/opencode-entries.ts";

/**
 * Picks the Cursor call options out of a model's settings.
 *
 * @param options The settings a host passes when it creates the model.
 * @returns The Cursor options found (malformed values are kept for the provider to reject).
 */
export function cursorOptionsFrom(options: Readonly<Record<string, unknown>>): JSONObject {
  const picked: JSONObject = {};
  for (const key of ["cursorModelId", "cursorVariantParameters", "cursorMaxMode"] as const) {
    const value = toJson(options[key]);
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

/**
 * Wraps a model so that every call carries `defaults` under `providerOptions[providerName]`
 * (per-call values win).
 *
 * @param model The Cursor language model.
 * @param defaults The options to add.
 * @param providerName The provider-options key; default `cursor`.
 * @returns The wrapped model (the same model when there is nothing to add).
 *
 * @example
 * ```ts
 * import { withCursorOptions } from "./cursor-options-model.ts";
 * import type { LanguageModelV3 } from "@ai-sdk/provider";
 *
 * const seen: unknown[] = [];
 * const model = {
 *   specificationVersion: "v3", provider: "cursor", modelId: "m", supportedUrls: {},
 *   doGenerate: (options: unknown) => { seen.push(options); return Promise.reject(new Error("stub")); },
 *   doStream: (options: unknown) => { seen.push(options); return Promise.reject(new Error("stub")); },
 * } as unknown as LanguageModelV3;
 * const wrapped = withCursorOptions(model, { cursorMaxMode: true });
 * await Promise.resolve(wrapped.doStream({ prompt: [] })).catch(() => {});
 * console.assert(JSON.stringify(seen[0]).includes('"cursorMaxMode":true'));
 * ```
 */
export function withCursorOptions(
  model: LanguageModelV3,
  defaults: JSONObject | CursorModelOptions,
  providerName = "cursor",
): LanguageModelV3 {
  const base = cursorOptionsFrom(defaults as Readonly<Record<string, unknown>>);
  if (Object.keys(base).length === 0) return model;
  const merge = (options: LanguageModelV3CallOptions): LanguageModelV3CallOptions => ({
    ...options,
    providerOptions: {
      ...options.providerOptions,
      [providerName]: { ...base, ...options.providerOptions?.[providerName] },
    },
  });
  return {
    specificationVersion: "v3",
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => model.doGenerate(merge(options)),
    doStream: (options) => model.doStream(merge(options)),
  };
}

function toJson(value: unknown): JSONObject[string] {
  if (value === undefined) return undefined;
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) return value.map((item) => toJson(item) ?? null);
  if (typeof value === "object") {
    const out: JSONObject = {};
    for (const [key, item] of Object.entries(value)) {
      const converted = toJson(item);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  }
  return undefined;
}
