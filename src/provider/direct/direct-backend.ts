/**
 * The direct backend: speaks Cursor's agent protocol (Connect-RPC over SSE or HTTP/2).
 * It plans the turn against the session's conversation (warm, cold, reseeded), resumes
 * a Run held for tool results, starts a new Run otherwise, and streams the Run's
 * events as parts through {@link openTurnStream}.
 *
 * @module
 */
import type { SharedV3Warning } from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import type { ApiCallContext } from "../api-call-error.ts";
import type { BackendCapabilities, CallArgs } from "../model-call/call-args.ts";
import type { ProviderConfig } from "./config/provider-config.ts";
import type { BackendTurn, TurnBackend } from "../turn-backend.ts";
import type { ConvertedPrompt } from "./call/convert-prompt.ts";
import { type CallRequest, readCallRequest } from "./call/call-request.ts";
import { keyCall, type KeyedCall } from "./turn-plan/call-key.ts";
import { shortHash } from "./diagnostics/debug-lines.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";
import { ImageGate } from "./call/image-gate.ts";
import { selectCallModel } from "./call/reasoning-selection.ts";
import { markCompaction } from "./turn-plan/compaction.ts";
import { persistConversation, persistWhenDone, restoreIfAbsent } from "./turn-plan/persistence.ts";
import { planTurn, type TurnPlan } from "./turn-plan/turn-plan.ts";
import { openTurnStream } from "./run/turn-stream.ts";
import { replayFreshRun } from "./held/fresh-run.ts";
import { surfaceFailure, turnAllowance, turnBudget } from "./recovery/budget.ts";
import { firstRunWindow } from "./turn-plan/seed-window.ts";
import { prepareRun, type RunInputs } from "./run/run-opener.ts";
import type { StartFacts } from "./turn-types.ts";
import { HeldTurns } from "./held/held-turns.ts";
import { type CallInputs, runInputs, type StartedTurn, streamContext } from "./held/turn-inputs.ts";

/** What the direct backend takes from a call (images reach the model). */
const CAPABILITIES: BackendCapabilities = {
  label: "Cursor's agent",
  files: "images",
  reasoningVariants: true,
};

