/**
 * The AI SDK `LanguageModelV3` for Cursor's agent service. `doStream` wires the
 * transport, the held Run and the pure event mapper together; `doGenerate` folds it.
 *
 * @module
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CursorError } from "../core/cursor-error.ts";
import { encodeRunRequestMessage } from "../protocol/run-request-bytes.ts";
import { AgentRun } from "../session/agent-run.ts";
import { createRequestContextCache } from "../session/request-context.ts";
import { buildUserTurnRequest } from "../session/run-request.ts";
import type { RunEvent } from "../session/run-events.ts";
import { toApiCallError } from "./api-call-error.ts";
import { convertPrompt } from "./convert-prompt.ts";
import { readCursorOptions, selectModel, unsupportedOptionWarnings } from "./model-options.ts";
import type { ProviderConfig } from "./provider-config.ts";
import { finishLine, outboundRunLine } from "./debug-lines.ts";
import { buildFinish } from "./finish.ts";
import { closeOpenParts, createRunStreamState, mapRunEvent } from "./run-stream.ts";

/**
 * A Cursor model. Create it through `createCursor()(modelId)`.
 *
 * @example
 * ```ts
 * import { createCursor } from "../../mod.ts";
 *
 * const cursor = createCursor({ accessToken: "token" });
 * const model = cursor("composer-2");
 * console.assert(model.specificationVersion === "v3" && model.modelId === "composer-2");
 * ```
 */
export class CursorLanguageModel implements LanguageModelV3 {
  /** The AI SDK specification this model implements. */
  readonly specificationVersion = "v3";
  /** The host-facing model id. */
  readonly modelId: string;
  /** No URLs are fetched by Cursor on the model's behalf. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  readonly #config: ProviderConfig;

  /**
   * @param modelId The model id (Cursor's, or the host's with `providerOptions.cursor.cursorModelId`).
   * @param config The provider's shared configuration.
   */
  constructor(modelId: string, config: ProviderConfig) {
    this.modelId = modelId;
    this.#config = config;
  }

  /** The provider id, `cursor.agent`. */
  get provider(): string {
    return `${this.#config.providerName}.agent`;
  }

