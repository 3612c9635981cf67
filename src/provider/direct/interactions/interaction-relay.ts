/**
 * Drives interaction steps on a held Run: emits the host tool call a step asks for, and
 * when its result comes back either answers Cursor or queues the next call (a plan is
 * saved first, then reviewed). A call the host never answered is declined explicitly so
 * the Run never waits for it. What an answer changes beyond the Run (stop the Run's work,
 * Cursor's mode, a plan to build, a notice) goes to the turn.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type {
  InteractionQuery,
  InteractionResponse,
} from "../../../gen/agent/v1/interaction_query_pb.ts";
import { declineInteraction } from "../../../agent-run/query-routing.ts";
import type { ToolResultText } from "../tools/tool-result-text.ts";
import { bridgeInteraction } from "./interaction-bridge.ts";
import { bridgeSurfaceQuery } from "./surface-queries.ts";
import type {
  InteractionContext,
  InteractionEffects,
  InteractionStep,
} from "./interaction-step.ts";

/** A host call standing for one step of an interaction. */
export interface PendingInteraction {
  readonly kind: "interaction";
  /** The host call's id, once it is taken off its turn. */
  readonly toolCallId?: string;
  readonly query: InteractionQuery;
  readonly next: (result: ToolResultText, context: InteractionContext) => InteractionStep;
}

/** What the relay needs from its turn. */
export interface RelayTarget {
  /** Sends the interaction response on the Run. */
  readonly send: (response: InteractionResponse) => Promise<void>;
  /** Files a pending call under its tool call id. */
  readonly hold: (toolCallId: string, pending: PendingInteraction) => void;
  /** Takes what an answer changes beyond the Run. */
  readonly apply: (effects: InteractionEffects) => void;
  /** A fresh id. */
  readonly newId: () => string;
}

/** A CreatePlan never answered by the person keeps Cursor in plan mode. */
const UNANSWERED_PLAN: InteractionEffects = { mode: "plan" };

/** Steps waiting to be emitted at the start of the next pass. */
export class InteractionRelay {
  readonly #queued: {
    query: InteractionQuery;
    step: Extract<InteractionStep, { type: "call" }>;
  }[] = [];
  readonly #target: RelayTarget;

  constructor(target: RelayTarget) {
    this.#target = target;
  }

  /** Whether a follow-up call waits to be emitted. */
  get hasQueued(): boolean {
    return this.#queued.length > 0;
  }

  /**
   * Starts an interaction: answers at once, or emits its first host call.
   *
   * @returns Whether a host call was emitted.
   */
  async start(
    query: InteractionQuery,
    context: InteractionContext,
    emit: (part: LanguageModelV3StreamPart) => void,
  ): Promise<boolean> {
    const step = bridgeSurfaceQuery(query, context) ?? bridgeInteraction(query, context);
    if (step.type === "respond") {
      await this.#respond(step);
      return false;
    }
    this.#emit(query, step, emit);
    return true;
  }

  /**
   * Emits the queued follow-up calls.
   *
   * @returns Whether any was emitted.
   */
  flush(emit: (part: LanguageModelV3StreamPart) => void): boolean {
    const queued = this.#queued.splice(0);
    for (const { query, step } of queued) this.#emit(query, step, emit);
    return queued.length > 0;
  }

  /** Declines the queued follow-up calls instead of emitting them (the turn's work stopped). */
  async dropQueued(reason: string): Promise<void> {
    for (const { query } of this.#queued.splice(0)) await this.decline(query, reason);
  }

  /** Takes a host result for a pending step: answers Cursor or queues the next call. */
  async deliver(
    pending: PendingInteraction,
    result: ToolResultText,
    context: InteractionContext,
  ): Promise<void> {
    const step = pending.next(result, context);
    if (step.type === "respond") await this.#respond(step);
    else this.#queued.push({ query: pending.query, step });
  }

  /**
   * Answers an interaction whose host turn ended: with the recorded result when it settles
   * the query in one step, else with an explicit decline.
   */
  async settle(
    pending: PendingInteraction,
    result: ToolResultText | undefined,
    context: InteractionContext,
  ): Promise<void> {
    const step = result === undefined ? undefined : pending.next(result, context);
    if (step?.type === "respond") return await this.#respond(step);
    await this.abandon(pending, "The user sent a new message instead of answering");
  }

  /** Declines an interaction whose host call got no result. */
  async abandon(pending: PendingInteraction, reason: string): Promise<void> {
    await this.decline(pending.query, reason);
  }

  /** Declines a query explicitly (a CreatePlan declined keeps Cursor in plan mode). */
  async decline(query: InteractionQuery, reason: string): Promise<void> {
    const response = declineInteraction(query, reason);
    if (response !== undefined) await this.#target.send(response);
    if (query.query.case === "createPlanRequestQuery") this.#target.apply(UNANSWERED_PLAN);
  }

  async #respond(step: Extract<InteractionStep, { type: "respond" }>): Promise<void> {
    await this.#target.send(step.response);
    if (step.effects !== undefined) this.#target.apply(step.effects);
  }

  #emit(
    query: InteractionQuery,
    step: Extract<InteractionStep, { type: "call" }>,
    emit: (part: LanguageModelV3StreamPart) => void,
  ): void {
    const toolCallId = `cursor_${this.#target.newId()}`;
    const input = JSON.stringify(step.input);
    emit({ type: "tool-input-start", id: toolCallId, toolName: step.toolName });
    emit({ type: "tool-input-delta", id: toolCallId, delta: input });
    emit({ type: "tool-input-end", id: toolCallId });
    emit({ type: "tool-call", toolCallId, toolName: step.toolName, input });
    this.#target.hold(toolCallId, { kind: "interaction", query, next: step.next });
  }
}