/**
 * The direct backend of one provider; every model of the provider shares it.
 *
 * @example
 * ```ts
 * import { resolveProviderConfig } from "./config/provider-config.ts";
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
  readonly capabilities: BackendCapabilities;
  readonly #config: ProviderConfig;
  readonly #images: ImageGate;
  readonly #held: HeldTurns;

  /**
   * @param config The provider's shared configuration.
   */
  constructor(config: ProviderConfig) {
    this.#config = config;
    this.capabilities = { ...CAPABILITIES, optionsKey: config.providerName };
    this.#images = new ImageGate(config);
    this.#held = new HeldTurns(config, this.#images);
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
      signInAdvice: this.#config.signInAdvice,
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
    emitDiagnostic(this.#config.logger, { kind: "call-failed", message: failure.message });
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
    let request: CallRequest | undefined;
    try {
      const keyed = await keyCall(this.#config, readCallRequest(call));
      request = keyed.request;
      const started = await this.#stream(keyed, warnings);
      return { ...started, warnings };
    } catch (error) {
      // The host's retry of this turn is counted in its session (none for metadata calls).
      surfaceFailure(this.#config, request?.key, call.options.prompt, error);
      throw error;
    }
  }

  async #stream(keyed: KeyedCall, warnings: SharedV3Warning[]): Promise<StartedTurn> {
    const { request } = keyed;
    const { options, key } = request;
    const config = this.#config;
    config.conversations.sweep();
    const selection = await selectCallModel(
      {
        call: request.call,
        cursorOptions: request.cursorOptions,
        catalogue: (signal) => this.#images.catalogue(signal),
      },
      warnings,
    );
    await this.#settleSession(request, keyed.restored);
    const resumed = await this.#held.resume({ request, selection }, warnings);
    if (resumed !== undefined && "stream" in resumed) return resumed;
    const converted = await this.#checkedPrompt(request, selection.modelId);
    warnings.push(...converted.warnings);
    const inputs = { request, selection, converted };
    const catalogueWindow = request.metadataCall ? undefined : await firstRunWindow({
      store: config.conversations,
      key,
      selection,
      converted,
      models: () => this.#images.catalogue(options.abortSignal),
    });
    // A call that left a stored conversation for a fork key of its own starts it from host
    // history, with the reason logged as a conversation reset.
    const forceReseed = resumed?.reseed ?? keyed.forkReason;
    const plan = this.#plan(inputs, {
      catalogueWindow,
      ...(forceReseed === undefined ? {} : { forceReseed }),
    });
    try {
      return await this.#startTurn(runInputs(inputs, plan));
    } catch (error) {
      // Cursor asked for a blob this client no longer holds before anything was streamed: the
      // checkpoint is unusable, so the conversation is reseeded from host history instead of
      // failing the turn ("Blob not found").
      if (
        plan.continuity !== "warm" || CursorError.from(error).code !== "blob_not_found" ||
        key === undefined
      ) throw error;
      emitDiagnostic(config.logger, {
        kind: "checkpoint-unusable",
        conversationId: plan.conversationId,
        code: CursorError.from(error).code,
        checkpointLen: plan.checkpoint?.length ?? 0,
      });
      const reseeded = this.#plan(inputs, { forceReseed: "checkpoint-unusable" });
      return await this.#startTurn(runInputs(inputs, reseeded));
    }
  }

  /**
   * Before a turn: restores the session from its snapshot, writes a compaction mark, and
   * counts the host's retry of a turn whose failure it just saw against the same budget.
   */
  async #settleSession(request: CallRequest, restored: boolean): Promise<void> {
    const config = this.#config;
    const { key, session } = request;
    if (!restored) await restoreIfAbsent(config, request.compaction ? session : key);
    // The mark is written at once: a restart before the next turn still rebases.
    const compacted = request.compaction ? markCompaction(config, session) : undefined;
    if (compacted) await persistConversation(config, compacted);
    if (key === undefined) return;
    const verdict = turnBudget(config, key, request.options.prompt).hostRetry();
    if (verdict?.allowed === false) {
      throw new CursorError("interrupted", verdict.message, { retryable: false });
    }
  }

  /** The prompt a new Run sends, with its images checked against the model. */
  async #checkedPrompt(request: CallRequest, modelId: string): Promise<ConvertedPrompt> {
    const { options } = request;
    // Images of tool results rebuilt into a new Run: a text-only model gets a note, no failure.
    const converted = request.results.length > 0
      ? await this.#images.toolImagesInPrompt(request.converted, options, modelId)
      : request.converted;
    await this.#images.check(modelId, converted.images.length, options.abortSignal);
    return converted;
  }

  /** Plans a new Run for the call and logs a conversation reset when the plan is one. */
  #plan(
    inputs: CallInputs,
    extra: { readonly catalogueWindow?: number | undefined; readonly forceReseed?: string },
  ): TurnPlan {
    const config = this.#config;
    const { request, converted } = inputs;
    const key = request.key;
    const plan = planTurn({
      ...extra,
      key: key ?? (request.metadataCall ? undefined : `anonymous:${config.generateId()}`),
      metadataCall: request.metadataCall,
      prompt: request.options.prompt,
      converted,
      store: config.conversations,
      newId: config.generateId,
      orphanResults: extra.forceReseed === "checkpoint-unusable"
        ? false
        : request.results.length > 0,
    });
    if (plan.resetReason) {
      emitDiagnostic(config.logger, {
        kind: "conversation-reset",
        reason: plan.resetReason,
        sessionKey: key ?? "none",
        conversationId: plan.conversationId,
        conversationGroupId: plan.groupId,
      });
    }
    return plan;
  }

  async #startTurn(input: RunInputs): Promise<StartedTurn> {
    const config = this.#config;
    const { plan, selection, options } = input;
    const conversation = plan.conversation;
    const { openTurn, requestContext, skillsAppended } = await prepareRun(config, input);
    const startFacts: StartFacts = {
      continuity: plan.continuity,
      coldReason: plan.coldReason,
      requestContext: requestContext.reused ? "reused" : "built",
      requestContextHash: await shortHash(requestContext.bytes),
      systemPromptHash: await shortHash(plan.systemPrompt),
      systemPromptSent: plan.continuity === "cold",
      ...(skillsAppended > 0 ? { skillsAppended } : {}),
    };
    const turn = await openTurn({ startFacts });
    const allowance = turnAllowance(config, input.key, options.prompt);
    const holdKey = conversation?.key ?? `anonymous:${plan.conversationId}`;
    const result = await openTurnStream({
      ...streamContext(config, input, turn, conversation, holdKey, allowance),
      recover: replayFreshRun({
        config,
        conversationId: plan.conversationId,
        open: openTurn,
        abortSignal: options.abortSignal,
        allowance,
        resume: {
          groupId: plan.groupId,
          selection,
          requestContext: conversation?.requestContext ?? requestContext,
          key: input.key,
          abortSignal: options.abortSignal,
        },
      }),
      diagnostics: { sessionKey: input.key ?? "none", ...startFacts },
    });
    return {
      stream: persistWhenDone(result, config, conversation),
      requestBody: {
        model: selection.modelId,
        conversationId: plan.conversationId,
        continuity: plan.continuity,
      },
    };
  }
}
