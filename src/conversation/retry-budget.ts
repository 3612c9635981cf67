/**
 * How many times one turn may be retried, sans IO. A turn (one host session, one last
 * user message) gets 10 transport retries and 3 server retries, as Cursor's CLI; the
 * host's own retries of the same turn call the provider again with the same prompt and
 * draw on the same budget. `CURSOR_ENDLESS_RETRIES=1|true` lifts the counts but keeps
 * the 180 s window: retries that follow each other without semantic progress (text,
 * thinking, tool activity, a checkpoint) stop once the first of them is 180 s old.
 *
 * @module
 */

/** Which budget a failure draws on (see {@link retryKindOf}). */
export type RetryKind = "transport" | "server";

/** Transport retries per turn (dropped connections, deadlines, interruptions). */
export const TRANSPORT_RETRY_LIMIT = 10;
/** Server retries per turn (rate limits, unavailable, internal errors). */
export const SERVER_RETRY_LIMIT = 3;
/** How long consecutive retries without semantic progress may go on. */
export const SEMANTIC_STALL_WINDOW_MS = 180_000;
/** Turns remembered at once; the least recently used is forgotten first. */
const REMEMBERED_TURNS = 64;

/** The outcome of asking for a retry. */
export type RetryVerdict =
  | { readonly allowed: true; readonly kind: RetryKind; readonly attempt: number }
  | {
    readonly allowed: false;
    readonly kind: RetryKind;
    readonly reason: "limit" | "stall";
    /** Why, for the final error: no retry words (`exhausted`, `unavailable` …) in it. */
    readonly message: string;
  };

/** The retry budget of one turn. */
export interface RetryBudget {
  /** Retries granted so far, by kind. */
  readonly used: Readonly<Record<RetryKind, number>>;
  /**
   * Asks for one more retry after a failure of `kind`; a granted retry is counted.
   *
   * @param kind Which budget the failure draws on (see {@link retryKindOf}).
   * @returns Whether to retry and, when not, why.
   */
  request(kind: RetryKind): RetryVerdict;
  /** Records semantic progress: the consecutive-stall window starts again. */
  progressed(): void;
  /**
   * Records a retryable failure that reached the host: the host's next call of this turn
   * within {@link HOST_RETRY_WINDOW_MS} is its retry and is counted.
   *
   * @param kind Which budget the failure draws on.
   */
  surfaced(kind: RetryKind): void;
  /**
   * Called when the host calls this turn: counts the call as a retry when a retryable
   * failure reached the host shortly before.
   *
   * @returns `undefined` for an ordinary call, else the verdict on the host's retry.
   */
  hostRetry(): RetryVerdict | undefined;
}

/**
 * How soon after a retryable failure reached the host its next call of the same turn is
 * taken for the host's retry (OpenCode retries within seconds; a person sending the same
 * message again much later is a new attempt).
 */
export const HOST_RETRY_WINDOW_MS = SEMANTIC_STALL_WINDOW_MS;

