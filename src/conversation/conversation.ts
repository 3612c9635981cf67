/**
 * One host conversation as a value with an owner: its fields are private and change only
 * through the named transitions below (adopt a checkpoint, record a pass, roll back to
 * the turn's start, rotate to a new Cursor conversation, bind a snapshot, hold a Run).
 * {@link ConversationState} is the serialisable part — exactly what a snapshot, or a
 * shared store, keeps; the rest is process-local (what this process sent, the held Run).
 *
 * @module
 */
import type { AdvertisedTool } from "../agent-run/request-context.ts";
import {
  type CheckpointFacts,
  type ConversationState,
  freshState,
  type FrozenRequestContext,
  type PendingStep,
  type RuleReminderKind,
  type TurnStart,
} from "./conversation-state.ts";
import { type ServerBlobKnowledge, serverBlobKnowledge } from "../agent-run/blobs/blob-push.ts";

/** What is known about one host conversation. */
export class Conversation<Held> {
  /** The host session key. */
  readonly key: string;
  /** SHA-256 (hex) of the tool-result images sent to Cursor (each is sent once). */
  readonly sentToolImages: Set<string> = new Set();
  /** What the server is believed to hold of the conversation's blobs (what to push). */
  readonly serverBlobs: ServerBlobKnowledge = serverBlobKnowledge();
  #state: ConversationState;
  #interruptedText: string | undefined;
  #ruleReminder: RuleReminderKind | undefined;
  #turnStart: TurnStart | undefined;
  #instructionSources: Map<string, string> | undefined;
  #persistedCheckpoint: Uint8Array | undefined;
  #persistedStep: PendingStep | undefined;
  #snapshotVersion: string | undefined;
  #heldReleaseReason: string | undefined;
  #held: Held | undefined;
  #heldSince = 0;
  #lastUsed: number;

  /**
   * @param key The host session key.
   * @param conversationId The Cursor conversation id.
   * @param groupId The group id (the conversation id of the session's first conversation).
   * @param now When it is created.
   * @param carried What survives from the conversation it replaces (Cursor's mode for the
   *   next message, and the store version it continues from).
   */
  constructor(
    key: string,
    conversationId: string,
    groupId: string,
    now: number,
    carried?: { readonly cursorMode?: string | undefined; readonly snapshotVersion?: string },
  ) {
    this.key = key;
    this.#state = freshState(conversationId, groupId, carried?.cursorMode);
    this.#snapshotVersion = carried?.snapshotVersion;
    this.#lastUsed = now;
  }

  /** The serialisable part (what a snapshot keeps). */
  get state(): ConversationState {
    return this.#state;
  }
  get conversationId(): string {
    return this.#state.conversationId;
  }
  get groupId(): string {
    return this.#state.groupId;
  }
  get checkpoint(): Uint8Array | undefined {
    return this.#state.checkpoint;
  }
  get checkpointUsed(): number | undefined {
    return this.#state.checkpointUsed;
  }
  get checkpointCategories(): Readonly<Record<string, number>> | undefined {
    return this.#state.checkpointCategories;
  }
  get frozenSystemPrompt(): string | undefined {
    return this.#state.frozenSystemPrompt;
  }
  get history(): readonly string[] {
    return this.#state.history;
  }
  get lastAssistantText(): string {
    return this.#state.lastAssistantText;
  }
  get requestContext(): FrozenRequestContext | undefined {
    return this.#state.requestContext;
  }
  get advertisedTools(): readonly AdvertisedTool[] {
    return this.#state.advertisedTools;
  }
  get compactionPending(): boolean {
    return this.#state.compactionPending;
  }
  get cursorMode(): string | undefined {
    return this.#state.cursorMode;
  }
  /**
   * What this provider showed in a pass that never finished (the host interrupted it), so
   * the next prompt's copy of that partial answer is recognised as ours.
   */
  get interruptedText(): string | undefined {
    return this.#interruptedText;
  }
  /** The rule reminder Cursor's model was sent last (a new conversation has had none). */
  get ruleReminder(): RuleReminderKind | undefined {
    return this.#ruleReminder;
  }
  /** The turn in progress, see {@link TurnStart}. */
  get turnStart(): TurnStart | undefined {
    return this.#turnStart;
  }
  /**
   * The host instruction sources (path → text) Cursor's model holds; `undefined` when
   * unknown (never persisted: the first Run after a restore reasserts them).
   */
  get instructionSources(): ReadonlyMap<string, string> | undefined {
    return this.#instructionSources;
  }
  /** The tool step waiting for the host's results, see {@link PendingStep}. */
  get pendingStep(): PendingStep | undefined {
    return this.#state.pendingStep;
  }
  /** The last written snapshot holds the checkpoint and pending step (nothing to write). */
  get snapshotCurrent(): boolean {
    return this.#state.checkpoint === this.#persistedCheckpoint &&
      this.#state.pendingStep === this.#persistedStep;
  }
  /** The checkpoint the last written snapshot holds (nothing to write while it is current). */
  get persistedCheckpoint(): Uint8Array | undefined {
    return this.#persistedCheckpoint;
  }
  /**
   * The version of the snapshot store's value this conversation continues from (the one it
   * restored or last wrote), when the store has versions.
   */
  get snapshotVersion(): string | undefined {
    return this.#snapshotVersion;
  }
  /** Why the last held Run was released, for the continuation diagnostics. */
  get heldReleaseReason(): string | undefined {
    return this.#heldReleaseReason;
  }
  /** The held Run while the host runs tools. */
  get held(): Held | undefined {
    return this.#held;
  }
  /** When the held Run was last touched. */
  get heldSince(): number {
    return this.#heldSince;
  }
  get lastUsed(): number {
    return this.#lastUsed;
  }

