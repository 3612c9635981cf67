/**
 * The direct backend: speaks Cursor's agent protocol (Connect-RPC over SSE or HTTP/2).
 * It plans the turn against the session's conversation (warm, cold, reseeded), resumes
 * a Run held for tool results, starts a new Run otherwise, and streams the Run's
 * events as parts through {@link openTurnStream}.
 *
 * @module
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import { encodeRunRequestMessage } from "../../protocol/run-request-bytes.ts";
import { sha256Hex } from "../../core/bytes.ts";
import { AgentRun } from "../../session/agent-run.ts";
import { type AdvertisedTool, materializeRequestContext } from "../../session/request-context.ts";
import { buildUserTurnRequest } from "../../session/run-request.ts";
import type { ApiCallContext } from "../api-call-error.ts";
import type { BackendCapabilities, CallArgs } from "../call-args.ts";
import type { ProviderConfig } from "../provider-config.ts";
import type { BackendTurn, TurnBackend } from "../turn-backend.ts";
import { ActiveTurn } from "./active-turn.ts";
import { convertPrompt } from "./convert-prompt.ts";
import { outboundRunLine, shortHash } from "./debug-lines.ts";
import { trailingToolResults } from "./history.ts";
import { readCursorOptions, selectModel } from "./model-options.ts";
import { isMetadataCall, sessionKey } from "./session-key.ts";
import { classifyHostTools, type HostTools } from "./tools/host-tools.ts";
import { replayFreshRun } from "./recovery-run.ts";
import { adoptDrainedCheckpoint, drainSupersededTurn } from "./recovery-drain.ts";
import { planTurn, type TurnPlan } from "./turn-plan.ts";
import { openTurnStream } from "./turn-stream.ts";

/** What the direct backend takes from a call (images reach the model). */
const CAPABILITIES: BackendCapabilities = { label: "Cursor's agent", files: "images" };

/**
 * The direct backend of one provider; every model of the provider shares it.
 *
 * @example
 * ```ts
 * import { resolveProviderConfig } from "../provider-config.ts";
 * import { CursorLanguageModel } from "../language-model.ts";
 * import { DirectBackend } from "./direct-backend.ts";
 *
 * const backend = new DirectBackend(resolveProviderConfig({ accessToken: "token" }));
 * const model = new CursorLanguageModel("composer-2", backend);
 * console.assert(model.provider === "cursor.direct");
 * ```
 */
export class DirectBackend implements TurnBackend {
  /** This is the direct backend. */
  readonly name = "direct";
  /** What it can take from a call. */
  readonly capabilities: BackendCapabilities = CAPABILITIES;
  readonly #config: ProviderConfig;

  /**
   * @param config The provider's shared configuration.
   */
  constructor(config: ProviderConfig) {
    this.#config = config;
  }

  /** `<provider name>.direct`. */
  get providerId(): string {
    return `${this.#config.providerName}.direct`;
  }

  /**
   * The agent service's URL.
   *
   * @param modelId The host-facing model id.
   * @returns The URL and the model.
   */
  errorContext(modelId: string): ApiCallContext {
    return {
      url: `${this.#config.apiBaseURL}/agent.v1.AgentService/RunSSE`,
      requestBodyValues: { model: modelId },
    };
  }

