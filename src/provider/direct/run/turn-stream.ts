/**
 * The host-facing stream of one `doStream` call over an `ActiveTurn`: pumps the
 * turn, finishes with `tool-calls` (holding the Run) or `stop` (recording the
 * checkpoint), and turns failures into an error part (the shared model converts it).
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { interruptRun } from "../billing/turn-billing.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { closeOpenParts } from "../turn/run-stream.ts";
import { promptDigests } from "../call/prompt-digests.ts";
import type { HostTools } from "../tools/host-tools.ts";
import type { PassContext } from "./pass-context.ts";
import { finishWithBilling } from "./finish-billing.ts";
import { ReplayFilter, VisibleLedger } from "../recovery/replay-filter.ts";
import { cancelHeldRunOnStop } from "./held-stop.ts";

/** Most outstanding tool calls remembered for finding their held Run. */
const MAX_TOOL_CALL_OWNERS = 1024;

/** What one `doStream` call's stream needs. */
export interface TurnStreamContext extends PassContext {
  readonly tools: HostTools;
  /**
   * The call's abort signal. It ends the Run only while this call streams: once the Run is
   * held for tool results it belongs to the conversation, and a host that aborts a finished
   * step's signal (OpenCode does) must not kill it.
   */
  readonly abortSignal?: AbortSignal | undefined;
  /**
   * Called when the Run fails: returns a new turn that replays it (its output passes a
   * filter so nothing shows twice), or `undefined` when the failure stays final.
   */
  readonly recover?: (failure: {
    readonly error: unknown;
    readonly turn: ActiveTurn;
    readonly attempt: number;
    /** Whether this pass showed the host any text or reasoning. */
    readonly shown: boolean;
  }) => Promise<ActiveTurn | undefined>;
  /**
   * Called when the Run has ended: returns the turn to go on with (the build Run of a plan
   * approved in it), or `undefined` to finish.
   */
  readonly handoff?: (turn: ActiveTurn) => Promise<ActiveTurn | undefined>;
  /** Called before `recover` when the turn made progress since the last failure. */
  readonly progressed?: () => void;
  /** Called with the failure that ends this call (the host may retry it). */
  readonly surfaced?: (error: unknown) => void;
}

/**
 * Starts pumping and returns the stream once the first part (or a failure) is known, so a
 * failure before any output can be thrown from `doStream` (and retried by the caller).
 *
 * @param context The turn and its surroundings.
 * @returns The stream of parts.
 * @throws {CursorError} when the turn fails before producing anything.
 */
export async function openTurnStream(
  context: TurnStreamContext,
): Promise<ReadableStream<LanguageModelV3StreamPart>> {
  const output = new PassOutput();
  if (context.turn.pumpPasses === 0) context.conversation?.beginTurn();
  context.turn.beginPass();
  const pass = new TurnPass(context, output);
  const done = pass.run();
  await output.first;
  if (pass.failure !== undefined) throw pass.failure;
  return output.readable(done, {
    start: () => ({
      type: "response-metadata",
      id: pass.turn.conversationId,
      modelId: pass.turn.modelId,
      timestamp: new Date(context.config.now()),
    }),
    // A consumer that stops reading after the finish must not end a held Run.
    cancelled: () => pass.cancelUnlessFinished(),
  });
}

