/**
 * Stops image input to a text-only model before any Run starts: the first prompt with an
 * image reads Cursor's catalogue (once per provider) and refuses the call with a clear
 * error when the selected model is listed without image input. Images from tool results
 * ask the same catalogue, and a text-only model gets a note in their place. A catalogue
 * that cannot be read, or a model it does not list, lets the image through (Cursor
 * decides).
 *
 * @module
 */
import type { LanguageModelV3CallOptions, LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import { requestAvailableModels } from "../../../catalog/available-models.ts";
import type { CatalogModel } from "../../../catalog/catalog-model.ts";
import { acceptsImages, assertImagesAccepted } from "../../../catalog/image-capability.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { ResultMedia } from "../tools/media/tool-images.ts";
import { isToolMediaMessage, toolResultImages } from "../tools/media/tool-media.ts";
import type { ConvertedPrompt } from "./convert-prompt.ts";

/**
 * The catalogue lookup behind the image check and the `reasoning` option's variant,
 * read at most once while it succeeds.
 */
export class ImageGate {
  readonly #config: ProviderConfig;
  #catalog: Promise<readonly CatalogModel[] | undefined> | undefined;

  constructor(config: ProviderConfig) {
    this.#config = config;
  }

  /**
   * Checks the prompt's images against the model.
   *
   * @param modelId The selected Cursor model id.
   * @param imageCount How many images the prompt carries.
   * @param signal The call's abort signal.
   * @throws {CursorError} `invalid_argument` for images to a model listed as text-only.
   */
  async check(modelId: string, imageCount: number, signal?: AbortSignal): Promise<void> {
    if (imageCount === 0) return;
    const models = await this.catalogue(signal);
    if (models !== undefined) assertImagesAccepted(models, modelId, imageCount);
  }

  /**
   * Whether images may go to the model (with tool results, where a text-only model gets a
   * note instead of a refusal): `false` only when the catalogue lists it as text-only.
   *
   * @param modelId The selected Cursor model id.
   * @param signal The call's abort signal.
   * @returns Whether to send images.
   */
  async accepts(modelId: string, signal?: AbortSignal): Promise<boolean> {
    const models = await this.catalogue(signal);
    return models === undefined || acceptsImages(models, modelId) !== false;
  }

  /**
   * The images that came with the trailing tool results, and what they are checked
   * against (whether the model takes images, the conversation's sent images).
   *
   * @param options The call (its prompt and abort signal).
   * @param results The trailing tool results.
   * @param target The model id and the conversation's sent-image hashes.
   * @returns The media, or `undefined` when the results brought no image.
   */
  async resultMedia(
    options: Pick<LanguageModelV3CallOptions, "prompt" | "abortSignal">,
    results: readonly LanguageModelV3ToolResultPart[],
    target: { readonly modelId: string; readonly sent: Set<string> },
  ): Promise<ResultMedia | undefined> {
    const images = toolResultImages(options.prompt, results);
    if (images.size === 0) return undefined;
    const acceptsImages = await this.accepts(target.modelId, options.abortSignal);
    return { images, scope: { acceptsImages, ...target } };
  }

  /**
   * A rebuilt continuation whose last message is OpenCode's tool-media message carries its
   * images as the Run's images; for a model listed as text-only they are left out (the
   * rebuilt transcript still names them) with a warning, never a failure.
   *
   * @param converted The converted prompt.
   * @param options The call (its prompt and abort signal).
   * @param modelId The selected Cursor model id.
   * @returns The prompt to send.
   */
  async toolImagesInPrompt(
    converted: ConvertedPrompt,
    options: Pick<LanguageModelV3CallOptions, "prompt" | "abortSignal">,
    modelId: string,
  ): Promise<ConvertedPrompt> {
    const count = converted.images.length;
    if (count === 0 || !isToolMediaMessage(options.prompt[options.prompt.length - 1])) {
      return converted;
    }
    if (await this.accepts(modelId, options.abortSignal)) return converted;
    const message =
      `${count} image(s) from tool results were left out: model "${modelId}" does not accept images`;
    return {
      ...converted,
      images: [],
      warnings: [...converted.warnings, { type: "other", message }],
    };
  }

  /**
   * The catalogue, read once and shared (also for reasoning levels and a first Run's
   * context window); read again after a failure.
   *
   * @param signal The call's abort signal.
   * @returns The models, or `undefined` when the catalogue cannot be read.
   */
  catalogue(signal: AbortSignal | undefined): Promise<readonly CatalogModel[] | undefined> {
    const config = this.#config;
    this.#catalog ??= (async () => {
      try {
        const headers = await config.headers(config.generateId(), signal);
        return await requestAvailableModels({
          apiBaseURL: config.apiBaseURL,
          headers: { ...headers, "content-type": "application/json", accept: "application/json" },
          fetch: config.fetch,
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        emitDiagnostic(config.logger, {
          kind: "image-catalogue-unreadable",
          errorName: (error as Error).name,
        });
        this.#catalog = undefined;
        return undefined;
      }
    })();
    return this.#catalog;
  }
}
