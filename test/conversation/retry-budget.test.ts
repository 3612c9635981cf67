import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import {
  createRetryLedger,
  HOST_RETRY_WINDOW_MS,
  retryKindOf,
  SEMANTIC_STALL_WINDOW_MS,
  SERVER_RETRY_LIMIT,
  TRANSPORT_RETRY_LIMIT,
} from "../../src/conversation/retry-budget.ts";

function ledgerAt(env: Record<string, string> = {}) {
  const clock = { now: 1_000 };
  return { clock, ledger: createRetryLedger({ now: () => clock.now, env }) };
}

function grants(request: () => { allowed: boolean }, times: number): number {
  let granted = 0;
  for (let i = 0; i < times; i++) if (request().allowed) granted++;
  return granted;
}

describe("RetryBudget", () => {
  it("grants 10 transport and 3 server retries per turn, each counted apart", () => {
    const { ledger } = ledgerAt();
    const budget = ledger.budgetFor("s1", "fix the tests");
    assert.equal(grants(() => budget.request("server"), 20), SERVER_RETRY_LIMIT);
    assert.equal(grants(() => budget.request("transport"), 20), TRANSPORT_RETRY_LIMIT);
    const refused = budget.request("server");
    assert.ok(!refused.allowed && refused.reason === "limit");
    assert.match(refused.message, /Stopped after 3 server retries of this turn \(limit 3\)/);
    assert.deepEqual(budget.used, { transport: 10, server: 3 });
  });

  it("counts the host's own retries of the same turn, not those of another turn", () => {
    const { ledger } = ledgerAt();
    assert.equal(grants(() => ledger.budgetFor("s1", "fix").request("server"), 2), 2);
    // The host calls again with the same session and last user message: one left.
    assert.equal(grants(() => ledger.budgetFor("s1", "fix").request("server"), 5), 1);
    assert.equal(grants(() => ledger.budgetFor("s1", "next prompt").request("server"), 5), 3);
    assert.equal(grants(() => ledger.budgetFor("s2", "fix").request("server"), 5), 3);
  });

  it("counts a host call right after a retryable failure reached the host as its retry", () => {
    const { clock, ledger } = ledgerAt();
    const budget = ledger.budgetFor("s1", "fix");
    assert.equal(budget.hostRetry(), undefined, "an ordinary call");
    budget.surfaced("server");
    assert.deepEqual(budget.hostRetry(), { allowed: true, kind: "server", attempt: 1 });
    assert.equal(budget.hostRetry(), undefined, "counted once per surfaced failure");
    budget.surfaced("transport");
    clock.now += HOST_RETRY_WINDOW_MS + 1;
    assert.equal(budget.hostRetry(), undefined, "much later: a new attempt, not a retry");
    assert.deepEqual(budget.used, { transport: 0, server: 1 });
  });

  it("refuses the host's retry once the turn's retries of that kind are spent", () => {
    const { ledger } = ledgerAt();
    const budget = ledger.budgetFor("s1", "fix");
    grants(() => budget.request("server"), SERVER_RETRY_LIMIT);
    budget.surfaced("server");
    const verdict = budget.hostRetry();
    assert.ok(verdict !== undefined && !verdict.allowed && verdict.reason === "limit");
  });

  for (const value of ["1", "true", "TRUE"]) {
    it(`CURSOR_ENDLESS_RETRIES=${value} lifts the counts`, () => {
      const { ledger } = ledgerAt({ CURSOR_ENDLESS_RETRIES: value });
      assert.ok(ledger.endless);
      const budget = ledger.budgetFor("s1", "fix");
      assert.equal(grants(() => budget.request("server"), 50), 50);
    });
  }

  it("does not lift the counts for other values", () => {
    const { ledger } = ledgerAt({ CURSOR_ENDLESS_RETRIES: "yes" });
    assert.ok(!ledger.endless);
  });

  it("stops retries that stall for 180 s without progress, even when endless", () => {
    const { clock, ledger } = ledgerAt({ CURSOR_ENDLESS_RETRIES: "1" });
    const budget = ledger.budgetFor("s1", "fix");
    assert.ok(budget.request("transport").allowed);
    clock.now += SEMANTIC_STALL_WINDOW_MS - 1;
    assert.ok(budget.request("transport").allowed);
    clock.now += 1;
    const refused = budget.request("transport");
    assert.ok(!refused.allowed && refused.reason === "stall", JSON.stringify(refused));
    assert.match(refused.message, /no progress on this turn for 180 s/);
  });

  it("starts the stall window again after semantic progress", () => {
    const { clock, ledger } = ledgerAt({ CURSOR_ENDLESS_RETRIES: "1" });
    const budget = ledger.budgetFor("s1", "fix");
    assert.ok(budget.request("transport").allowed);
    clock.now += SEMANTIC_STALL_WINDOW_MS - 1;
    budget.progressed();
    assert.ok(budget.request("transport").allowed);
    clock.now += SEMANTIC_STALL_WINDOW_MS - 1;
    assert.ok(budget.request("transport").allowed);
  });

  it("draws connection failures on the transport budget and server answers on the server one", () => {
    assert.equal(retryKindOf(new CursorError("network", "Socket closed")), "transport");
    assert.equal(retryKindOf(new CursorError("timeout", "No frame")), "transport");
    assert.equal(retryKindOf(new CursorError("interrupted", "Ended early")), "transport");
    assert.equal(retryKindOf(new CursorError("rate_limited", "Slow down")), "server");
    assert.equal(retryKindOf(new CursorError("unavailable", "Down")), "server");
  });

  it("draws a failure with a Connect code, and an HTTP 503, on the server budget", () => {
    const deadline = new CursorError("timeout", "Deadline", { connectCode: "deadline_exceeded" });
    assert.equal(retryKindOf(deadline), "server");
    const busy = new CursorError("unavailable", "RunSSE failed with HTTP 503", { httpStatus: 503 });
    assert.equal(retryKindOf(busy), "server");
    assert.equal(retryKindOf(new CursorError("internal", "Unexpected failure")), "server");
  });
});
