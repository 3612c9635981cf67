/**
 * The host's next call after a step that ended with `finish: tool-calls`: its results go
 * to the Run held for them, or — when that Run is gone (another instance, a restart, a
 * Run that broke) — continue the step stored with the snapshot (ADR 190); a new message
 * instead releases the held Run, draining what ran so it stays in Cursor's context.
 *
 * @module
 */
import type { SharedV3Warning } from "@ai-sdk/provider";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { CallRequest } from "../call/call-request.ts";
import type { ImageGate } from "../call/image-gate.ts";
import { persistWhenDone } from "../turn-plan/persistence.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { interruptRun } from "../billing/turn-billing.ts";
import { dueRuleReminder } from "../interactions/rule-reminder.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { turnAllowance } from "../recovery/budget.ts";
import { adoptDrainedCheckpoint, drainSupersededTurn } from "./drain.ts";
import { rebuildHook } from "./fresh-run.ts";
import { heldRunFailure } from "../recovery/lines.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { startContinuation } from "../run/step-continuation.ts";
import { openTurnStream } from "../run/turn-stream.ts";
import {
  type CallInputs,
  runInputs,
  type StartedTurn,
  streamContext,
  WARM_UNKNOWN,
} from "./turn-inputs.ts";

/**
 * The held Runs side of a provider's turns.
 *
 * @example
 * ```ts
 * import { resolveProviderConfig } from "../config/provider-config.ts";
 * import { ImageGate } from "../call/image-gate.ts";
 * import { HeldTurns } from "./held-turns.ts";
 *
 * const config = resolveProviderConfig({ accessToken: "token" });
 * const held = new HeldTurns(config, new ImageGate(config));
 * console.assert(typeof held.resume === "function");
 * ```
 */
export class HeldTurns {
  readonly #config: ProviderConfig;
  readonly #images: ImageGate;

  /**
   * @param config The provider configuration.
   * @param images The provider's image checks (tool-result images).
   */
  constructor(config: ProviderConfig, images: ImageGate) {
    this.#config = config;
    this.#images = images;
  }

  /**
   * Resumes a held Run when the prompt ends with results for its tool calls; releases a
   * held Run the call supersedes.
   *
   * @param inputs The call and its model.
   * @param warnings Where warnings for the host go.
   * @returns The continued turn; a reseed the caller plans instead; or `undefined` (a new
   *   Run is planned as usual).
   */
  async resume(
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
      ...streamContext(config, run, turn, conversation, holdKey, allowance),
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
    const context = streamContext(config, run, turn, conversation, holdKey, allowance);
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
}
