/**
 * The direct backend: speaks Cursor's agent protocol (Connect-RPC over SSE or HTTP/2).
 * It plans the turn against the session's conversation (warm, cold, reseeded), resumes
 * a Run held for tool results, starts a new Run otherwise, and streams the Run's
 * events as parts through {@link openTurnStream}.
 *
 * @module
 */
import type {
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultPart,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import type { ApiCallContext } from "../api-call-error.ts";
import type { BackendCapabilities, CallArgs } from "../call-args.ts";
import type { ProviderConfig } from "../provider-config.ts";
import type { BackendTurn, TurnBackend } from "../turn-backend.ts";
import { convertPrompt } from "./convert-prompt.ts";
import { shortHash } from "./debug-lines.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";
import { ImageGate } from "./image-gate.ts";
import { trailingToolResults } from "./history.ts";
import { readCursorOptions } from "./model-options.ts";
import { selectCallModel } from "./reasoning-selection.ts";
import { isMetadataCall, sessionKey } from "./session-key.ts";
import { isCompactionCall, markCompaction } from "./compaction.ts";
import { persistConversation, persistWhenDone, restoreIfAbsent } from "./persistence.ts";
import { classifyHostTools } from "./tools/host-tools.ts";
import { planTurn } from "./turn-plan.ts";
import { openTurnStream } from "./turn-stream.ts";
import { interruptRun } from "./diagnostics/turn-billing.ts";
import { rebuildHook, replayFreshRun } from "./recovery-run.ts";
import { surfaceFailure, turnAllowance, turnBudget } from "./recovery-budget.ts";
import { firstRunWindow } from "./seed-window.ts";
import { heldRunFailure } from "./recovery-lines.ts";
import { adoptDrainedCheckpoint, drainSupersededTurn } from "./recovery-drain.ts";
import { prepareRun, type RunInputs } from "./run-opener.ts";
import { planHandoff } from "./interactions/plan-handoff.ts";
import type { SessionRules } from "./interactions/session-rules.ts";
import { dueRuleReminder } from "./interactions/rule-reminder.ts";

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
    try {
      const started = await this.#stream(call, warnings);
      return { ...started, warnings };
    } catch (error) {
      surfaceFailure(this.#config, this.#hostRetryKey(call), call.options.prompt, error);
      throw error;
    }
  }

  /** The session a host retry of this call is counted in (none for metadata calls). */
  #hostRetryKey(call: CallArgs): string | undefined {
    try {
      const options = call.options;
      const cursorOptions = readCursorOptions(options.providerOptions, this.#config.providerName);
      const converted = convertPrompt(options.prompt, { supportsImages: true });
      const tools = classifyHostTools(call.tools);
      if (isCompactionCall(converted.systemPrompt, tools)) return undefined;
      if (isMetadataCall(converted.systemPrompt, tools)) return undefined;
      return sessionKey(options.headers, cursorOptions);
    } catch {
      return undefined; // the call's own failure says what was wrong with it
    }
  }

  async #stream(call: CallArgs, warnings: SharedV3Warning[]): Promise<StartedTurn> {
    const options = call.options;
    const config = this.#config;
    config.conversations.sweep();
    const cursorOptions = readCursorOptions(options.providerOptions, config.providerName);
    const selection = await selectCallModel(
      { call, cursorOptions, catalogue: (signal) => this.#images.catalogue(signal) },
      warnings,
    );
    const tools = classifyHostTools(call.tools);
    let converted = convertPrompt(options.prompt, { supportsImages: true });
    // Title generation and other metadata calls never touch the session's conversation.
    const compaction = isCompactionCall(converted.systemPrompt, tools);
    const metadataCall = compaction || isMetadataCall(converted.systemPrompt, tools);
    const session = sessionKey(options.headers, cursorOptions);
    const key = metadataCall ? undefined : session;
    await restoreIfAbsent(config, compaction ? session : key);
    // The mark is written at once: a restart before the next turn still rebases.
    const compacted = compaction ? markCompaction(config, session) : undefined;
    if (compacted) await persistConversation(config, compacted);
    if (key !== undefined) {
      // The host's retry of a turn whose failure it just saw counts against the same budget.
      const verdict = turnBudget(config, key, options.prompt).hostRetry();
      if (verdict?.allowed === false) {
        throw new CursorError("interrupted", verdict.message, { retryable: false });
      }
    }
    const results = metadataCall ? [] : trailingToolResults(options.prompt);
    const resumed = await this.#resumeHeld(
      {
        key,
        results,
        tools,
        options,
        selection,
        converted,
        sessionRules: cursorOptions.sessionRules,
      },
      warnings,
    );
    if (resumed !== undefined && "stream" in resumed) return resumed;
    // Images of tool results rebuilt into a new Run: a text-only model gets a note, no failure.
    if (results.length > 0) {
      converted = await this.#images.toolImagesInPrompt(converted, options, selection.modelId);
    }
    await this.#images.check(selection.modelId, converted.images.length, options.abortSignal);
    warnings.push(...converted.warnings);
    const catalogueWindow = metadataCall ? undefined : await firstRunWindow({
      store: config.conversations,
      key,
      selection,
      converted,
      models: () => this.#images.catalogue(options.abortSignal),
    });
    const plan = planTurn({
      catalogueWindow,
      key: key ?? (metadataCall ? undefined : `anonymous:${config.generateId()}`),
      metadataCall,
      prompt: options.prompt,
      converted,
      store: config.conversations,
      newId: config.generateId,
      orphanResults: results.length > 0,
      ...(resumed?.reseed === undefined ? {} : { forceReseed: resumed.reseed }),
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
      emitDiagnostic(config.logger, {
        kind: "checkpoint-unusable",
        conversationId: plan.conversationId,
        code: CursorError.from(error).code,
        checkpointLen: plan.checkpoint?.length ?? 0,
      });
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
      emitDiagnostic(config.logger, {
        kind: "conversation-reset",
        reason: "checkpoint-unusable",
        sessionKey: key,
        conversationId: reseeded.conversationId,
        conversationGroupId: reseeded.groupId,
      });
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
    input: Omit<RunInputs, "plan"> & {
      readonly results: LanguageModelV3ToolResultPart[];
      readonly sessionRules: SessionRules | undefined;
    },
    warnings: SharedV3Warning[],
  ): Promise<StartedTurn | { readonly reseed: string } | undefined> {
    const { key, results, tools, options } = input;
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
        const pending = stale?.pendingIds.length ?? 0;
        if (stale !== undefined) stale.interactions.sessionRules = input.sessionRules;
        await stale?.settleInteractions(options.prompt).catch(() => undefined);
        const mode = stale?.interactions.cursorMode;
        if (mode !== undefined) conversation.cursorMode = mode;
        conversation.heldReleaseReason = "superseded-by-new-run";
        emitDiagnostic(config.logger, {
          kind: "held-run-released",
          conversationId: conversation.conversationId,
          reason: "superseded-by-new-run",
          pending,
        });
        if (stale === undefined) return undefined;
        // Stop, then a new message: what ran must stay in Cursor's context.
        const drained = await drainSupersededTurn({
          turn: stale,
          prompt: options.prompt,
          tools,
          logger: config.logger,
        });
        interruptRun(config.billing, stale);
        if (adoptDrainedCheckpoint(conversation, drained, options.prompt)) return undefined;
        return { reseed: "interrupted-run" };
      } else if (results.length > 0) {
        emitDiagnostic(config.logger, {
          kind: "continuation",
          toolNames: results.map((r) => r.toolName),
          heldRun: conversation.heldReleaseReason ?? "missing-process-local-state",
        });
      }
      return undefined;
    }
    const turn = config.conversations.take(conversation);
    if (turn === undefined) return undefined;
    for (const result of results) config.toolCallOwners.delete(result.toolCallId);
    const returned = new Set(results.map((result) => result.toolCallId));
    const resultsComplete = turn.pendingIds.every((id) => returned.has(id));
    let delivered: string[];
    turn.interactions.sessionRules = input.sessionRules;
    try {
      if (turn.heldFailure !== undefined) throw turn.heldFailure;
      const due = dueRuleReminder(conversation.ruleReminder, input.sessionRules);
      delivered = await turn.deliverResults(
        results,
        undefined,
        due && {
          text: due.text,
          sent: () => {
            conversation.ruleReminder = due.kind;
          },
        },
        await this.#images.resultMedia(options, results, {
          modelId: turn.modelId,
          sent: conversation.sentToolImages,
        }),
      );
    } catch (error) {
      // The held Run broke while the host ran its tools, or lives in a request or isolate
      // that has ended: rebuild from host history (the caller's orphan-results plan).
      turn.close();
      conversation.heldReleaseReason = heldRunFailure(error);
      emitDiagnostic(config.logger, {
        kind: "continuation",
        toolNames: results.map((r) => r.toolName),
        heldRun: conversation.heldReleaseReason,
      });
      return undefined;
    }
    for (const message of delivered) warnings.push({ type: "other", message });
    const allowance = turnAllowance(config, key, options.prompt);
    const stream = await openTurnStream({
      turn,
      config,
      conversation,
      holdKey,
      prompt: options.prompt,
      tools,
      abortSignal: options.abortSignal,
      usageMode: readCursorOptions(options.providerOptions, config.providerName).usage,
      recover: rebuildHook(config, { ...input, conversation, resultsComplete, allowance }),
      handoff: planHandoff(config, input, () => conversation),
      progressed: () => allowance.progressed?.(),
      surfaced: (error) => surfaceFailure(config, key, options.prompt, error),
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
      stream: persistWhenDone(stream, config, conversation),
      requestBody: { model: turn.modelId, conversationId: turn.conversationId, resumed: true },
    };
  }

  async #startTurn(input: RunInputs): Promise<StartedTurn> {
    const config = this.#config;
    const { plan, selection, tools, options } = input;
    const conversation = plan.conversation;
    const { openTurn, requestContext, skillsAppended } = await prepareRun(config, input);
    const turn = await openTurn();
    const allowance = turnAllowance(config, input.key, options.prompt);
    const requestContextHash = await shortHash(requestContext.bytes);
    turn.startFacts = {
      continuity: plan.continuity,
      coldReason: plan.coldReason,
      requestContext: requestContext.reused ? "reused" : "built",
      requestContextHash,
      systemPromptHash: await shortHash(plan.systemPrompt),
      systemPromptSent: plan.continuity === "cold",
      ...(skillsAppended > 0 ? { skillsAppended } : {}),
    };
    const result = await openTurnStream({
      turn,
      config,
      conversation,
      holdKey: conversation?.key ?? `anonymous:${plan.conversationId}`,
      prompt: options.prompt,
      tools,
      abortSignal: options.abortSignal,
      usageMode: readCursorOptions(options.providerOptions, config.providerName).usage,
      handoff: planHandoff(config, input, () => conversation),
      progressed: () => allowance.progressed?.(),
      surfaced: (error) => surfaceFailure(config, input.key, options.prompt, error),
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
      diagnostics: { sessionKey: input.key ?? "none", ...turn.startFacts },
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

/** A started turn: its stream and what was sent. */
interface StartedTurn {
  readonly stream: ReadableStream<LanguageModelV3StreamPart>;
  readonly requestBody: Record<string, unknown>;
}
