/**
 * What the direct backend's turn paths share: a call read once with its model and prompt,
 * the inputs its Runs are prepared from, and the context every pass's stream is given.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { Conversation } from "../../../conversation/conversation-store.ts";
import type { CallRequest } from "../call/call-request.ts";
import type { ConvertedPrompt } from "../call/convert-prompt.ts";
import type { ModelSelection } from "../call/model-options.ts";
import type { TurnPlan } from "../turn-plan/turn-plan.ts";
import { planHandoff } from "./plan-handoff.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { surfaceFailure, type turnAllowance } from "../recovery/budget.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import type { StartFacts } from "../turn-types.ts";
import type { RunInputs } from "../run/run-opener.ts";
import type { TurnStreamContext } from "../run/turn-stream.ts";

/** What a held Run's diagnostics say when it never recorded how it started. */
export const WARM_UNKNOWN: StartFacts = {
  continuity: "warm",
  coldReason: undefined,
  requestContext: "reused",
  requestContextHash: "unknown",
  systemPromptHash: "unknown",
  systemPromptSent: false,
};

/** A call read once, with its model and the prompt a new Run would send. */
export interface CallInputs {
  readonly request: CallRequest;
  readonly selection: ModelSelection;
  readonly converted: ConvertedPrompt;
}

/**
 * What a Run of this call is prepared from.
 *
 * @param inputs The call, its model and prompt.
 * @param plan The turn's plan, when there is one.
 * @returns The run inputs.
 */
export function runInputs(inputs: CallInputs): Omit<RunInputs, "plan">;
export function runInputs(inputs: CallInputs, plan: TurnPlan): RunInputs;
export function runInputs(
  inputs: CallInputs,
  plan?: TurnPlan,
): Omit<RunInputs, "plan"> | RunInputs {
  const { request } = inputs;
  return {
    ...(plan === undefined ? {} : { plan }),
    selection: inputs.selection,
    tools: request.tools,
    options: request.options,
    cursorOptions: request.cursorOptions,
    key: request.key,
    converted: inputs.converted,
  };
}

/** A started turn: its stream and what was sent. */
export interface StartedTurn {
  readonly stream: ReadableStream<LanguageModelV3StreamPart>;
  readonly requestBody: Record<string, unknown>;
}

/** The stream context of a pass without its recovery hook and diagnostics. */
export type PassStreamContext =
  & Omit<TurnStreamContext, "recover" | "diagnostics" | "surfaced">
  & { readonly surfaced: (error: unknown) => void };

/**
 * What every pass's stream needs besides its recovery hook and diagnostics.
 *
 * @param config The provider configuration.
 * @param inputs What the call's Runs are prepared from.
 * @param turn The turn the pass streams.
 * @param conversation The session's conversation (none for ephemeral turns).
 * @param holdKey The key a held Run is filed under.
 * @param allowance The turn's retry allowance.
 * @returns The context, without `recover` and `diagnostics`.
 */
export function streamContext(
  config: ProviderConfig,
  inputs: Omit<RunInputs, "plan" | "executePlan">,
  turn: ActiveTurn,
  conversation: Conversation<ActiveTurn> | undefined,
  holdKey: string,
  allowance: ReturnType<typeof turnAllowance>,
): PassStreamContext {
  const { options, key, cursorOptions } = inputs;
  return {
    turn,
    config,
    conversation,
    holdKey,
    prompt: options.prompt,
    tools: inputs.tools,
    abortSignal: options.abortSignal,
    usageMode: cursorOptions.usage,
    handoff: planHandoff(config, inputs, () => conversation),
    progressed: () => allowance.progressed?.(),
    surfaced: (error: unknown) => surfaceFailure(config, key, options.prompt, error),
  };
}
