/**
 * A new user turn while a held Run still waits for tool results (the host's Stop during a
 * tool, then a new message): the Run's pending execs are answered with what the host
 * history holds (a tool that ran keeps its result) and the rest are cancelled, then the Run
 * is read to `turn_ended` so its final checkpoint holds the interrupted request and every
 * tool that ran. The next Run continues from that checkpoint.
 *
 * @module
 */
import type { LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import type { DebugLogger } from "../../../core/logger.ts";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { promptDigests } from "../call/prompt-digests.ts";
import type { HostTools } from "../tools/host-tools.ts";
import { type DrainOutcome, logDrain, logFreshTurn } from "../recovery/lines.ts";

/** How long a superseded Run may take to reach `turn_ended`. */
export const DRAIN_TIMEOUT_MS = 15_000;

/** Most tool rounds a superseded Run may start while it drains (each is cancelled). */
const MAX_DRAIN_ROUNDS = 4;

/** What Cursor is told for a tool call the user interrupted. */
const INTERRUPTED = "The user interrupted this tool call before it finished";

/** A drained Run's final state. */
export interface DrainResult {
  readonly outcome: DrainOutcome;
  /** The final checkpoint, when the Run reached `turn_ended` with one. */
  readonly checkpoint: Uint8Array | undefined;
  readonly used: number | undefined;
  readonly categories: Record<string, number> | undefined;
}

/**
 * Cancels a superseded turn's pending execs (delivering the results the host history holds)
 * and reads the Run to its end.
 *
 * @param input The turn, the new prompt, the call's host tools and the logger.
 * @returns How the drain ended and the final checkpoint.
 */
export async function drainSupersededTurn(input: {
  readonly turn: ActiveTurn;
  readonly prompt: LanguageModelV3Prompt;
  readonly tools: HostTools;
  readonly logger: DebugLogger;
  readonly timeoutMs?: number;
}): Promise<DrainResult> {
  const { turn, logger } = input;
  const pending = new Set(turn.pendingIds);
  const found = hostResults(input.prompt, pending);
  if (logger.enabled) {
    logFreshTurn(logger, {
      conversationId: turn.conversationId,
      cancelled: pending.size - found.length,
      delivered: found.length,
    });
  }
  let discardedChars = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), input.timeoutMs ?? DRAIN_TIMEOUT_MS);
  });
  const drain = async (): Promise<DrainOutcome> => {
    await turn.deliverResults(found, INTERRUPTED);
    for (let round = 0; round < MAX_DRAIN_ROUNDS; round++) {
      turn.beginPass();
      const outcome = await turn.pump((part) => {
        if (part.type === "text-delta") discardedChars += part.delta.length;
      }, input.tools);
      if (outcome === "turn-ended") return "turn-ended";
      await turn.deliverResults([], INTERRUPTED);
    }
    return "timeout";
  };
  let outcome: DrainOutcome;
  const running = drain();
  running.catch(() => {});
  try {
    outcome = await Promise.race([running, deadline]);
  } catch {
    outcome = "error";
  } finally {
    clearTimeout(timer);
    turn.close();
  }
  const checkpoint = turn.state.latestCheckpoint;
  if (outcome === "turn-ended" && (checkpoint === undefined || checkpoint.length === 0)) {
    outcome = "no-checkpoint";
  }
  if (logger.enabled) {
    logDrain(logger, { conversationId: turn.conversationId, outcome, discardedChars });
  }
  return {
    outcome,
    checkpoint: outcome === "turn-ended" ? checkpoint : undefined,
    used: turn.state.latestUsed,
    categories: turn.state.latestCategories,
  };
}

/**
 * Makes the drained checkpoint the conversation's: it holds everything of the prompt up to
 * the new user message(s), so the next Run sends only those. Without a checkpoint the
 * conversation is rebuilt from host history instead.
 *
 * @param conversation The conversation.
 * @param drained The drain's result.
 * @param prompt The new prompt.
 * @returns Whether the checkpoint was adopted.
 */
export function adoptDrainedCheckpoint(
  conversation: Conversation<ActiveTurn>,
  drained: DrainResult,
  prompt: LanguageModelV3Prompt,
): boolean {
  if (drained.checkpoint === undefined) return false;
  // The messages the drained Run already held (its request included) are never new.
  const messages = prompt.filter((m) => m.role !== "system");
  let firstNew = messages.length;
  while (firstNew > conversation.history.length && messages[firstNew - 1]?.role === "user") {
    firstNew--;
  }
  conversation.adoptCheckpoint(
    { bytes: drained.checkpoint, used: drained.used, categories: drained.categories },
    { history: promptDigests(messages.slice(0, firstNew)) },
  );
  return true;
}

/** The host's results for the pending calls, wherever they sit in the prompt. */
function hostResults(
  prompt: LanguageModelV3Prompt,
  pending: ReadonlySet<string>,
): LanguageModelV3ToolResultPart[] {
  const results: LanguageModelV3ToolResultPart[] = [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && pending.has(part.toolCallId)) results.push(part);
    }
  }
  return results;
}
