/**
 * The AI SDK 7 model (`LanguageModelV4`): the same model as {@link CursorLanguageModel},
 * with AI SDK 7's call options and parts converted at its edge (`./v4-conversion.ts`).
 * AI SDK 7 uses it as it is, with no adapter in between; the `reasoning` option reaches
 * the backend, which maps it to a Cursor variant.
 *
 * @module
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider-v4";
import { callError, CursorLanguageModel } from "../language-model.ts";
import type { TurnBackend } from "../turn-backend.ts";
import {
  convertCallOptionsV4,
  convertContentToV4,
  convertStreamToV4,
  convertWarningsToV4,
} from "./v4-conversion.ts";

/**
 * A Cursor model for AI SDK 7. Create it through `createCursor()(modelId)` of the
 * `/v4` entry.
 *
 * @example
 * ```ts
 * import { createCursor } from "../../../v4.ts";
 *
 * const model = createCursor({ accessToken: "token" })("composer-2");
 * console.assert(model.specificationVersion === "v4" && model.provider === "cursor.direct");
 * ```
 */
export class CursorLanguageModelV4 implements LanguageModelV4 {
  /** The AI SDK specification this model implements. */
  readonly specificationVersion = "v4";
  readonly #model: CursorLanguageModel;
  readonly #backend: TurnBackend;

  /**
   * Created by `createCursor()` of the `/v4` entry; not meant to be constructed directly.
   *
   * @param modelId The model id (Cursor's, or the host's with `providerOptions.cursor.cursorModelId`).
   * @param backend The backend that produces the stream parts.
   * @ignore
   */
  constructor(modelId: string, backend: TurnBackend) {
    this.#model = new CursorLanguageModel(modelId, backend);
    this.#backend = backend;
  }

  /** The host-facing model id. */
  get modelId(): string {
    return this.#model.modelId;
  }

  /** The provider id: `cursor.direct` or `cursor.cli` (with the provider's own name). */
  get provider(): string {
    return this.#model.provider;
  }

  /** No URLs are fetched by Cursor on the model's behalf. */
  get supportedUrls(): Record<string, RegExp[]> {
    return this.#model.supportedUrls;
  }

  /**
   * Streams one turn.
   *
   * @param options The AI SDK 7 call options.
   * @returns The stream of parts, starting with `stream-start`.
   * @throws {APICallError} when the turn fails before anything was streamed.
   */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { input, warnings } = this.#convert(options);
    const result = await this.#model.doStream(input);
    return { ...result, stream: convertStreamToV4(result.stream, warnings) };
  }

  /**
   * Generates one turn.
   *
   * @param options The AI SDK 7 call options.
   * @returns The content, usage, finish reason and response metadata.
   * @throws {APICallError} when the turn fails; an `AbortError` when it was aborted.
   */
  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { input, warnings } = this.#convert(options);
    const result = await this.#model.doGenerate(input);
    return {
      ...result,
      content: result.content.map(convertContentToV4),
      warnings: convertWarningsToV4([...result.warnings, ...warnings]),
    } as LanguageModelV4GenerateResult;
  }

  #convert(options: LanguageModelV4CallOptions): ReturnType<typeof convertCallOptionsV4> {
    try {
      return convertCallOptionsV4(options);
    } catch (error) {
      throw callError(this.#backend, this.modelId, error, options.abortSignal);
    }
  }
}