  /**
   * Removes every credential value this provider has sent from the error (message,
   * stack, causes) and writes a `call failed:` debug line.
   *
   * @param error The converted error.
   * @returns The same error, redacted.
   */
  reportFailure(error: Error): Error {
    const failure = this.#config.redactor.redactError(error);
    if (this.#config.logger.enabled) this.#config.logger.line(`call failed: ${failure.message}`);
    return failure;
  }

  /**
   * Streams one turn: resumes the held Run when the prompt ends with its tool results,
   * else starts a new Run.
   *
   * @param call The call's arguments.
   * @returns The turn's parts, warnings and request summary.
   * @throws {CursorError} when the turn fails before anything was streamed.
   */
  async stream(call: CallArgs): Promise<BackendTurn> {
    const warnings: SharedV3Warning[] = [];
    const started = await this.#stream(call, warnings);
    return { ...started, warnings };
  }

  async #stream(call: CallArgs, warnings: SharedV3Warning[]): Promise<StartedTurn> {
    const options = call.options;
    const config = this.#config;
    config.conversations.sweep();
    const cursorOptions = readCursorOptions(options.providerOptions, config.providerName);
    const selection = selectModel(call.modelId, cursorOptions);
    const tools = classifyHostTools(call.tools);
    const converted = convertPrompt(options.prompt, { supportsImages: true });
    // Title generation and other metadata calls never touch the session's conversation.
    const metadataCall = isMetadataCall(converted.systemPrompt, tools);
    const key = metadataCall ? undefined : sessionKey(options.headers, cursorOptions);
    const results = metadataCall ? [] : trailingToolResults(options.prompt);
    const resumed = await this.#resumeHeld(key, results, tools, options, warnings);
    if (resumed !== undefined && "stream" in resumed) return resumed;
    warnings.push(...converted.warnings);
    const plan = planTurn({
      key: key ?? (metadataCall ? undefined : `anonymous:${config.generateId()}`),
      metadataCall,
      prompt: options.prompt,
      converted,
      store: config.conversations,
      newId: config.generateId,
      orphanResults: results.length > 0,
      ...(resumed?.reseed === undefined ? {} : { forceReseed: resumed.reseed }),
    });
    if (plan.resetReason && config.logger.enabled) {
      config.logger.line(
        `conversation reset: reason=${plan.resetReason} sessionKey=${
          key ?? "none"
        } conversationId=${plan.conversationId} conversationGroupId=${plan.groupId}`,
      );
    }
    try {
      return await this.#startTurn({ plan, selection, tools, options, key, converted });
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
  ): Promise<StartedTurn | { readonly reseed: string } | undefined> {
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
        conversation.heldReleaseReason = "superseded-by-new-user-turn";
        if (stale === undefined) return undefined;
        // Stop, then a new message: what ran must stay in Cursor's context.
        const drained = await drainSupersededTurn({
          turn: stale,
          prompt: options.prompt,
          tools,
          logger: config.logger,
        });
        if (adoptDrainedCheckpoint(conversation, drained, options.prompt)) return undefined;
        return { reseed: "interrupted-run" };
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
      requestBody: { model: turn.modelId, conversationId: turn.conversationId, resumed: true },
    };
  }

  async #startTurn(input: {
    plan: TurnPlan;
    selection: ReturnType<typeof selectModel>;
    tools: HostTools;
    options: LanguageModelV3CallOptions;
    key: string | undefined;
    converted: ReturnType<typeof convertPrompt>;
  }): Promise<StartedTurn> {
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
    const request = buildUserTurnRequest({
      conversationId: plan.conversationId,
      conversationGroupId: plan.groupId,
      messageId: config.generateId(),
      userText: plan.userText,
      images: input.converted.images.map((image) => ({ ...image, uuid: config.generateId() })),
      requestContext: requestContext.message,
      model: selection,
    });
    const requestBytes = encodeRunRequestMessage(request, plan.checkpoint);
    const openTurn = async (): Promise<ActiveTurn> => {
      const requestId = config.generateId();
      const headers = await config.headers(requestId, options.abortSignal);
      const agentBaseURL = await config.agentOrigin(headers, options.abortSignal);
      const stream = await config.transport.openRun({ agentBaseURL, headers, requestId });
      const run = new AgentRun(stream, {
        blobs: config.blobs,
        requestContext: requestContext.message,
        logger: config.logger,
      });
      if (options.abortSignal?.aborted) {
        run.close();
        throw new CursorError("canceled", "Request was canceled");
      }
      await run.start(requestBytes);
      return new ActiveTurn({
        run,
        conversationId: plan.conversationId,
        modelId: selection.modelId,
        priorUsed: plan.priorUsed,
        priorCategories: conversation?.checkpointCategories,
        newId: config.generateId,
        logger: config.logger,
        workspaceRoot: config.workspace.workspaceRoot,
      });
    };
    if (config.logger.enabled) {
      await logOutbound(config, {
        plan,
        selection,
        key: input.key,
        transport: config.transport.kind,
        requestContext,
      });
    }
    const turn = await openTurn();
    const requestContextHash = await shortHash(requestContext.bytes);
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
      abortSignal: options.abortSignal,
      recover: replayFreshRun({
        config,
        conversationId: plan.conversationId,
        open: openTurn,
        abortSignal: options.abortSignal,
      }),
      diagnostics: { sessionKey: input.key ?? "none", ...turn.startFacts },
    });
    return {
      stream: result,
      requestBody: {
        model: selection.modelId,
        conversationId: plan.conversationId,
        continuity: plan.continuity,
      },
    };
  }
}

/** A started turn: its stream and what was sent. */
interface StartedTurn {
  readonly stream: ReadableStream<LanguageModelV3StreamPart>;
  readonly requestBody: Record<string, unknown>;
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
