/**
 * Carrying a charge in a finish's usage, for hosts that price the usage's tokens at the
 * model's rates (OpenCode 2; OpenCode 1.x when no `copilot.totalNanoAiu` is sent). The
 * finish's input and output totals are fixed (context occupancy, ADR 004); only the split
 * of the input between cache reads and uncached input is synthetic. All input read from
 * the cache is the smallest charge the usage can carry, all input uncached the largest,
 * and each token moved between the two changes the charge by one step.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import type { ChargeCapacity } from "./ledger.ts";
import { nanoAiuPerToken, type TokenRates, type TokenUsage, usageCostNanoAiu } from "./rates.ts";

/**
 * The charges a usage with these totals can carry at these rates.
 *
 * @param rates The rates the host prices the usage with.
 * @param inputTokens The finish's input total.
 * @param outputTokens The finish's output total.
 * @returns The minimum, maximum and step, for the ledger's quotes.
 *
 * @example
 * ```ts
 * import { usageChargeCapacity } from "./usage-charge.ts";
 *
 * const gpt5 = { input: 1.25, cacheWrite: undefined, cacheRead: 0.125, output: 10 };
 * const capacity = usageChargeCapacity(gpt5, 1_000, 1);
 * console.assert(capacity.minNanoAiu === 1_000 * 12_500 + 1_000_000);
 * console.assert(capacity.maxNanoAiu === 1_000 * 125_000 + 1_000_000);
 * console.assert(capacity.quantumNanoAiu === 112_500);
 * ```
 */
export function usageChargeCapacity(
  rates: TokenRates,
  inputTokens: number,
  outputTokens: number,
): Required<ChargeCapacity> {
  const min = usageCostNanoAiu(rates, split(inputTokens, outputTokens, inputTokens));
  const max = usageCostNanoAiu(rates, split(inputTokens, outputTokens, 0));
  const step = nanoAiuPerToken(rates.input) - nanoAiuPerToken(rates.cacheRead);
  return { minNanoAiu: min, maxNanoAiu: Math.max(min, max), quantumNanoAiu: Math.max(1, step) };
}

/**
 * The usage that carries a charge: the input split so the host's price equals it.
 *
 * @param rates The rates the host prices the usage with.
 * @param inputTokens The finish's input total.
 * @param outputTokens The finish's output total.
 * @param chargeNanoAiu A charge quoted with {@link usageChargeCapacity}.
 * @returns The usage to report.
 * @throws {CursorError} `invalid_argument` when the usage cannot carry the charge exactly.
 *
 * @example
 * ```ts
 * import { usageCostNanoAiu } from "./rates.ts";
 * import { usageChargeCapacity, usageForCharge } from "./usage-charge.ts";
 *
 * const gpt5 = { input: 1.25, cacheWrite: undefined, cacheRead: 0.125, output: 10 };
 * const { minNanoAiu, quantumNanoAiu } = usageChargeCapacity(gpt5, 1_000, 1);
 * const charge = minNanoAiu + 400 * quantumNanoAiu;
 * const usage = usageForCharge(gpt5, 1_000, 1, charge);
 * console.assert(usage.cacheReadTokens === 600 && usageCostNanoAiu(gpt5, usage) === charge);
 * ```
 */
export function usageForCharge(
  rates: TokenRates,
  inputTokens: number,
  outputTokens: number,
  chargeNanoAiu: number,
): TokenUsage {
  const { minNanoAiu, maxNanoAiu, quantumNanoAiu } = usageChargeCapacity(
    rates,
    inputTokens,
    outputTokens,
  );
  const uncached = (chargeNanoAiu - minNanoAiu) / quantumNanoAiu;
  if (!Number.isInteger(uncached) || chargeNanoAiu > maxNanoAiu || uncached < 0) {
    throw new CursorError(
      "invalid_argument",
      `Cannot carry a charge of ${chargeNanoAiu} nano-AIU in a usage of ${inputTokens} input and ${outputTokens} output tokens: it carries ${minNanoAiu} to ${maxNanoAiu} in steps of ${quantumNanoAiu}`,
    );
  }
  return split(inputTokens, outputTokens, inputTokens - uncached);
}

function split(inputTokens: number, outputTokens: number, cacheRead: number): TokenUsage {
  return { inputTokens, cacheReadTokens: cacheRead, cacheWriteTokens: 0, outputTokens };
}
