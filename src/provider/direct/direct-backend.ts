/**
 * The direct backend: speaks Cursor's agent protocol (Connect-RPC over SSE or HTTP/2).
 * It plans the turn against the session's conversation (warm, cold, reseeded), resumes
 * a Run held for tool results, starts a new Run otherwise, and streams the Run's
 * events as parts through {@link openTurnStream}.
 *
 * @module
 */
import type { LanguageModelV3StreamPart, SharedV3Warning } from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import type { ApiCallContext } from "../api-call-error.ts";
import type { BackendCapabilities, CallArgs } from "../call-args.ts";
import type { ProviderConfig } from "./provider-config.ts";
import type { BackendTurn, TurnBackend } from "../turn-backend.ts";
import type { ConvertedPrompt } from "./call/convert-prompt.ts";
import { type CallRequest, readCallRequest } from "./call/call-request.ts";
import { keyCall, type KeyedCall } from "./conversation/call-key.ts";
import type { Conversation } from "../../session/conversation-store.ts";
import { shortHash } from "./diagnostics/debug-lines.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";
import { ImageGate } from "./call/image-gate.ts";
import { selectCallModel } from "./call/reasoning-selection.ts";
import { markCompaction } from "./conversation/compaction.ts";
import {
  persistConversation,
  persistWhenDone,
  restoreIfAbsent,
} from "./conversation/persistence.ts";
import { planTurn, type TurnPlan } from "./conversation/turn-plan.ts";
import { openTurnStream } from "./run/turn-stream.ts";
import { interruptRun } from "./billing/turn-billing.ts";
import { rebuildHook, replayFreshRun } from "./recovery/fresh-run.ts";
import { surfaceFailure, turnAllowance, turnBudget } from "./recovery/budget.ts";
import { firstRunWindow } from "./conversation/seed-window.ts";
import { heldRunFailure } from "./recovery/lines.ts";
import { adoptDrainedCheckpoint, drainSupersededTurn } from "./recovery/drain.ts";
import { prepareRun, type RunInputs } from "./run/run-opener.ts";
import type { ActiveTurn, StartFacts } from "./run/active-turn.ts";
import type { ModelSelection } from "./call/model-options.ts";
import { planHandoff } from "./interactions/plan-handoff.ts";
import { dueRuleReminder } from "./interactions/rule-reminder.ts";
import { startContinuation } from "./run/step-continuation.ts";

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
 * import { resolveProviderConfig } from "./provider-config.ts";
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

  /**
   * @param config The provider's shared configuration.
   */
  constructor(config: ProviderConfig) {
    this.#config = config;
    this.capabilities = { ...CAPABILITIES, optionsKey: config.providerName };
    this.#images = new ImageGate(config);
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
    const resumed = await this.#resumeHeld({ request, selection }, warnings);
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

  /**
   * Resumes a held Run when the prompt ends with results for its tool calls; releases a
   * held Run the call supersedes.
   */
  async #resumeHeld(
    inputs: Omit<CallInputs, "converted">,
    warnings: SharedV3Warning[],
  ): Promise<StartedTurn | { readonly reseed: string } | undefined> {
    const { request } = inputs;
    const { key, results } = request;
    const config = this.#config;
    const ownerKey = results.map((r) => config.toolCallOwners.get(r.toolCallId)).find((k) =>
      k !== undefined
    );
    const holdKey = key ?? ownerKey;
    const conversation = holdKey === undefined ? undefined : config.conversations.get(holdKey);
    if (conversation === undefined || holdKey === undefined) return undefined;
    if (results.length > 0 && conversation.held !== undefined) {
      const held = await this.#continueHeld({ ...inputs, conversation, holdKey }, warnings);
      if (held !== undefined) return held;
      // The held Run broke while the host ran the tools: its stored step may still continue.
      const continued = await this.#continueStep({ ...inputs, conversation, holdKey }, warnings);
      return continued === "mismatch" ? undefined : continued;
    }
    if (conversation.held !== undefined) {
      return await this.#releaseSuperseded(request, conversation);
    }
    if (results.length > 0) {
      const continued = await this.#continueStep({ ...inputs, conversation, holdKey }, warnings);
      if (continued === "mismatch") return undefined;
      if (continued !== undefined) return continued;
    } else {
      // A new message instead of the step's results: the step is not continued.
      conversation.awaitResults(undefined);
    }
    if (results.length > 0) {
      emitDiagnostic(config.logger, {
        kind: "continuation",
        toolNames: results.map((r) => r.toolName),
        heldRun: conversation.heldReleaseReason ?? "missing-process-local-state",
      });
    }
    return undefined;
  }

  /**
   * A new message while a Run is held (Stop, then a new message): the held Run is drained
   * so what ran stays in Cursor's context, and the conversation continues from its
   * checkpoint — or is reseeded when it left none.
   */
  async #releaseSuperseded(
    request: CallRequest,
    conversation: Conversation<ActiveTurn>,
  ): Promise<{ readonly reseed: string } | undefined> {
    const config = this.#config;
    const { options } = request;
    const stale = config.conversations.take(conversation);
    const pending = stale?.pendingIds.length ?? 0;
    if (stale !== undefined) stale.interactions.sessionRules = request.cursorOptions.sessionRules;
    await stale?.settleInteractions(options.prompt).catch(() => undefined);
    const mode = stale?.interactions.cursorMode;
    if (mode !== undefined) conversation.setCursorMode(mode);
    conversation.noteHeldRelease("superseded-by-new-run");
    emitDiagnostic(config.logger, {
      kind: "held-run-released",
      conversationId: conversation.conversationId,
      reason: "superseded-by-new-run",
      pending,
    });
    if (stale === undefined) return undefined;
    const drained = await drainSupersededTurn({
      turn: stale,
      prompt: options.prompt,
      tools: request.tools,
      logger: config.logger,
    });
    interruptRun(config.billing, stale);
    if (adoptDrainedCheckpoint(conversation, drained, options.prompt)) return undefined;
    return { reseed: "interrupted-run" };
  }

  /** Hands the host's tool results to the held Run and streams what follows. */
  async #continueHeld(
    inputs: Omit<CallInputs, "converted"> & {
      readonly conversation: Conversation<ActiveTurn>;
      readonly holdKey: string;
    },
    warnings: SharedV3Warning[],
  ): Promise<StartedTurn | undefined> {
    const { request, conversation, holdKey } = inputs;
    const { key, results, options } = request;
    const config = this.#config;
    const turn = config.conversations.take(conversation);
    if (turn === undefined) return undefined;
    for (const result of results) config.toolCallOwners.delete(result.toolCallId);
    const returned = new Set(results.map((result) => result.toolCallId));
    const resultsComplete = turn.pendingIds.every((id) => returned.has(id));
    turn.interactions.sessionRules = request.cursorOptions.sessionRules;
    const delivered = await this.#deliver(request, conversation, turn);
    if (delivered === undefined) return undefined;
    // The held Run took the results: the stored step is not continued elsewhere.
    conversation.awaitResults(undefined);
    for (const message of delivered) warnings.push({ type: "other", message });
    const run = runInputs({ ...inputs, converted: request.converted });
    const allowance = turnAllowance(config, key, options.prompt);
    const stream = await openTurnStream({
      ...this.#streamContext(run, turn, conversation, holdKey, allowance),
      recover: rebuildHook(config, { ...run, conversation, resultsComplete, allowance }),
      diagnostics: { sessionKey: key ?? "none", ...(turn.startFacts ?? WARM_UNKNOWN) },
    });
    return {
      stream: persistWhenDone(stream, config, conversation),
      requestBody: { model: turn.modelId, conversationId: turn.conversationId, resumed: true },
    };
  }

  /**
   * Continues the conversation's stored step (ADR 190) when the results are its calls':
   * a `resume_action` Run from the step's checkpoint, whose re-issued batch is answered
   * with the host's results.
   *
   * @returns The turn; `"mismatch"` when Cursor re-issued another batch (the caller
   *   rebuilds from host history, the reason logged); `undefined` when there is no step
   *   to continue.
   */
  async #continueStep(
    inputs: Omit<CallInputs, "converted"> & {
      readonly conversation: Conversation<ActiveTurn>;
      readonly holdKey: string;
    },
    warnings: SharedV3Warning[],
  ): Promise<StartedTurn | "mismatch" | undefined> {
    const { request, conversation, holdKey, selection } = inputs;
    const { key, results, options, cursorOptions } = request;
    const config = this.#config;
    const started = await startContinuation(config, {
      conversation,
      results,
      selection,
      key,
      cursorOptions,
      abortSignal: options.abortSignal,
      startFacts: WARM_UNKNOWN,
      media: (modelId) =>
        this.#images.resultMedia(options, results, {
          modelId,
          sent: conversation.sentToolImages,
        }),
      warn: (message) => warnings.push({ type: "other", message }),
    });
    if (started === undefined) return undefined;
    const { turn, matched, toolNames } = started;
    const run = runInputs({ ...inputs, converted: request.converted });
    const allowance = turnAllowance(config, key, options.prompt);
    const hook = rebuildHook(config, {
      ...run,
      conversation,
      resultsComplete: matched.complete,
      allowance,
    });
    const context = this.#streamContext(run, turn, conversation, holdKey, allowance);
    try {
      const stream = await openTurnStream({
        ...context,
        // A batch that is not the stored one is not retried: the step is rebuilt instead.
        recover: (failed) =>
          failed.turn.reissueMismatch === undefined ? hook(failed) : Promise.resolve(undefined),
        surfaced: (error) => {
          if (turn.reissueMismatch === undefined) context.surfaced(error);
        },
        diagnostics: { sessionKey: key ?? "none", ...WARM_UNKNOWN },
      });
      return {
        stream: persistWhenDone(stream, config, conversation),
        requestBody: { model: turn.modelId, conversationId: turn.conversationId, resumed: true },
      };
    } catch (error) {
      const reason = turn.reissueMismatch;
      if (reason === undefined) throw error;
      conversation.awaitResults(undefined);
      emitDiagnostic(config.logger, {
        kind: "continuation",
        toolNames,
        heldRun: "stored-batch-mismatch",
        reason,
      });
      return "mismatch";
    }
  }

  /**
   * Delivers the tool results to the held Run.
   *
   * @returns The warnings for the host, or `undefined` when the held Run broke while the
   *   host ran its tools, or lives in a request or isolate that has ended (the caller
   *   rebuilds from host history: the orphan-results plan).
   */
  async #deliver(
    request: CallRequest,
    conversation: Conversation<ActiveTurn>,
    turn: ActiveTurn,
  ): Promise<string[] | undefined> {
    const config = this.#config;
    const { results, options } = request;
    try {
      if (turn.heldFailure !== undefined) throw turn.heldFailure;
      const due = dueRuleReminder(conversation.ruleReminder, request.cursorOptions.sessionRules);
      return await turn.deliverResults(
        results,
        undefined,
        due && { text: due.text, sent: () => conversation.noteRuleReminder(due.kind) },
        await this.#images.resultMedia(options, results, {
          modelId: turn.modelId,
          sent: conversation.sentToolImages,
        }),
      );
    } catch (error) {
      turn.close();
      const reason = heldRunFailure(error);
      conversation.noteHeldRelease(reason);
      emitDiagnostic(config.logger, {
        kind: "continuation",
        toolNames: results.map((r) => r.toolName),
        heldRun: reason,
      });
      return undefined;
    }
  }

  /** What every pass's stream needs besides its recovery hook and diagnostics. */
  #streamContext(
    inputs: Omit<RunInputs, "plan" | "executePlan">,
    turn: ActiveTurn,
    conversation: Conversation<ActiveTurn> | undefined,
    holdKey: string,
    allowance: ReturnType<typeof turnAllowance>,
  ) {
    const config = this.#config;
    const { options, key, cursorOptions } = inputs;
    return {
      turn,
      config,
      conversation,
      holdKey,
      prompt: options.prompt,
      tools: inputs.tools,
      abortSignal: options.abortSignal,
      usageMode: cursorOptions.usage,
      handoff: planHandoff(config, inputs, () => conversation),
      progressed: () => allowance.progressed?.(),
      surfaced: (error: unknown) => surfaceFailure(config, key, options.prompt, error),
    };
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
      ...this.#streamContext(input, turn, conversation, holdKey, allowance),
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

/** What a held Run's diagnostics say when it never recorded how it started. */
const WARM_UNKNOWN: StartFacts = {
  continuity: "warm",
  coldReason: undefined,
  requestContext: "reused",
  requestContextHash: "unknown",
  systemPromptHash: "unknown",
  systemPromptSent: false,
};

/** A call read once, with its model and the prompt a new Run would send. */
interface CallInputs {
  readonly request: CallRequest;
  readonly selection: ModelSelection;
  readonly converted: ConvertedPrompt;
}

/** What a Run of this call is prepared from. */
function runInputs(inputs: CallInputs): Omit<RunInputs, "plan">;
function runInputs(inputs: CallInputs, plan: TurnPlan): RunInputs;
function runInputs(inputs: CallInputs, plan?: TurnPlan): Omit<RunInputs, "plan"> | RunInputs {
  const { request } = inputs;
  return {
    ...(plan === undefined ? {} : { plan }),
    selection: inputs.selection,
    tools: request.tools,
    options: request.options,
    cursorOptions: request.cursorOptions,
    key: request.key,
    converted: inputs.converted,
  };
}

/** A started turn: its stream and what was sent. */
interface StartedTurn {
  readonly stream: ReadableStream<LanguageModelV3StreamPart>;
  readonly requestBody: Record<string, unknown>;
}
