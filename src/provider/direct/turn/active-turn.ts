/**
 * One turn of a held Run as the provider drives it across `doStream` calls: pumping
 * events into stream parts, handing exec requests to the turn's {@link HostToolCalls}
 * (collecting a parallel batch), pausing with `finish: tool-calls` while the host runs
 * them, and resuming when their results come back.
 *
 * @module
 */
import type {
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import type { DebugLogger } from "../../../core/logger.ts";
import type { AgentRun } from "../../../agent-run/agent-run.ts";
import type { RunEvent, TurnCounters } from "../../../agent-run/run-events.ts";
import { ReplayGuard } from "../../../conversation/recovery-guard.ts";
import { CheckpointEligibility } from "../../../conversation/checkpoint-eligibility.ts";
import {
  addCounters,
  closeOpenParts,
  createRunStreamState,
  mapRunEvent,
  type RunStreamState,
} from "./run-stream.ts";
import type { HostTools } from "../tools/host-tools.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { TurnInteractions } from "../interactions/turn-interactions.ts";
import type { ImageStaging } from "../tools/media/image-save.ts";
import { HostToolCalls } from "./host-tool-calls.ts";
import { pendingToolCallsOf, REISSUE_WINDOW_MS, type ReissueBatch } from "./reissue-watch.ts";
import type { PendingStep } from "../../../conversation/conversation-state.ts";
import type { ResultMedia } from "../tools/media/tool-images.ts";
import type { PumpOutcome, StartFacts, SuccessorKind, TurnIdentity } from "../turn-types.ts";

/** How long to wait for more exec requests of the same batch (parallel tool calls). */
export const BATCH_WINDOW_MS = 120;

/** What a turn is made from. */
export interface TurnOptions extends TurnIdentity {
  readonly run: AgentRun;
  readonly newId: () => string;
  readonly logger: DebugLogger;
  /** Where generated images wait for the host's save tool. */
  readonly images?: ImageStaging | undefined;
  /** How the turn's first Run started, when known. */
  readonly startFacts?: StartFacts | undefined;
}

/** Everything a turn carries between `doStream` calls. */
export class ActiveTurn {
  readonly run: AgentRun;
  readonly events: AsyncGenerator<RunEvent, void, undefined>;
  readonly conversationId: string;
  readonly modelId: string;
  /** The workspace directory the Run's tools act in (the call's, kept by a resumed attempt). */
  readonly workspaceRoot: string;
  /** Context occupancy of the checkpoint the Run started from. */
  readonly priorUsed: number | undefined;
  /** The prior checkpoint's categories. */
  readonly priorCategories: Readonly<Record<string, number>> | undefined;
  /** How the turn's first Run started, repeated on every pass's diagnostics. */
  readonly startFacts: StartFacts | undefined;
  /** Replay barriers seen on this Run (a replay is safe only before the first). */
  readonly guard: ReplayGuard = new ReplayGuard();
  /** The turn's latest resume-eligible checkpoint (carried over to a resumed attempt). */
  readonly checkpoints: CheckpointEligibility;
  /** This attempt continues an interrupted one from a checkpoint (`resume_action`). */
  readonly resumed: boolean;
  #state: RunStreamState = createRunStreamState();
  #pumpPasses = 0;
  #passGuard: ReplayGuard = new ReplayGuard();
  #heldFailure: unknown;
  /** The latest checkpoint of this pass that lists pending tool calls, and how many. */
  #staged:
    | { readonly bytes: Uint8Array; readonly used?: number; readonly pending: number }
    | undefined;
  #next: Promise<IteratorResult<RunEvent, void>> | undefined;
  readonly #options: TurnOptions;
  readonly #logger: DebugLogger;
  /** The host tool calls the turn waits on. */
  readonly #calls: HostToolCalls;
  /** Questions, mode switches and plans: their rules, effects and host calls. */
  readonly interactions: TurnInteractions;

  /**
   * @param options The Run, who it belongs to, and the provider's services.
   * @param lineage What a successor carries over (see {@link ActiveTurn.successor}).
   */
  constructor(
    options: TurnOptions,
    lineage?: { readonly checkpoints: CheckpointEligibility; readonly resumed: boolean },
  ) {
    this.#options = options;
    this.run = options.run;
    this.events = options.run.events();
    this.conversationId = options.conversationId;
    this.modelId = options.modelId;
    this.priorUsed = options.priorUsed;
    this.priorCategories = options.priorCategories;
    this.startFacts = options.startFacts;
    this.checkpoints = lineage?.checkpoints ?? new CheckpointEligibility();
    this.resumed = lineage?.resumed ?? false;
    this.#logger = options.logger;
    this.workspaceRoot = options.workspaceRoot;
    this.#calls = new HostToolCalls({
      run: options.run,
      newId: options.newId,
      logger: options.logger,
      workspaceRoot: options.workspaceRoot,
      images: options.images,
    });
    this.interactions = this.#calls.interactions;
  }

  /**
   * The turn's next Run, made from this one: it keeps the turn's start facts and, unless
   * given, who the Run belongs to; a `resume` also carries the checkpoint tracker (its
   * eligible checkpoint is where the new Run starts).
   *
   * @param kind How the new Run relates to this one.
   * @param run The new Run, already started.
   * @param identity What differs (a rebuild's new conversation, for one).
   * @returns The successor.
   */
  successor(kind: SuccessorKind, run: AgentRun, identity?: Partial<TurnIdentity>): ActiveTurn {
    const resume = kind === "resume";
    const next = new ActiveTurn({ ...this.#options, ...identity, run }, {
      checkpoints: resume ? this.checkpoints.carry() : new CheckpointEligibility(),
      resumed: resume,
    });
    next.interactions.sessionRules = this.interactions.sessionRules;
    return next;
  }

  /** The stream mapper's state of the current pass. */
  get state(): Readonly<RunStreamState> {
    return this.#state;
  }

  /** How many passes (`doStream` calls) the turn has had. */
  get pumpPasses(): number {
    return this.#pumpPasses;
  }

  /** Replay barriers seen since the current pass began. */
  get passGuard(): ReplayGuard {
    return this.#passGuard;
  }

  /** Why the Run failed while it was held for the host's tool results, if it did. */
  get heldFailure(): unknown {
    return this.#heldFailure;
  }

  /**
   * Folds the counters of an earlier Run of the same host step into this Run's (the build
   * Run of a plan: the host's step covered both Runs).
   *
   * @param earlier The earlier Run's counters.
   */
  foldCounters(earlier: TurnCounters): void {
    const own = this.#state.counters;
    if (own !== undefined) this.#state.counters = addCounters(earlier, own);
  }

  /** Host tool calls emitted so far. */
  get toolCalls(): number {
    return this.#calls.count;
  }

  /** Tool call ids the host still owes a result for. */
  get pendingIds(): string[] {
    return this.#calls.pendingIds;
  }

  /**
   * The step a request elsewhere can continue from (ADR 190), once the pass ended with
   * `finish: tool-calls`: the latest checkpoint of the pass whose pending tool calls are
   * as many as the execs the host owes, and those calls. `undefined` when the host owes
   * anything Cursor cannot re-issue (a question, a write probe) or no such checkpoint came.
   *
   * @returns The step, or `undefined`.
   */
  heldStep(): PendingStep | undefined {
    const staged = this.#staged;
    const calls = this.#calls.pendingStepCalls();
    if (staged === undefined || calls === undefined) return undefined;
    const execs = calls.filter((call) => call.cursorCallId !== "").length;
    if (execs === 0 || execs !== staged.pending) return undefined;
    return { checkpoint: staged.bytes, used: staged.used, calls };
  }

  /**
   * This Run continues a stored step (`resume_action`): the batch Cursor re-issues is
   * answered with the host's results, never emitted to the host again.
   *
   * @param batch The host's results by Cursor's tool call id.
   */
  expectReissue(batch: ReissueBatch): void {
    this.#calls.reissue.expect(batch);
  }

  /** Why the re-issued batch did not match the stored step, once it did not. */
  get reissueMismatch(): string | undefined {
    return this.#calls.reissue.mismatch;
  }

  /**
   * Starts the next pump: a fresh mapper state for this `doStream` call.
   *
   * @param taking The Run this one takes the pass over from (a replay, a resume, a plan's
   *   build Run): the pass's part ids go on from its.
   */
  beginPass(taking?: ActiveTurn): void {
    this.#pumpPasses++;
    this.#passGuard = new ReplayGuard();
    this.#staged = undefined;
    const previous = this.#state;
    this.#state = {
      ...createRunStreamState(),
      ...(taking === undefined ? {} : { partCounter: taking.state.partCounter }),
      counters: previous.counters,
      latestUsed: previous.latestUsed,
      latestCheckpoint: previous.latestCheckpoint,
      checkpointCategories: previous.checkpointCategories,
      latestMax: previous.latestMax,
      latestCategories: previous.latestCategories,
      latestBreakdownTotal: previous.latestBreakdownTotal,
    };
  }

  /**
   * Sends the host's tool results back on the Run as typed exec results. Results for ids
   * this turn does not owe are ignored with a warning; owed results the host did not
   * return are refused explicitly so the Run never waits forever.
   *
   * @param results The tool result parts at the tail of the host's prompt.
   * @param missingReason What Cursor is told for an owed result the host did not return.
   * @param reminder A rule reminder for Cursor's model: it rides with the first host tool
   *   result that can carry text, and `sent` is called once it did.
   * @param media Images that came with the results, by tool call id, and what they are
   *   checked against.
   * @returns Warnings for the host.
   */
  async deliverResults(
    results: readonly LanguageModelV3ToolResultPart[],
    missingReason = "The host returned no result for this tool call",
    reminder?: { readonly text: string; readonly sent: () => void },
    media?: ResultMedia,
  ): Promise<string[]> {
    return await this.#calls.deliver(results, missingReason, reminder, media);
  }

  /**
   * Pumps events into parts until the turn ends or the host owes tool results.
   *
   * @param emit Receives each stream part.
   * @param tools The host tools offered in this call.
   * @returns Why the pump stopped.
   * @throws {CursorError} when the Run fails.
   */
  async pump(
    emit: (part: LanguageModelV3StreamPart) => void,
    tools: HostTools,
  ): Promise<PumpOutcome> {
    const closeOpen = () => closeOpenParts(this.#state);
    if (await this.interactions.beginPass(tools, emit, closeOpen)) return "tool-calls";
    let batchOpen = await this.#calls.bridgeDeferred(tools, emit, closeOpen);
    for (;;) {
      const upcoming: Promise<IteratorResult<RunEvent, void>> = this.#next ?? this.events.next();
      this.#next = upcoming;
      const window = batchOpen
        ? BATCH_WINDOW_MS
        : this.#calls.reissue.started
        ? REISSUE_WINDOW_MS
        : undefined;
      const next: IteratorResult<RunEvent, void> | "window-closed" = window === undefined
        ? await upcoming
        : await raceWindow(upcoming, window);
      // Cursor waits for the results of what it re-issued: a batch short of a stored call
      // would wait forever.
      if (next === "window-closed" && this.#calls.reissue.awaiting) {
        this.#calls.reissue.giveUp("batch-incomplete");
      }
      if (next === "window-closed") {
        // Held for the host's results: a Run that breaks meanwhile is known before they come.
        upcoming.catch((error: unknown) => {
          this.#heldFailure ??= error;
        });
        return "tool-calls";
      }
      this.#next = undefined;
      if (next.done) {
        if (this.#calls.reissue.awaiting) this.#calls.reissue.giveUp("run-ended");
        for (const part of closeOpenParts(this.#state)) emit(part);
        return "turn-ended";
      }
      const event: RunEvent = next.value;
      this.#observe(event);
      if (event.type === "exec") {
        batchOpen = (await this.#calls.bridge(event.exec, tools, emit, closeOpen)) || batchOpen;
        continue;
      }
      if (event.type === "interaction") {
        batchOpen = (await this.interactions.start(event.query, emit, closeOpen)) || batchOpen;
        continue;
      }
      if (event.type === "exec-abort") {
        this.#calls.abort(event.id);
        continue;
      }
      if (event.type === "tool-display" && event.toolCall?.tool.case === "taskToolCall") {
        const args = event.toolCall.tool.value.args;
        if (args !== undefined) this.#calls.noteTask(event.callId, args);
      }
      if (event.type === "warning") {
        emitDiagnostic(this.#logger, { kind: "run-warning", message: event.message });
        continue;
      }
      for (const part of mapRunEvent(this.#state, event)) emit(part);
      // Cursor does not wait for a todo mirror, so the step ends here and the host runs it now
      // (only before `turn_ended`).
      if (
        event.type === "checkpoint" && this.#state.counters === undefined &&
        this.#calls.mirrorTodos(event.todos, tools, emit, closeOpen)
      ) return "tool-calls";
    }
  }

  /**
   * Records an event in the trackers. While a stored step's batch is re-issued, its execs
   * and displays are no replay barrier (the host history holds them, results included),
   * and anything the model says before the batch is whole means it is not the stored one.
   */
  #observe(event: RunEvent): void {
    const reissuing = this.#calls.reissue.awaiting;
    this.#calls.reissue.observe(event.type);
    if (!(reissuing && (event.type === "exec" || event.type === "tool-display"))) {
      this.guard.observe(event);
      this.#passGuard.observe(event);
    }
    this.checkpoints.observe(event);
    if (event.type === "checkpoint" && event.bytes.length > 0) {
      const pending = pendingToolCallsOf(event.bytes);
      const used = event.tokenDetails?.usedTokens;
      if (pending > 0) {
        this.#staged = { bytes: event.bytes, pending, ...(used ? { used } : {}) };
      }
    }
  }

  /**
   * Answers the interactions still waiting on this Run before it is released for a new
   * user turn: with the host's recorded result when the prompt's history has one, else
   * with an explicit decline.
   *
   * @param prompt The new call's prompt.
   */
  async settleInteractions(prompt: LanguageModelV3Prompt): Promise<void> {
    await this.#calls.settleInteractions(prompt);
  }

  /** Closes the Run and refuses nothing more (the Run is gone). */
  close(): void {
    this.run.close();
  }

  /**
   * The host stopped the turn: tells Cursor (`cancel_action` on the live Run), then closes.
   *
   * @returns Resolves once the Run is closed.
   */
  cancel(): Promise<void> {
    return this.run.cancel();
  }
}

async function raceWindow<T>(promise: Promise<T>, ms: number): Promise<T | "window-closed"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const window = new Promise<"window-closed">((resolve) => {
    timer = setTimeout(() => resolve("window-closed"), ms);
  });
  try {
    return await Promise.race([promise, window]);
  } finally {
    clearTimeout(timer);
  }
}
