/**
 * Token rates and what a usage costs at them. Money is counted in whole nano-AIU
 * (1 USD = 10^11 nano-AIU, the unit OpenCode 1.x reads from `copilot.totalNanoAiu`), so
 * every rate Cursor publishes (USD per million tokens, at most five decimals) is a whole
 * number of nano-AIU per token and every sum is exact.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

/** Nano-AIU in one US dollar. */
export const NANO_AIU_PER_USD = 100_000_000_000;
/** Tokens a published rate is quoted for. */
export const TOKENS_PER_RATE = 1_000_000;
/** Above this many prompt tokens a model's `over200k` rates apply (Cursor's and OpenCode's threshold). */
export const LONG_CONTEXT_THRESHOLD_TOKENS = 200_000;

/** USD per million tokens, as Cursor publishes them. */
export interface TokenRates {
  /** Uncached input. */
  readonly input: number;
  /** Input written to the prompt cache; `undefined` when Cursor lists none ("-"): billed as input. */
  readonly cacheWrite: number | undefined;
  /** Input read from the prompt cache. */
  readonly cacheRead: number;
  /** Output, reasoning included. */
  readonly output: number;
}

/** One usage in the AI SDK's partition: `inputTokens` includes the cached parts. */
export interface TokenUsage {
  /** All input tokens: uncached, cache read and cache write. */
  readonly inputTokens: number;
  /** Of those, read from the prompt cache. */
  readonly cacheReadTokens: number;
  /** Of those, written to the prompt cache. */
  readonly cacheWriteTokens: number;
  /** Output tokens, reasoning included. */
  readonly outputTokens: number;
}

/**
 * The price of one token at a rate, in nano-AIU.
 *
 * @param usdPerMillion A published rate.
 * @returns Whole nano-AIU per token.
 * @throws {CursorError} `invalid_argument` when the rate is negative, not finite, or finer
 *   than five decimals (it would not be a whole number of nano-AIU).
 *
 * @example
 * ```ts
 * import { nanoAiuPerToken } from "./rates.ts";
 *
 * console.assert(nanoAiuPerToken(0.125) === 12_500);
 * ```
 */
export function nanoAiuPerToken(usdPerMillion: number): number {
  const perToken = usdPerMillion * (NANO_AIU_PER_USD / TOKENS_PER_RATE);
  const whole = Math.round(perToken);
  if (!Number.isFinite(usdPerMillion) || usdPerMillion < 0 || Math.abs(perToken - whole) > 1e-6) {
    throw new CursorError(
      "invalid_argument",
      `Cannot price a token: rate ${
        JSON.stringify(usdPerMillion)
      } USD per million is not a non-negative amount with at most five decimals`,
    );
  }
  return whole;
}

/**
 * What a usage costs at the given rates, in nano-AIU. Negative or fractional token
 * counts are treated as zero or truncated; cached parts larger than the input are capped.
 *
 * @param rates The rates that apply to this request.
 * @param usage The request's tokens.
 * @returns The cost in whole nano-AIU.
 *
 * @example
 * ```ts
 * import { usageCostNanoAiu } from "./rates.ts";
 *
 * const rates = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };
 * const usage = { inputTokens: 1_000, cacheReadTokens: 600, cacheWriteTokens: 0, outputTokens: 100 };
 * // 400 × $3/M + 600 × $0.30/M + 100 × $15/M = $0.00288
 * console.assert(usageCostNanoAiu(rates, usage) === 288_000_000);
 * ```
 */
export function usageCostNanoAiu(rates: TokenRates, usage: TokenUsage): number {
  const input = count(usage.inputTokens);
  const cacheRead = Math.min(count(usage.cacheReadTokens), input);
  const cacheWrite = Math.min(count(usage.cacheWriteTokens), input - cacheRead);
  const uncached = input - cacheRead - cacheWrite;
  return uncached * nanoAiuPerToken(rates.input) +
    cacheRead * nanoAiuPerToken(rates.cacheRead) +
    cacheWrite * nanoAiuPerToken(rates.cacheWrite ?? rates.input) +
    count(usage.outputTokens) * nanoAiuPerToken(rates.output);
}

function count(tokens: number): number {
  return Number.isFinite(tokens) && tokens > 0 ? Math.trunc(tokens) : 0;
}

/**
 * Nano-AIU as US dollars.
 *
 * @param nanoAiu An amount in nano-AIU.
 * @returns The amount in USD.
 *
 * @example
 * ```ts
 * import { nanoAiuToUsd } from "./rates.ts";
 *
 * console.assert(nanoAiuToUsd(250_000_000) === 0.0025);
 * ```
 */
export function nanoAiuToUsd(nanoAiu: number): number {
  return nanoAiu / NANO_AIU_PER_USD;
}