/** Where a pass's parts go: buffered until the stream is read, then straight through. */
class PassOutput {
  readonly #buffered: LanguageModelV3StreamPart[] = [];
  #controller: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
  #cancelled = false;
  #settleFirst: () => void = () => {};
  /** Settles once the first part (or the pass's end) is known. */
  readonly first: Promise<void> = new Promise<void>((resolve) => (this.#settleFirst = resolve));

  /** Nothing reached the host yet (a failure now can be thrown from `doStream`). */
  get untouched(): boolean {
    return this.#buffered.length === 0 && this.#controller === undefined;
  }

  /** Sends one part; `false` once the consumer cancelled. */
  emit = (part: LanguageModelV3StreamPart): boolean => {
    if (this.#cancelled) return false;
    if (this.#controller) this.#controller.enqueue(part);
    else this.#buffered.push(part);
    this.#settleFirst();
    return true;
  };

  /** The pass has ended (successfully or not). */
  settle(): void {
    this.#settleFirst();
  }

  /** The host-facing stream: the metadata part, what was buffered, then the rest. */
  readable(
    done: Promise<void>,
    hooks: {
      readonly start: () => LanguageModelV3StreamPart;
      readonly cancelled: () => void;
    },
  ): ReadableStream<LanguageModelV3StreamPart> {
    return new ReadableStream<LanguageModelV3StreamPart>({
      start: (c) => {
        c.enqueue(hooks.start());
        for (const part of this.#buffered) c.enqueue(part);
        this.#controller = c;
        done.finally(() => {
          if (!this.#cancelled) c.close();
        });
      },
      cancel: () => {
        this.#cancelled = true;
        hooks.cancelled();
      },
    });
  }
}

/**
 * One `doStream` pass over a turn: pumps it, carries out recoveries (the next Run's output
 * passes a filter so nothing shows twice) and plan hand-offs, then finishes the pass.
 */
class TurnPass {
  readonly #context: TurnStreamContext;
  readonly #output: PassOutput;
  readonly #ledger = new VisibleLedger();
  /**
   * How much the host had seen when the turn's latest eligible checkpoint arrived: a Run
   * resumed from it repeats only what came after.
   */
  #mark = { text: 0, reasoning: 0 };
  #turn: ActiveTurn;
  #finished = false;
  #forward: (part: LanguageModelV3StreamPart) => void;
  /** The failure that ended the pass before anything reached the host. */
  failure: unknown;

  constructor(context: TurnStreamContext, output: PassOutput) {
    this.#context = context;
    this.#output = output;
    this.#turn = context.turn;
    this.#forward = (part) => {
      this.#ledger.record(part);
      output.emit(part);
    };
    this.#watch(this.#turn);
  }

  /** The turn the pass is on now (a recovery or a hand-off replaces it). */
  get turn(): ActiveTurn {
    return this.#turn;
  }

  /** The host's Stop, or a consumer that stops reading, while the Run streams. */
  cancelUnlessFinished(): void {
    if (!this.#finished) void this.#turn.cancel();
  }

  /** Runs the pass to its end; failures end up in the stream or in {@link failure}. */
  async run(): Promise<void> {
    const signal = this.#context.abortSignal;
    // The host's Stop while the Run streams: Cursor is told (`cancel_action`), then it closes.
    const onAbort = () => this.cancelUnlessFinished();
    if (signal?.aborted) void this.#turn.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const outcome = await this.#pumpUntilDone();
      this.#finished = true;
      signal?.removeEventListener("abort", onAbort);
      this.#context.conversation?.noteShown(this.#ledger.text);
      finishPass({ ...this.#context, turn: this.#turn }, outcome, this.#output.emit);
    } catch (error) {
      this.#finished = true;
      signal?.removeEventListener("abort", onAbort);
      this.#fail(error);
    } finally {
      this.#output.settle();
    }
  }

  async #pumpUntilDone(): Promise<"tool-calls" | "turn-ended"> {
    let recover = this.#context.recover;
    let lastProgress = "0:0:0:0";
    for (let attempt = 0;; attempt++) {
      try {
        const outcome = await this.#turn.pump((part) => this.#forward(part), this.#context.tools);
        const build = outcome === "turn-ended"
          ? await this.#context.handoff?.(this.#turn)
          : undefined;
        if (build === undefined) return outcome;
        // The plan Run has ended; its build Run goes on in this pass (never replayed as it).
        build.beginPass(this.#turn);
        this.#turn = build;
        recover = undefined;
      } catch (error) {
        const progress = this.#progress();
        if (progress !== lastProgress) this.#context.progressed?.();
        lastProgress = progress;
        const next = await recover?.({
          error,
          turn: this.#turn,
          attempt,
          shown: this.#ledger.text !== "" || this.#ledger.reasoning !== "",
        });
        if (next === undefined) throw error;
        this.#continueOn(next);
      }
    }
  }

  /** What the pass has achieved so far (a change means the turn made progress). */
  #progress(): string {
    const ledger = this.#ledger;
    const turn = this.#turn;
    return `${ledger.text.length}:${ledger.reasoning.length}:${
      turn.checkpoints.eligible?.length ?? 0
    }:${turn.guard.checkpoints}`;
  }

  /** Goes on with the Run a recovery opened; what the host saw already is filtered out. */
  #continueOn(next: ActiveTurn): void {
    const ledger = this.#ledger;
    for (const part of closeOpenParts(this.#turn.state)) this.#forward(part);
    this.#turn.close();
    next.beginPass(this.#turn);
    this.#turn = next;
    this.#watch(next);
    const mark = this.#mark;
    const filter = next.resumed
      ? new ReplayFilter(ledger.text.slice(mark.text), ledger.reasoning.slice(mark.reasoning))
      : new ReplayFilter(ledger.text, ledger.reasoning);
    this.#forward = (part) => {
      for (const shown of filter.map(part)) {
        ledger.record(shown);
        this.#output.emit(shown);
      }
    };
  }

  #watch(turn: ActiveTurn): void {
    turn.checkpoints.watchEligible(() => {
      this.#mark = { text: this.#ledger.text.length, reasoning: this.#ledger.reasoning.length };
    });
  }

  #fail(error: unknown): void {
    const { config, conversation } = this.#context;
    this.#turn.close();
    interruptRun(config.billing, this.#turn);
    this.#context.surfaced?.(error);
    // The host keeps this partial answer (and the turn's earlier steps, which no checkpoint
    // holds): the next prompt's copy of them is ours.
    conversation?.rollBackToTurnStart(this.#ledger.text);
    if (this.#output.untouched) this.failure = error;
    else this.#output.emit({ type: "error", error });
  }
}

function finishPass(
  context: TurnStreamContext,
  outcome: "tool-calls" | "turn-ended",
  emit: (part: LanguageModelV3StreamPart) => boolean,
): void {
  const { turn, config, conversation } = context;
  if (conversation) {
    conversation.recordPass(
      promptDigests(context.prompt),
      turn.state.text,
      outcome === "turn-ended",
    );
  }
  if (outcome === "tool-calls") {
    if (conversation) {
      // What a request with the results needs on another instance goes with the snapshot.
      conversation.awaitResults(turn.heldStep());
      config.conversations.hold(conversation, turn);
      cancelHeldRunOnStop({ config, conversation, turn, signal: context.abortSignal });
    }
    for (const id of turn.pendingIds) config.toolCallOwners.set(id, context.holdKey);
    // Calls whose Run was released without a result would pile up: keep the newest ones.
    for (const id of config.toolCallOwners.keys()) {
      if (config.toolCallOwners.size <= MAX_TOOL_CALL_OWNERS) break;
      config.toolCallOwners.delete(id);
    }
  } else {
    conversation?.awaitResults(undefined);
    if (
      conversation && turn.state.latestCheckpoint !== undefined &&
      turn.state.latestCheckpoint.length > 0
    ) {
      conversation.adoptCheckpoint({
        bytes: turn.state.latestCheckpoint,
        used: turn.state.latestUsed,
        categories: turn.state.latestCategories,
      });
    }
    turn.close();
  }
  finishWithBilling(context, outcome, emit);
}
