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
  LanguageModelV3StreamResult,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CursorError } from "../core/cursor-error.ts";
import { encodeRunRequestMessage } from "../protocol/run-request-bytes.ts";
import { sha256Hex } from "../core/bytes.ts";
import { AgentRun } from "../session/agent-run.ts";
import { type AdvertisedTool, materializeRequestContext } from "../session/request-context.ts";
import { buildUserTurnRequest } from "../session/run-request.ts";
import { ActiveTurn } from "./active-turn.ts";
import { toApiCallError } from "./api-call-error.ts";
import { convertPrompt } from "./convert-prompt.ts";
import { outboundRunLine, shortHash } from "./debug-lines.ts";
import { trailingToolResults } from "./history.ts";
import { readCursorOptions, selectModel, unsupportedOptionWarnings } from "./model-options.ts";
import type { ProviderConfig } from "./provider-config.ts";
import { isMetadataCall, sessionKey } from "./session-key.ts";
import { classifyHostTools, type HostTools } from "./tools/host-tools.ts";
import { planTurn, type TurnPlan } from "./turn-plan.ts";
import { openTurnStream } from "./turn-stream.ts";

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
   * Created by `createCursor()`; not meant to be constructed directly.
   *
   * @param modelId The model id (Cursor's, or the host's with `providerOptions.cursor.cursorModelId`).
   * @param config The provider's shared configuration.
   * @ignore
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
      const failure = this.#config.redactor.redactError(
        toApiCallError(error, { url, requestBodyValues: { model: this.modelId } }),
      );
      if (this.#config.logger.enabled) this.#config.logger.line(`call failed: ${failure.message}`);
      throw failure;
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
    config.conversations.sweep();
    const cursorOptions = readCursorOptions(options.providerOptions, config.providerName);
    const selection = selectModel(this.modelId, cursorOptions);
    const tools = classifyHostTools(options.tools);
    const warnings: SharedV3Warning[] = unsupportedOptionWarnings(options);
    const converted = convertPrompt(options.prompt, { supportsImages: true });
    // Title generation and other metadata calls never touch the session's conversation.
    const metadataCall = isMetadataCall(converted.systemPrompt, tools);
    const key = metadataCall ? undefined : sessionKey(options.headers, cursorOptions);
    const results = metadataCall ? [] : trailingToolResults(options.prompt);
    const resumed = await this.#resumeHeld(key, results, tools, options, warnings);
    if (resumed) return resumed;
    warnings.push(...converted.warnings);
    const plan = planTurn({
      key: key ?? (metadataCall ? undefined : `anonymous:${config.generateId()}`),
      metadataCall,
      prompt: options.prompt,
      converted,
      store: config.conversations,
      newId: config.generateId,
      orphanResults: results.length > 0,
    });
    if (plan.resetReason && config.logger.enabled) {
      config.logger.line(
        `conversation reset: reason=${plan.resetReason} sessionKey=${
          key ?? "none"
        } conversationId=${plan.conversationId} conversationGroupId=${plan.groupId}`,
      );
    }
    try {
      return await this.#startTurn({ plan, selection, tools, options, warnings, key, converted });
    } catch (error) {
      // Cursor asked for a blob this client no longer holds before anything was streamed: the
      // checkpoint is unusable, so the conversation is reseeded from host history instead of
      // failing the turn ("Blob not found").
      if (
        plan.continuity !== "warm" || CursorError.from(error).code !== "blob_not_found" ||
        key === undefined
      ) throw error;
      const reseeded = planTurn({
        key,
        metadataCall: false,
        prompt: options.prompt,
        converted,
        store: config.conversations,
        newId: config.generateId,
        orphanResults: false,
        forceReseed: "checkpoint-unusable",
      });
      if (config.logger.enabled) {
        config.logger.line(
          `conversation reset: reason=checkpoint-unusable sessionKey=${key} conversationId=${reseeded.conversationId} conversationGroupId=${reseeded.groupId}`,
        );
      }
      return await this.#startTurn({
        plan: reseeded,
        selection,
        tools,
        options,
        warnings,
        key,
        converted,
      });
    }
  }

  /** Resumes a held Run when the prompt ends with results for its tool calls. */
  async #resumeHeld(
    key: string | undefined,
    results: ReturnType<typeof trailingToolResults>,
    tools: HostTools,
    options: LanguageModelV3CallOptions,
    warnings: SharedV3Warning[],
  ): Promise<LanguageModelV3StreamResult | undefined> {
    const config = this.#config;
    const ownerKey = results.map((r) => config.toolCallOwners.get(r.toolCallId)).find((k) =>
      k !== undefined
    );
    const holdKey = key ?? ownerKey;
    const conversation = holdKey === undefined ? undefined : config.conversations.get(holdKey);
    if (conversation === undefined || holdKey === undefined) return undefined;
    if (results.length === 0 || conversation.held === undefined) {
      if (conversation.held !== undefined) {
        const stale = config.conversations.take(conversation);
        stale?.close();
        conversation.heldReleaseReason = "superseded-by-new-user-turn";
        if (config.logger.enabled) {
          config.logger.line(
            `held Run released: conversationId=${conversation.conversationId} reason=superseded-by-new-user-turn`,
          );
        }
      } else if (results.length > 0 && config.logger.enabled) {
        config.logger.line(
          `continuation: ${results.length} interrupted trailing tool result(s) [${
            results.map((r) => r.toolName).join(",")
          }] heldRun=${conversation.heldReleaseReason ?? "missing-process-local-state"}`,
        );
      }
      return undefined;
    }
    const turn = config.conversations.take(conversation);
    if (turn === undefined) return undefined;
    for (const result of results) config.toolCallOwners.delete(result.toolCallId);
    for (const message of await turn.deliverResults(results)) {
      warnings.push({ type: "other", message });
    }
    const stream = await openTurnStream({
      turn,
      config,
      conversation,
      holdKey,
      prompt: options.prompt,
      tools,
      warnings,
      abortSignal: options.abortSignal,
      diagnostics: {
        sessionKey: key ?? "none",
        ...(turn.startFacts ?? {
          continuity: "warm",
          coldReason: undefined,
          requestContext: "reused",
          requestContextHash: "unknown",
          systemPromptHash: "unknown",
          systemPromptSent: false,
        }),
      },
    });
    return {
      stream,
      request: {
        body: { model: turn.modelId, conversationId: turn.conversationId, resumed: true },
      },
    };
  }

  async #startTurn(input: {
    plan: TurnPlan;
    selection: ReturnType<typeof selectModel>;
    tools: HostTools;
    options: LanguageModelV3CallOptions;
    warnings: SharedV3Warning[];
    key: string | undefined;
    converted: ReturnType<typeof convertPrompt>;
  }): Promise<LanguageModelV3StreamResult> {
    const config = this.#config;
    const { plan, selection, tools, options } = input;
    const conversation = plan.conversation;
    const advertised = advertisedTools(conversation?.advertisedTools ?? [], tools);
    if (conversation) conversation.advertisedTools = advertised;
    const requestContext = materializeRequestContext(
      { workspace: config.workspace, systemPrompt: plan.systemPrompt, tools: advertised },
      conversation?.requestContext,
    );
    if (conversation) conversation.requestContext = requestContext;
    const requestId = config.generateId();
    const request = buildUserTurnRequest({
      conversationId: plan.conversationId,
      conversationGroupId: plan.groupId,
      messageId: config.generateId(),
      userText: plan.userText,
      images: input.converted.images.map((image) => ({ ...image, uuid: config.generateId() })),
      requestContext: requestContext.message,
      model: selection,
    });
    const headers = await config.headers(requestId, options.abortSignal);
    const agentBaseURL = await config.agentOrigin(headers, options.abortSignal);
    const stream = await config.transport.openRun({
      agentBaseURL,
      headers,
      requestId,
    });
    const run = new AgentRun(stream, {
      blobs: config.blobs,
      requestContext: requestContext.message,
      logger: config.logger,
    });
    const requestContextHash = await shortHash(requestContext.bytes);
    if (config.logger.enabled) {
      await logOutbound(config, {
        plan,
        selection,
        key: input.key,
        transport: config.transport.kind,
        requestContext,
      });
    }
    if (options.abortSignal?.aborted) {
      run.close();
      throw new CursorError("canceled", "Request was canceled");
    }
    await run.start(encodeRunRequestMessage(request, plan.checkpoint));
    const turn = new ActiveTurn({
      run,
      conversationId: plan.conversationId,
      modelId: selection.modelId,
      priorUsed: plan.priorUsed,
      priorCategories: conversation?.checkpointCategories,
      newId: config.generateId,
      logger: config.logger,
      workspaceRoot: config.workspace.workspaceRoot,
    });
    turn.startFacts = {
      continuity: plan.continuity,
      coldReason: plan.coldReason,
      requestContext: requestContext.reused ? "reused" : "built",
      requestContextHash,
      systemPromptHash: await shortHash(plan.systemPrompt),
      systemPromptSent: plan.continuity === "cold",
    };
    const result = await openTurnStream({
      turn,
      config,
      conversation,
      holdKey: conversation?.key ?? `anonymous:${plan.conversationId}`,
      prompt: options.prompt,
      tools,
      warnings: input.warnings,
      abortSignal: options.abortSignal,
      diagnostics: { sessionKey: input.key ?? "none", ...turn.startFacts },
    });
    return {
      stream: result,
      request: {
        body: {
          model: selection.modelId,
          conversationId: plan.conversationId,
          continuity: plan.continuity,
        },
      },
    };
  }
}