/** Options for {@link createRetryLedger}. */
export interface RetryLedgerOptions {
  /** The clock (epoch ms). */
  readonly now: () => number;
  /** The process environment; `CURSOR_ENDLESS_RETRIES=1|true` lifts the counts. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The budgets of recent turns, so a host's retry of a turn continues its count. */
export interface RetryLedger {
  /** Retry counts are lifted (`CURSOR_ENDLESS_RETRIES`). */
  readonly endless: boolean;
  /**
   * The budget of a turn, created on first use.
   *
   * @param sessionKey The host session (or conversation) the turn belongs to.
   * @param lastUserMessage The prompt's last user message, serialized (any stable form).
   */
  budgetFor(sessionKey: string, lastUserMessage: string): RetryBudget;
}

/** The codes of a connection that failed without an answer from Cursor's servers. */
const TRANSPORT_CODES: ReadonlySet<string> = new Set(["network", "timeout", "interrupted"]);

/**
 * Which budget a failure draws on, for the turn's own replays, resumes and rebuilds as for
 * the host's retries of the turn (one classifier for both). A failure of the connection
 * with no answer from Cursor's servers (`network`, `timeout`, `interrupted`: a dropped
 * socket, a silent stream, a Run whose stream closed before `turn_ended`) is a transport
 * retry; anything Cursor's servers answered (a Connect code, an HTTP status such as 429 or
 * 503, any other code) is a server retry (TRANSPORT-AUTH §3.5).
 *
 * @param failure The failure's code and Connect code.
 * @returns The budget kind.
 *
 * @example
 * ```ts
 * import { retryKindOf } from "./retry-budget.ts";
 *
 * console.assert(retryKindOf({ code: "network", connectCode: undefined }) === "transport");
 * console.assert(retryKindOf({ code: "interrupted", connectCode: undefined }) === "transport");
 * console.assert(retryKindOf({ code: "timeout", connectCode: "deadline_exceeded" }) === "server");
 * console.assert(retryKindOf({ code: "unavailable", connectCode: undefined }) === "server");
 * ```
 */
export function retryKindOf(
  failure: { readonly code: string; readonly connectCode: string | undefined },
): RetryKind {
  if (failure.connectCode !== undefined) return "server";
  return TRANSPORT_CODES.has(failure.code) ? "transport" : "server";
}

/**
 * Creates the ledger of per-turn retry budgets.
 *
 * @param options Clock and environment.
 * @returns A {@link RetryLedger}.
 *
 * @example
 * ```ts
 * import { createRetryLedger } from "./retry-budget.ts";
 *
 * const ledger = createRetryLedger({ now: Date.now, env: {} });
 * const budget = ledger.budgetFor("session-1", "fix the tests");
 * for (let i = 0; i < 3; i++) console.assert(budget.request("server").allowed);
 * console.assert(!budget.request("server").allowed);
 * // The host retries the same turn: the count goes on.
 * console.assert(!ledger.budgetFor("session-1", "fix the tests").request("server").allowed);
 * ```
 */
export function createRetryLedger(options: RetryLedgerOptions): RetryLedger {
  const endless = isEndless(options.env?.CURSOR_ENDLESS_RETRIES);
  const turns = new Map<string, RetryBudget>();
  return {
    endless,
    budgetFor(sessionKey, lastUserMessage) {
      const key = JSON.stringify([sessionKey, lastUserMessage]);
      const existing = turns.get(key);
      if (existing !== undefined) {
        turns.delete(key);
        turns.set(key, existing);
        return existing;
      }
      const created = createBudget(options.now, endless);
      turns.set(key, created);
      if (turns.size > REMEMBERED_TURNS) {
        const oldest = turns.keys().next().value;
        if (oldest !== undefined) turns.delete(oldest);
      }
      return created;
    },
  };
}

function isEndless(value: string | undefined): boolean {
  const normalized = value?.trim().toLowerCase();
  return normalized === "1" || normalized === "true";
}

function createBudget(now: () => number, endless: boolean): RetryBudget {
  const used: Record<RetryKind, number> = { transport: 0, server: 0 };
  let stallSince: number | undefined;
  let pending: { readonly kind: RetryKind; readonly at: number } | undefined;
  return {
    surfaced(kind) {
      pending = { kind, at: now() };
    },
    hostRetry() {
      const failure = pending;
      pending = undefined;
      if (failure === undefined || now() - failure.at > HOST_RETRY_WINDOW_MS) return undefined;
      return this.request(failure.kind);
    },
    used,
    request(kind) {
      const at = now();
      stallSince ??= at;
      if (at - stallSince >= SEMANTIC_STALL_WINDOW_MS) {
        return {
          allowed: false,
          kind,
          reason: "stall",
          message: `Cursor made no progress on this turn for ${
            Math.round((at - stallSince) / 1000)
          } s of retries; stopped retrying`,
        };
      }
      const limit = kind === "transport" ? TRANSPORT_RETRY_LIMIT : SERVER_RETRY_LIMIT;
      if (!endless && used[kind] >= limit) {
        return {
          allowed: false,
          kind,
          reason: "limit",
          message: `Stopped after ${used[kind]} ${kind} retries of this turn (limit ${limit})`,
        };
      }
      used[kind]++;
      return { allowed: true, kind, attempt: used[kind] };
    },
    progressed() {
      stallSince = undefined;
    },
  };
}
