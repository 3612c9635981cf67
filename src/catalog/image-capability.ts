/**
 * Whether a model accepts image input, from Cursor's catalogue, and the clear error for an
 * image sent to one that does not (raised before any Run starts).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import type { CatalogModel } from "./catalog-model.ts";

/**
 * Looks a model up in the catalogue.
 *
 * @param models The catalogue.
 * @param modelId The selected model id.
 * @returns `true` or `false` for a listed model, `undefined` when it is not listed.
 *
 * @example
 * ```ts
 * import { acceptsImages } from "./image-capability.ts";
 *
 * const models = [{ id: "composer-1", displayName: "Composer 1", thinking: false, images: false, tools: true, variants: [] }];
 * console.assert(acceptsImages(models, "composer-1") === false);
 * console.assert(acceptsImages(models, "unlisted") === undefined);
 * ```
 */
export function acceptsImages(
  models: readonly CatalogModel[],
  modelId: string,
): boolean | undefined {
  return models.find((model) => model.id === modelId)?.images;
}

/**
 * Refuses image input for a model the catalogue lists as text-only.
 *
 * @param models The catalogue.
 * @param modelId The selected model id.
 * @param imageCount How many images the prompt carries.
 * @throws {CursorError} `invalid_argument` when the model is listed without image input.
 *
 * @example
 * ```ts
 * import { assertImagesAccepted } from "./image-capability.ts";
 *
 * const models = [{ id: "composer-1", displayName: "Composer 1", thinking: false, images: false, tools: true, variants: [] }];
 * let code = "";
 * try {
 *   assertImagesAccepted(models, "composer-1", 1);
 * } catch (error) {
 *   code = (error as { code: string }).code;
 * }
 * console.assert(code === "invalid_argument");
 * ```
 */
export function assertImagesAccepted(
  models: readonly CatalogModel[],
  modelId: string,
  imageCount: number,
): void {
  if (imageCount === 0 || acceptsImages(models, modelId) !== false) return;
  throw new CursorError(
    "invalid_argument",
    `Model "${modelId}" does not accept images; choose an image-capable model or remove the image (${imageCount} attached)`,
    { retryable: false },
  );
}
