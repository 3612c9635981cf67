/**
 * A pass's finish with its charge: builds the finish in the call's usage mode, quotes
 * the ledger, emits the part with the charge in its provider metadata, commits the
 * charge once delivery is known, then writes the pass's diagnostic events and the
 * `billing:` lines.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { buildFinish } from "../turn/finish.ts";
import { turnDiagnostics } from "./turn-diagnostics.ts";
import type { PassContext } from "./pass-context.ts";
import type { DiagnosticEvent } from "../diagnostics/events.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { commitCharge, quoteCharge } from "../billing/turn-billing.ts";

/** Characters per token of the provider's rough estimate. */
const CHARS_PER_TOKEN = 4;

/**
 * Emits the finish of a pass with its charge and logs its events.
 *
 * @param context The pass's context.
 * @param outcome Why the pump stopped.
 * @param emit Sends a part; returns whether the consumer still reads.
 */
export function finishWithBilling(
  context: PassContext,
  outcome: "tool-calls" | "turn-ended",
  emit: (part: LanguageModelV3StreamPart) => boolean,
): void {
  const { turn, config } = context;
  const mode = context.usageMode ?? config.usage;
  const reason = outcome === "tool-calls" ? "tool-calls" : "stop";
  const book = config.billing;
  const state = turn.state;
  const estimate = state.latestUsed === undefined && turn.priorUsed === undefined
    ? {
      input: Math.ceil(JSON.stringify(context.prompt).length / CHARS_PER_TOKEN),
      output: Math.ceil(state.text.length / CHARS_PER_TOKEN),
    }
    : { input: 0, output: 0 };
  const previousStepUsed = book.previousStepUsed.get(turn);
  const finish = buildFinish(state, {
    priorUsed: turn.priorUsed,
    previousStepUsed,
    activity: turn.run.activity,
    reason,
    mode,
    estimate,
  });
  const contextTokens = state.latestUsed ?? turn.priorUsed ?? estimate.input;
  const charge = quoteCharge(book, {
    sessionKey: context.diagnostics.sessionKey === "none"
      ? context.holdKey
      : context.diagnostics.sessionKey,
    run: turn,
    model: turn.modelId,
    reason,
    counters: state.counters,
    contextTokens,
    previousContextTokens: previousStepUsed ?? turn.priorUsed ?? 0,
    outputTokens: state.latestUsed === undefined ? Math.max(estimate.output, 1) : 1,
  });
  book.previousStepUsed.set(turn, contextTokens);
  const part = charge === undefined ? finish.part : {
    ...finish.part,
    providerMetadata: {
      ...charge.metadata,
      cursor: { ...finish.part.providerMetadata?.cursor, ...charge.metadata.cursor },
    },
  };
  const delivered = emit(part);
  const record = charge === undefined ? undefined : commitCharge(charge, delivered);
  if (!config.logger.enabled) return;
  const events: DiagnosticEvent[] = turnDiagnostics({
    context,
    finish: finish.event,
    outcome,
    mode,
  });
  if (charge?.turnReal) events.push({ kind: "billing-turn-real", ...charge.turnReal });
  if (record) events.push({ kind: "billing-step", ...record });
  for (const event of events) emitDiagnostic(config.logger, event);
}
