/**
 * A turn's side of its interactions: the relay that asks the person, the session rules of
 * the current call, and what the answers changed beyond the Run — Cursor's mode, a plan
 * approved for building, text for the person, and whether the Run's further work is
 * refused (a declined, held or approved plan ends the plan Run's work).
 *
 * @module
 */
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type {
  InteractionQuery,
  InteractionResponse,
} from "../../../gen/agent/v1/interaction_query_pb.ts";
import { classifyHostTools, type HostTools } from "../tools/host-tools.ts";
import { type ToolResultText, toolResultText } from "../tools/tool-result-text.ts";
import type { ImageStaging } from "../tools/media/image-save.ts";
import { InteractionRelay, type PendingInteraction } from "./interaction-relay.ts";
import type { ApprovedPlan, InteractionContext, InteractionEffects } from "./interaction-step.ts";
import type { SessionRules } from "./session-rules.ts";
import type { TurnCounters } from "../../../agent-run/run-events.ts";

/** What the interactions need from their turn. */
export interface TurnInteractionsOptions {
  /** Sends an interaction response on the Run. */
  readonly send: (response: InteractionResponse) => Promise<void>;
  /** Files a pending host call under its tool call id. */
  readonly hold: (toolCallId: string, pending: PendingInteraction) => void;
  readonly newId: () => string;
  /** The workspace root (plans are saved below it). */
  readonly workspaceRoot: string;
  /** Where generated images wait for the host's save tool (see `../tools/image-save.ts`). */
  readonly images?: ImageStaging | undefined;
}

/** One turn's interactions. */
export class TurnInteractions {
  /** The host session's permission rules in the current call. */
  sessionRules: SessionRules | undefined;
  /** Cursor's mode after this turn's answers (`undefined`: unchanged). */
  cursorMode: string | undefined;
  /** A plan the person approved: built by a new Run once this one has ended. */
  approvedPlan: ApprovedPlan | undefined;
  /** The counters of the plan Run this build Run continues (added to its own at its end). */
  planCounters: TurnCounters | undefined;
  #stopReason: string | undefined;
  readonly #notices: string[] = [];
  #tools: HostTools | undefined;
  readonly #relay: InteractionRelay;
  readonly #options: TurnInteractionsOptions;

  constructor(options: TurnInteractionsOptions) {
    this.#options = options;
    this.#relay = new InteractionRelay({
      send: options.send,
      hold: options.hold,
      apply: (effects) => this.#apply(effects),
      newId: options.newId,
    });
  }

  /** Why the Run's further work is refused, once a plan answer stopped it. */
  get stopReason(): string | undefined {
    return this.#stopReason;
  }

  /**
   * Starts a pass: shows pending notices, declines follow-ups of stopped work, and emits
   * queued follow-up calls.
   *
   * @returns Whether follow-up calls were emitted (the pass then ends with them).
   */
  async beginPass(
    tools: HostTools,
    emit: (part: LanguageModelV3StreamPart) => void,
    closeOpen: () => LanguageModelV3StreamPart[],
  ): Promise<boolean> {
    this.#tools = tools;
    this.#showNotices(emit, closeOpen);
    if (this.#stopReason !== undefined) await this.#relay.dropQueued(this.#stopReason);
    if (!this.#relay.hasQueued) return false;
    for (const part of closeOpen()) emit(part);
    return this.#relay.flush(emit);
  }

  /**
   * Takes a query from the Run: declined when the Run's work stopped, else bridged.
   *
   * @returns Whether a host call was emitted.
   */
  async start(
    query: InteractionQuery,
    emit: (part: LanguageModelV3StreamPart) => void,
    closeOpen: () => LanguageModelV3StreamPart[],
  ): Promise<boolean> {
    if (this.#stopReason !== undefined) {
      await this.#relay.decline(query, this.#stopReason);
      return false;
    }
    for (const part of closeOpen()) emit(part);
    const emitted = await this.#relay.start(query, this.#context(), emit);
    this.#showNotices(emit, closeOpen);
    return emitted;
  }

  /** Takes the host's result for a pending step, under the current call's rules. */
  async deliver(pending: PendingInteraction, result: ToolResultText): Promise<void> {
    await this.#relay.deliver(pending, result, this.#context());
  }

  /** Answers an interaction whose host turn ended (recorded result, else a decline). */
  async settle(pending: PendingInteraction, result: ToolResultText | undefined): Promise<void> {
    await this.#relay.settle(pending, result, this.#context());
  }

  /**
   * Answers interactions taken off a Run that is released for a new user turn: with the
   * host's recorded result when the prompt's history has one (a dismissed question ends
   * the host's turn before any result is sent back), else with an explicit decline.
   *
   * @param taken The interactions, with their host call ids.
   * @param prompt The new call's prompt.
   */
  async settleAll(
    taken: readonly PendingInteraction[],
    prompt: LanguageModelV3Prompt,
  ): Promise<void> {
    const recorded = new Map<string, ToolResultText>();
    for (const message of prompt) {
      if (message.role !== "tool") continue;
      for (const part of message.content) {
        if (part.type === "tool-result") recorded.set(part.toolCallId, toolResultText(part.output));
      }
    }
    for (const pending of taken) {
      await this.settle(pending, recorded.get(pending.toolCallId ?? ""));
    }
  }

  /** Declines an interaction whose host call got no result. */
  async abandon(pending: PendingInteraction, reason: string): Promise<void> {
    await this.#relay.abandon(pending, reason);
  }

  #apply(effects: InteractionEffects): void {
    if (effects.stopWork !== undefined) this.#stopReason ??= effects.stopWork;
    if (effects.mode !== undefined) this.cursorMode = effects.mode;
    if (effects.approvedPlan !== undefined) this.approvedPlan = effects.approvedPlan;
    if (effects.notice !== undefined) this.#notices.push(effects.notice);
  }

  #context(): InteractionContext {
    return {
      tools: this.#tools ?? classifyHostTools([]),
      workspaceRoot: this.#options.workspaceRoot,
      images: this.#options.images,
      rules: this.sessionRules,
    };
  }

  /** Shows the person what interaction answers had to tell them (as text of this pass). */
  #showNotices(
    emit: (part: LanguageModelV3StreamPart) => void,
    closeOpen: () => LanguageModelV3StreamPart[],
  ): void {
    for (const notice of this.#notices.splice(0)) {
      for (const part of closeOpen()) emit(part);
      const id = `cursor_notice_${this.#options.newId()}`;
      emit({ type: "text-start", id });
      emit({ type: "text-delta", id, delta: notice });
      emit({ type: "text-end", id });
    }
  }
}
