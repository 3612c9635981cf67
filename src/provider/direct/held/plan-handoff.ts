/**
 * The hand-off from an approved plan to its build turn: once the plan Run has ended
 * (its checkpoint kept as the conversation's), a new Run on that checkpoint builds the
 * plan with `execute_plan_action`, and the host's turn goes on with the build Run's
 * output, billed for both Runs. A turn that ended without an approved plan only leaves
 * Cursor's mode on the conversation for its next message.
 *
 * @module
 */
import type { ProviderConfig } from "../config/provider-config.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { prepareRun, type RunInputs } from "../run/run-opener.ts";
import type { TurnPlan } from "../turn-plan/turn-plan.ts";

/** What the build Run is opened with besides the conversation. */
export type HandoffInputs = Omit<RunInputs, "plan" | "executePlan">;

/**
 * The hook a turn stream calls when its Run has ended.
 *
 * @param config The provider configuration.
 * @param inputs The call's model, tools, options and session key.
 * @param conversationOf The conversation of the turn (none for ephemeral turns).
 * @returns The hook: the build turn to continue with, or `undefined` to finish.
 */
export function planHandoff(
  config: ProviderConfig,
  inputs: HandoffInputs,
  conversationOf: () => TurnPlan["conversation"],
): (turn: ActiveTurn) => Promise<ActiveTurn | undefined> {
  return async (turn) => {
    const conversation = conversationOf();
    const { interactions } = turn;
    if (conversation !== undefined && interactions.cursorMode !== undefined) {
      conversation.setCursorMode(interactions.cursorMode);
    }
    const carried = interactions.planCounters;
    if (carried !== undefined && turn.state.counters !== undefined) {
      // The host's step covered both Runs: it is billed for both.
      interactions.planCounters = undefined;
      turn.foldCounters(carried);
    }
    const approved = interactions.approvedPlan;
    const checkpoint = turn.state.latestCheckpoint;
    if (approved === undefined || conversation === undefined || checkpoint === undefined) {
      return undefined;
    }
    interactions.approvedPlan = undefined;
    // The plan Run is over: its checkpoint is where the build turn starts.
    conversation.adoptCheckpoint({
      bytes: checkpoint,
      used: turn.state.latestUsed,
      categories: turn.state.latestCategories,
    });
    turn.close();
    const plan: TurnPlan = {
      conversationId: conversation.conversationId,
      groupId: conversation.groupId,
      conversation,
      checkpoint,
      priorUsed: conversation.checkpointUsed,
      userText: "",
      systemPrompt: conversation.frozenSystemPrompt ?? "",
      continuity: "warm",
      coldReason: undefined,
      resetReason: undefined,
    };
    const { openTurn } = await prepareRun(config, {
      ...inputs,
      plan,
      executePlan: { uri: approved.uri, content: approved.content },
    });
    const build = await openTurn({ after: { turn, kind: "build" } });
    build.interactions.planCounters = turn.state.counters;
    return build;
  };
}
