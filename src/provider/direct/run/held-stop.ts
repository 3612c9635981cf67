/**
 * The host's Stop while a Run is held for tool results. A host aborts the signal of a
 * finished step both when the user stops it (while the tools still run) and, OpenCode
 * does, when the step's tools are done (just before it calls again with their results):
 * the two look the same when they happen. So the abort starts a grace period; a held Run
 * whose results have not come when it ends was stopped, and is cancelled on Cursor's side
 * (`cancel_action`). The conversation rolls back to the turn's start, so the next message
 * brings the interrupted request and what ran as history (docs/decisions/156-…).
 *
 * @module
 */
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { interruptRun } from "../billing/turn-billing.ts";

/** How long after the abort of a held Run's step its tool results may still come. */
export const HELD_STOP_GRACE_MS = 5_000;

/**
 * Cancels the held Run when the step that left it held is aborted and its tool results
 * do not follow within the grace period.
 *
 * @param input The provider, the conversation holding the turn, the turn, the step's signal.
 */
export function cancelHeldRunOnStop(input: {
  readonly config: ProviderConfig;
  readonly conversation: Conversation<ActiveTurn>;
  readonly turn: ActiveTurn;
  readonly signal: AbortSignal | undefined;
  readonly graceMs?: number | undefined;
}): void {
  const { config, conversation, turn, signal } = input;
  if (signal === undefined || signal.aborted) return;
  // The same turn can be held again after a later step: only this hold is watched.
  const pass = turn.pumpPasses;
  const stillHeld = () => conversation.held === turn && turn.pumpPasses === pass;
  const onAbort = () => {
    if (!stillHeld()) return;
    const timer = setTimeout(() => {
      if (!stillHeld()) return;
      const held = config.conversations.take(conversation);
      if (held === undefined) return;
      conversation.rollBackToTurnStart("");
      conversation.noteHeldRelease("host-stopped");
      interruptRun(config.billing, held);
      emitDiagnostic(config.logger, {
        kind: "held-run-released",
        conversationId: conversation.conversationId,
        reason: "host-stopped",
        pending: held.pendingIds.length,
      });
      void held.cancel();
    }, input.graceMs ?? HELD_STOP_GRACE_MS);
    (timer as { unref?: () => void }).unref?.();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // A long-lived signal (one for many calls) must not keep every finished Run's listener.
  void turn.run.closed.then(() => signal.removeEventListener("abort", onAbort));
}
