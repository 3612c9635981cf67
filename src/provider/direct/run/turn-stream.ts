/**
 * The host-facing stream of one `doStream` call over an `ActiveTurn`: pumps the
 * turn, finishes with `tool-calls` (holding the Run) or `stop` (recording the
 * checkpoint), and turns failures into an error part (the shared model converts it).
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { interruptRun } from "../billing/turn-billing.ts";
import type { ActiveTurn } from "./active-turn.ts";
import { closeOpenParts } from "./run-stream.ts";
import { promptDigests } from "../conversation/history.ts";
import type { HostTools } from "../tools/host-tools.ts";
import type { PassContext } from "../diagnostics/pass-context.ts";
import { finishWithBilling } from "../billing/finish-billing.ts";
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
  const buffered: LanguageModelV3StreamPart[] = [];
  let controller: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
  let firstSettled: () => void = () => {};
  const first = new Promise<void>((resolve) => (firstSettled = resolve));
  let cancelled = false;
  const emit = (part: LanguageModelV3StreamPart): boolean => {
    if (cancelled) return false;
    if (controller) controller.enqueue(part);
    else buffered.push(part);
    firstSettled();
    return true;
  };
  const { config } = context;
  let turn = context.turn;
  const conversation = context.conversation;
  if (turn.pumpPasses === 0 && conversation) {
    conversation.beginTurn();
  }
  turn.beginPass();
  let finished = false;
  // The host's Stop while the Run streams: Cursor is told (`cancel_action`), then it closes.
  const onAbort = () => {
    if (!finished) void turn.cancel();
  };
  if (context.abortSignal?.aborted) void turn.cancel();
  context.abortSignal?.addEventListener("abort", onAbort, { once: true });
  let failure: unknown;
  const ledger = new VisibleLedger();
  // How much the host had seen when the turn's latest eligible checkpoint arrived: a Run
  // resumed from it repeats only what came after.
  let mark = { text: 0, reasoning: 0 };
  const watch = (watched: ActiveTurn) => {
    watched.checkpoints.watchEligible(() => {
      mark = { text: ledger.text.length, reasoning: ledger.reasoning.length };
    });
  };
  watch(turn);
  const done = (async () => {
    try {
      let forward = (part: LanguageModelV3StreamPart) => {
        ledger.record(part);
        emit(part);
      };
      let outcome: "tool-calls" | "turn-ended" | undefined;
      let recover = context.recover;
      let lastProgress = "0:0:0:0";
      for (let attempt = 0; outcome === undefined; attempt++) {
        try {
          outcome = await turn.pump((part) => forward(part), context.tools);
          const build = outcome === "turn-ended" ? await context.handoff?.(turn) : undefined;
          if (build !== undefined) {
            // The plan Run has ended; its build Run goes on in this pass (never replayed as it).
            build.beginPass(turn);
            turn = build;
            recover = undefined;
            outcome = undefined;
          }
        } catch (error) {
          const progress = `${ledger.text.length}:${ledger.reasoning.length}:${
            turn.checkpoints.eligible?.length ?? 0
          }:${turn.guard.checkpoints}`;
          if (progress !== lastProgress) context.progressed?.();
          lastProgress = progress;
          const replay = await recover?.({
            error,
            turn,
            attempt,
            shown: ledger.text !== "" || ledger.reasoning !== "",
          });
          if (replay === undefined) throw error;
          for (const part of closeOpenParts(turn.state)) forward(part);
          turn.close();
          replay.beginPass(turn);
          turn = replay;
          watch(turn);
          const filter = replay.resumed
            ? new ReplayFilter(ledger.text.slice(mark.text), ledger.reasoning.slice(mark.reasoning))
            : new ReplayFilter(ledger.text, ledger.reasoning);
          forward = (part) => {
            for (const shown of filter.map(part)) {
              ledger.record(shown);
              emit(shown);
            }
          };
        }
      }
      finished = true;
      context.abortSignal?.removeEventListener("abort", onAbort);
      conversation?.noteShown(ledger.text);
      finishPass({ ...context, turn }, outcome, emit);
    } catch (error) {
      finished = true;
      context.abortSignal?.removeEventListener("abort", onAbort);
      turn.close();
      interruptRun(config.billing, turn);
      context.surfaced?.(error);
      // The host keeps this partial answer (and the turn's earlier steps, which no checkpoint
      // holds): the next prompt's copy of them is ours.
      conversation?.rollBackToTurnStart(ledger.text);
      if (buffered.length === 0 && controller === undefined) failure = error;
      else emit({ type: "error", error });
    } finally {
      firstSettled();
    }
  })();
  await first;
  if (failure !== undefined) throw failure;
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(c) {
      c.enqueue({
        type: "response-metadata",
        id: turn.conversationId,
        modelId: turn.modelId,
        timestamp: new Date(config.now()),
      });
      for (const part of buffered) c.enqueue(part);
      controller = c;
      done.finally(() => {
        if (!cancelled) c.close();
      });
    },
    cancel() {
      cancelled = true;
      // A consumer that stops reading after the finish must not end a held Run.
      if (!finished) void turn.cancel();
    },
  });
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