/** The catalog advertised to Cursor: earlier names kept, new MCP-only host tools appended. */
function advertisedTools(previous: readonly AdvertisedTool[], tools: HostTools): AdvertisedTool[] {
  const out = [...previous];
  const known = new Set(out.map((t) => t.name));
  for (const [name, tool] of tools.mcp) {
    if (known.has(name)) continue;
    out.push({ name, description: tool.description ?? "", inputSchema: tool.inputSchema });
  }
  return out;
}

async function logOutbound(
  config: ProviderConfig,
  facts: {
    plan: TurnPlan;
    selection: ReturnType<typeof selectModel>;
    key: string | undefined;
    transport: string;
    requestContext: { bytes: Uint8Array; reused: boolean };
  },
): Promise<void> {
  const { plan } = facts;
  config.logger.line(outboundRunLine({
    sessionKey: facts.key ?? "none",
    conversationId: plan.conversationId,
    model: facts.selection.modelId,
    transport: facts.transport,
    checkpointLen: plan.checkpoint.length,
    requestContextReused: facts.requestContext.reused,
    requestContextBytes: facts.requestContext.bytes,
    systemPromptSent: plan.continuity === "cold",
    reset: plan.resetReason !== undefined,
  }));
  config.logger.line(
    `hash systemPrompt sha256=${await sha256Hex(plan.systemPrompt)} sent=${
      plan.continuity === "cold"
    }`,
  );
  config.logger.line(
    `hash requestContext sha256=${await sha256Hex(
      facts.requestContext.bytes,
    )} bytes=${facts.requestContext.bytes.length}`,
  );
  config.logger.line(
    `hash checkpoint sha256=${await sha256Hex(plan.checkpoint)} bytes=${plan.checkpoint.length}`,
  );
}
