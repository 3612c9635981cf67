/**
 * The AI SDK `LanguageModelV3` both backends share. A {@link TurnBackend} produces the
 * stream parts of a call; this skeleton does the rest the same way for both: call
 * arguments and warnings, the `stream-start` part, one error boundary (`APICallError`
 * with retry hints in `responseHeaders`, `AbortError` for canceled calls), and
 * `doGenerate` as a fold of `doStream`.
 *
 * @module
 */
import type {
  LanguageModelV3,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { type ApiCallContext, toProviderError } from "./api-call-error.ts";
import { buildCallArgs, type CallArgs, type CursorCallInput } from "./model-call/call-args.ts";
import { foldStreamResult } from "./model-call/generate-fold.ts";
import {
  structuredOutputOf,
  structuredOutputStream,
  withStructuredOutputInstruction,
} from "./model-call/structured-output.ts";
import type { BackendTurn, TurnBackend } from "./turn-backend.ts";

/**
 * A Cursor model. Create it through `createCursor()(modelId)`.
 *
 * @example
 * ```ts
 * import { createCursor } from "../../mod.ts";
 *
 * const cursor = createCursor({ accessToken: "token" });
 * const model = cursor("composer-2");
 * console.assert(model.specificationVersion === "v3" && model.provider === "cursor.direct");
 * ```
 */
export class CursorLanguageModel implements LanguageModelV3 {
  /** The AI SDK specification this model implements. */
  readonly specificationVersion = "v3";
  /** The host-facing model id. */
  readonly modelId: string;
  /** No URLs are fetched by Cursor on the model's behalf. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly #backend: TurnBackend;

  /**
   * Created by `createCursor()`; not meant to be constructed directly.
   *
   * @param modelId The model id (Cursor's, or the host's with `providerOptions.cursor.cursorModelId`).
   * @param backend The backend that produces the stream parts.
   * @ignore
   */
  constructor(modelId: string, backend: TurnBackend) {
    this.modelId = modelId;
    this.#backend = backend;
  }

  /** The provider id: `cursor.direct` or `cursor.cli` (with the provider's own name). */
  get provider(): string {
    return this.#backend.providerId;
  }

  /**
   * Streams one turn.
   *
   * @param options The AI SDK call options (AI SDK 7's `reasoning` option included).
   * @returns The stream of parts, starting with `stream-start`.
   * @throws {APICallError} when the turn fails before anything was streamed.
   * @throws An `AbortError` when the call was aborted before anything was streamed.
   */
  async doStream(options: CursorCallInput): Promise<LanguageModelV3StreamResult> {
    const context = this.#backend.errorContext(this.modelId);
    const convert = boundary(this.#backend, context, options.abortSignal);
    let call: CallArgs;
    let turn: BackendTurn;
    const structured = structuredOutputOf(options);
    try {
      const input = structured === undefined
        ? options
        : { ...options, prompt: withStructuredOutputInstruction(options.prompt, structured) };
      call = buildCallArgs(this.modelId, input, this.#backend.capabilities);
      turn = await this.#backend.stream(call);
    } catch (error) {
      throw convert(error);
    }
    if (structured !== undefined) {
      turn = { ...turn, stream: structuredOutputStream(turn.stream, structured) };
    }
    const streamBoundary = boundary(this.#backend, {
      ...context,
      ...(turn.requestBody === undefined ? {} : { requestBodyValues: turn.requestBody }),
    }, options.abortSignal);
    return {
      stream: framedStream(turn, [...call.warnings, ...(turn.warnings ?? [])], streamBoundary),
      ...(turn.requestBody === undefined ? {} : { request: { body: turn.requestBody } }),
    };
  }

  /**
   * Generates one turn by folding {@link doStream}: every part kind the stream carries
   * (text, reasoning, tool calls and results, sources, files, response metadata,
   * usage, provider metadata, warnings, finish reason) ends up in the result.
   *
   * @param options The AI SDK call options.
   * @returns The content, usage, finish reason and response metadata.
   * @throws {APICallError} when the turn fails; an `AbortError` when it was aborted.
   */
  async doGenerate(options: CursorCallInput): Promise<LanguageModelV3GenerateResult> {
    const result = await this.doStream(options);
    try {
      return await foldStreamResult(result);
    } catch (error) {
      throw boundary(this.#backend, this.#backend.errorContext(this.modelId), options.abortSignal)(
        error,
      );
    }
  }
}

/**
 * Converts an error of a call that failed before its stream started, as every call's
 * error boundary does (for the AI SDK 7 model's own option conversion).
 *
 * @param backend The model's backend.
 * @param modelId The host-facing model id.
 * @param error What failed.
 * @param signal The call's abort signal.
 * @returns The error to throw.
 */
export function callError(
  backend: TurnBackend,
  modelId: string,
  error: unknown,
  signal: AbortSignal | undefined,
): Error {
  return boundary(backend, backend.errorContext(modelId), signal)(error);
}

/** The error boundary of one call: what failed becomes what the AI SDK expects. */
function boundary(
  backend: TurnBackend,
  context: ApiCallContext,
  signal: AbortSignal | undefined,
): (error: unknown) => Error {
  return (error) => {
    const converted = toProviderError(error, context, { aborted: signal?.aborted === true });
    return backend.reportFailure ? backend.reportFailure(converted) : converted;
  };
}

/**
 * The backend's stream behind a `stream-start` part, with every failure (an `error`
 * part or the stream's own error) passed through the error boundary.
 */
function framedStream(
  turn: BackendTurn,
  warnings: SharedV3Warning[],
  convert: (error: unknown) => Error,
): ReadableStream<LanguageModelV3StreamPart> {
  const reader = turn.stream.getReader();
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings });
    },
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else if (value.type === "error") {
          controller.enqueue({ type: "error", error: convert(value.error) });
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(convert(error));
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}
