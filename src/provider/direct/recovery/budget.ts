/**
 * The retry budget of a turn as the direct backend uses it: replays, resumes and rebuilds
 * draw on the budget of the session's turn (its last user message), and a retryable
 * failure that reaches the host marks the host's next call of that turn as its retry,
 * counted against the same 10 transport and 3 server retries.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { CursorError } from "../../../core/cursor-error.ts";
import type { RetryAllowance } from "../../../conversation/recovery-guard.ts";
import { type RetryBudget, retryKindOf } from "../../../conversation/retry-budget.ts";
import type { ProviderConfig } from "../config/provider-config.ts";

/**
 * The replay allowance of a turn, drawn from the shared budget of the session's turn (its
 * last user message), so replays of the host's own retries of that turn count against the
 * same 10 transport and 3 server retries (`CURSOR_ENDLESS_RETRIES` lifts the counts).
 *
 * @param config The provider configuration.
 * @param key The host session.
 * @param prompt The call's prompt.
 * @returns The allowance.
 */
export function turnAllowance(
  config: ProviderConfig,
  key: string | undefined,
  prompt: LanguageModelV3Prompt,
): RetryAllowance {
  const budget = turnBudget(config, key, prompt);
  return { take: (kind) => budget.request(kind).allowed, progressed: () => budget.progressed() };
}

/**
 * The retry budget of the session's turn (its last user message).
 *
 * @param config The provider configuration.
 * @param key The host session.
 * @param prompt The call's prompt.
 * @returns The budget.
 */
export function turnBudget(
  config: ProviderConfig,
  key: string | undefined,
  prompt: LanguageModelV3Prompt,
): RetryBudget {
  const lastUser = [...prompt].reverse().find((message) => message.role === "user");
  return config.retries.budgetFor(key ?? "anonymous", JSON.stringify(lastUser ?? null));
}

/**
 * Notes a retryable failure that reaches the host, so the host's retry of the turn is
 * counted (no session: nothing to count in).
 *
 * @param config The provider configuration.
 * @param key The host session.
 * @param prompt The call's prompt.
 * @param error The failure.
 */
export function surfaceFailure(
  config: ProviderConfig,
  key: string | undefined,
  prompt: LanguageModelV3Prompt,
  error: unknown,
): void {
  if (key === undefined) return;
  const failure = CursorError.from(error);
  if (!failure.retryable || failure.code === "canceled") return;
  turnBudget(config, key, prompt).surfaced(retryKindOf(failure));
}