  /**
   * Makes a checkpoint the conversation's latest; token facts it lacks are kept from the
   * previous one. Optionally re-anchors the history it holds (a drained Run's checkpoint
   * holds the prompt up to the new user messages).
   *
   * @param checkpoint The checkpoint and its token facts.
   * @param anchor The host history that checkpoint holds, when it is not the current one.
   */
  adoptCheckpoint(
    checkpoint: CheckpointFacts,
    anchor?: { readonly history: readonly string[] },
  ): void {
    const state = this.#state;
    this.#state = {
      ...state,
      checkpoint: checkpoint.bytes,
      checkpointUsed: checkpoint.used ?? state.checkpointUsed,
      checkpointCategories: checkpoint.categories ?? state.checkpointCategories,
      pendingStep: undefined,
      ...(anchor === undefined ? {} : { history: [...anchor.history], lastAssistantText: "" }),
    };
  }

  /**
   * A pass ended (a step or the whole turn): the conversation now holds the host's prompt
   * and this pass's text.
   *
   * @param history Digests of the prompt the pass answered.
   * @param assistantText The text the pass streamed.
   * @param turnEnded Whether the turn ended (not only a tool step).
   */
  recordPass(history: readonly string[], assistantText: string, turnEnded: boolean): void {
    this.#state = { ...this.#state, history: [...history], lastAssistantText: assistantText };
    this.#interruptedText = undefined;
    if (turnEnded) this.#turnStart = undefined;
  }

  /**
   * A pass ended with `finish: tool-calls`: the step that waits for the host's results
   * (`undefined`: none a request elsewhere can continue from), or the step was taken up.
   *
   * @param step The checkpoint holding the pending batch and the calls, or `undefined`.
   */
  awaitResults(step: PendingStep | undefined): void {
    this.#state = { ...this.#state, pendingStep: step };
  }

  /** A turn's first pass begins: remembers what the conversation held before it. */
  beginTurn(): void {
    this.#turnStart = {
      history: this.#state.history,
      assistantText: this.#state.lastAssistantText,
      shown: "",
    };
  }

  /**
   * A step of the turn finished after showing this text.
   *
   * @param text The text the step showed.
   */
  noteShown(text: string): void {
    const start = this.#turnStart;
    if (start !== undefined) this.#turnStart = { ...start, shown: start.shown + text };
  }

  /**
   * Rolls back to the turn's start after the host interrupted it: what the host shows of
   * it reaches Cursor as history with the next message.
   *
   * @param shown The text of the interrupted pass the host showed.
   */
  rollBackToTurnStart(shown: string): void {
    const start = this.#turnStart;
    if (start === undefined) {
      this.#interruptedText = shown;
      return;
    }
    this.#state = {
      ...this.#state,
      history: start.history,
      lastAssistantText: start.assistantText,
    };
    this.#interruptedText = start.shown + shown;
  }

  /**
   * Rotates to a new Cursor conversation in the same group, started cold from host history
   * (a rebuilt turn): no checkpoint, no request context, no rule reminder heard.
   *
   * @param conversationId The new Cursor conversation id.
   * @param systemPrompt The system prompt the new conversation is frozen with.
   */
  rotate(conversationId: string, systemPrompt: string): void {
    this.#state = {
      ...this.#state,
      conversationId,
      checkpoint: undefined,
      checkpointUsed: undefined,
      checkpointCategories: undefined,
      frozenSystemPrompt: systemPrompt,
      requestContext: undefined,
      pendingStep: undefined,
    };
    this.#turnStart = undefined;
    this.#ruleReminder = undefined;
  }

  /**
   * Freezes the system prompt of the conversation's first Run.
   *
   * @param systemPrompt The host's system prompt.
   */
  freezeSystemPrompt(systemPrompt: string): void {
    this.#state = { ...this.#state, frozenSystemPrompt: systemPrompt };
  }

  /**
   * Records what the next Run sends: the request context and the advertised tools.
   *
   * @param sent What goes out (either part may be left as it is).
   */
  noteSent(sent: {
    readonly requestContext?: FrozenRequestContext;
    readonly advertisedTools?: readonly AdvertisedTool[];
  }): void {
    this.#state = { ...this.#state, ...sent };
  }

  /**
   * Records the instruction sources Cursor's model now holds.
   *
   * @param sources Path → text.
   */
  admitInstructions(sources: ReadonlyMap<string, string>): void {
    this.#instructionSources = new Map(sources);
  }

  /**
   * Sets Cursor's mode for the next user message.
   *
   * @param mode The unified mode id.
   */
  setCursorMode(mode: string): void {
    this.#state = { ...this.#state, cursorMode: mode };
  }

  /**
   * Records the rule reminder Cursor's model was just sent.
   *
   * @param kind The reminder.
   */
  noteRuleReminder(kind: RuleReminderKind): void {
    this.#ruleReminder = kind;
  }

  /** The host compacted the session: the next Run rebases, and the mark must be written. */
  markCompaction(): void {
    this.#state = { ...this.#state, compactionPending: true };
    this.#persistedCheckpoint = undefined;
  }

  /**
   * Binds the conversation to the snapshot store's value it now matches.
   *
   * @param version The store's version of that value (`undefined`: unknown).
   */
  bindSnapshot(version: string | undefined): void {
    this.#persistedCheckpoint = this.#state.checkpoint;
    this.#persistedStep = this.#state.pendingStep;
    this.#snapshotVersion = version;
  }

  /**
   * Loads the serialisable state from a snapshot (a restore): the snapshot holds it, so
   * nothing is left to write.
   *
   * @param state What the snapshot kept.
   * @param version The store's version of the snapshot.
   */
  restore(state: ConversationState, version: string | undefined): void {
    this.#state = { ...state, history: [...state.history] };
    this.bindSnapshot(version);
  }

  /**
   * Holds a Run while the host runs tools (the store enforces the limits).
   *
   * @param held The Run.
   * @param now When.
   */
  hold(held: Held, now: number): void {
    this.#held = held;
    this.#heldSince = now;
  }

  /**
   * Takes the held Run out; it is the caller's now.
   *
   * @param reason Why it left, when it is being released rather than resumed.
   * @returns The Run, if one was held.
   */
  take(reason?: string): Held | undefined {
    const held = this.#held;
    this.#held = undefined;
    if (held !== undefined && reason !== undefined) this.#heldReleaseReason = reason;
    return held;
  }

  /**
   * Records why the held Run is gone (it was released, or it broke).
   *
   * @param reason The reason.
   */
  noteHeldRelease(reason: string): void {
    this.#heldReleaseReason = reason;
  }

  /**
   * The conversation was used.
   *
   * @param now When.
   */
  touch(now: number): void {
    this.#lastUsed = now;
  }
}