  /**
   * Streams one turn.
   *
   * @param options The AI SDK call options.
   * @returns The stream of parts.
   * @throws {APICallError} when the Run fails before anything was streamed.
   */
  async doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const url = `${this.#config.apiBaseURL}/agent.v1.AgentService/RunSSE`;
    try {
      return await this.#stream(options);
    } catch (error) {
      throw toApiCallError(error, { url, requestBodyValues: { model: this.modelId } });
    }
  }

  /**
   * Generates one turn by folding {@link doStream}.
   *
   * @param options The AI SDK call options.
   * @returns The content, usage and finish reason.
   */
  async doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    const { stream, request } = await this.doStream(options);
    const content: LanguageModelV3Content[] = [];
    const reader = stream.getReader();
    let result: Omit<LanguageModelV3GenerateResult, "content"> | undefined;
    const texts = new Map<string, { type: "text" | "reasoning"; text: string }>();
    let warnings: LanguageModelV3GenerateResult["warnings"] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === "stream-start") warnings = value.warnings;
      else if (value.type === "text-start") texts.set(value.id, { type: "text", text: "" });
      else if (value.type === "reasoning-start") {
        texts.set(value.id, { type: "reasoning", text: "" });
      } else if (value.type === "text-delta" || value.type === "reasoning-delta") {
        const entry = texts.get(value.id);
        if (entry) entry.text += value.delta;
      } else if (value.type === "text-end" || value.type === "reasoning-end") {
        const entry = texts.get(value.id);
        if (entry) content.push({ type: entry.type, text: entry.text });
      } else if (value.type === "error") throw value.error;
      else if (value.type === "finish") {
        result = {
          finishReason: value.finishReason,
          usage: value.usage,
          warnings,
          ...(value.providerMetadata ? { providerMetadata: value.providerMetadata } : {}),
        };
      }
    }
    if (result === undefined) {
      throw new CursorError("interrupted", "The stream ended without a finish");
    }
    return { ...result, content, ...(request ? { request } : {}) };
  }

  async #stream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    const config = this.#config;
    const cursorOptions = readCursorOptions(options.providerOptions, config.providerName);
    const selection = selectModel(this.modelId, cursorOptions);
    const prompt = convertPrompt(options.prompt, { supportsImages: true });
    const warnings = [...unsupportedOptionWarnings(options), ...prompt.warnings];
    const requestContext = createRequestContextCache()({
      workspace: config.workspace,
      systemPrompt: prompt.systemPrompt,
    });
    const conversationId = config.generateId();
    const requestId = config.generateId();
    const userText = prompt.history ? `${prompt.history}\n\n${prompt.userText}` : prompt.userText;
    const request = buildUserTurnRequest({
      conversationId,
      conversationGroupId: conversationId,
      messageId: config.generateId(),
      userText,
      images: prompt.images.map((image) => ({ ...image, uuid: config.generateId() })),
      requestContext: requestContext.message,
      model: selection,
    });
    const headers = await config.headers(requestId, options.abortSignal);
    const agentBaseURL = await config.agentOrigin(headers, options.abortSignal);
    const stream = await config.transport.openRun({
      agentBaseURL,
      headers,
      requestId,
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    });
    const run = new AgentRun(stream, {
      blobs: config.blobs,
      requestContext: requestContext.message,
      logger: config.logger,
    });
    if (config.logger.enabled) {
      config.logger.line(outboundRunLine({
        sessionKey: cursorOptions.sessionId ?? "none",
        conversationId,
        model: selection.modelId,
        transport: config.transport.kind,
        checkpointLen: 0,
        requestContextReused: requestContext.reused,
        requestContextBytes: requestContext.bytes,
        systemPromptSent: prompt.systemPrompt !== "",
      }));
    }
    options.abortSignal?.addEventListener("abort", () => run.close(), { once: true });
    await run.start(encodeRunRequestMessage(request, new Uint8Array(0)));
    const events = run.events();
    const first = await events.next().catch((error: unknown) => {
      run.close();
      throw error;
    });
    return {
      stream: this.#parts(run, events, first, warnings, {
        modelId: selection.modelId,
        conversationId,
      }),
      request: { body: { model: selection.modelId, conversationId } },
    };
  }

  #parts(
    run: AgentRun,
    events: AsyncGenerator<RunEvent, void, undefined>,
    first: IteratorResult<RunEvent, void>,
    warnings: SharedV3Warning[],
    identity: { modelId: string; conversationId: string },
  ): ReadableStream<LanguageModelV3StreamPart> {
    const state = createRunStreamState();
    const config = this.#config;
    let pending: IteratorResult<RunEvent, void> | undefined = first;
    return new ReadableStream<LanguageModelV3StreamPart>({
      start(controller) {
        controller.enqueue({ type: "stream-start", warnings });
        controller.enqueue({
          type: "response-metadata",
          id: identity.conversationId,
          modelId: identity.modelId,
          timestamp: new Date(config.now()),
        });
      },
      async pull(controller) {
        try {
          // Keep reading until this pull produced a part: a pull that enqueues nothing stalls the stream.
          for (let produced = 0; produced === 0;) {
            const next = pending ?? await events.next();
            pending = undefined;
            if (next.done) {
              for (const part of closeOpenParts(state)) controller.enqueue(part);
              const finish = buildFinish(state, { priorUsed: undefined, activity: run.activity });
              if (config.logger.enabled) config.logger.line(finishLine(finish.log));
              controller.enqueue(finish.part);
              controller.close();
              return;
            }
            if (next.value.type === "warning") {
              if (config.logger.enabled) config.logger.line(`run warning: ${next.value.message}`);
              continue;
            }
            for (const part of mapRunEvent(state, next.value)) {
              controller.enqueue(part);
              produced++;
            }
          }
        } catch (error) {
          for (const part of closeOpenParts(state)) controller.enqueue(part);
          controller.enqueue({
            type: "error",
            error: toApiCallError(error, { url: identity.modelId }),
          });
          controller.close();
          run.close();
        }
      },
      cancel() {
        run.close();
      },
    });
  }
}
