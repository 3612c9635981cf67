/**
 * The recovery policy as a table: one row per case the recovery tests drive through the
 * emulator (the test each row stands for is named in its comment), plus the guards no
 * emulator test reaches, each asserting the decision the policy takes from the facts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  decideRecovery,
  type RecoveryDecision,
  type RecoveryFacts,
  resumeApplies,
} from "../../src/provider/direct/recovery/policy.ts";

const DROP = { code: "network", retryable: true, retryAfterMs: undefined, connectCode: undefined };
const UNAVAILABLE = { ...DROP, code: "unavailable", connectCode: "unavailable" };
/** An HTTP/2 stream closed under the Run ("Cannot send: the Run's stream is closed"). */
const CLOSED = { ...DROP, code: "interrupted" };
const QUOTA = {
  ...DROP,
  code: "rate_limited",
  retryable: false,
  connectCode: "resource_exhausted",
};
const NO_CHECKPOINT = { eligible: false, resumedAttempt: false, allowsResume: false };
const SETTLED = { eligible: true, resumedAttempt: false, allowsResume: true };

/** A turn started by a user message whose Run failed before anything stateful. */
const FRESH: RecoveryFacts = {
  failure: DROP,
  attempt: 0,
  origin: "user-message",
  aborted: false,
  rebuilt: false,
  conversationKnown: true,
  requestContextKnown: true,
  checkpoint: NO_CHECKPOINT,
  pumpPasses: 1,
  runBarrier: undefined,
  passBarrier: undefined,
  shown: false,
  resultsComplete: true,
  missingLocalState: false,
};

/** A held Run that took the host's results and broke before showing anything new. */
const HELD: RecoveryFacts = { ...FRESH, origin: "held-run", pumpPasses: 2, runBarrier: "exec" };

/** The decision, reduced to what each row asserts. */
type Expected =
  | { action: "resume" | "replay" | "rebuild"; kind: string; delayMs: number; refused: string }
  | { action: "final"; reason: string; barrier?: string; error: string };

function summary(decision: RecoveryDecision): Expected {
  const ending = (error: Extract<RecoveryDecision, { action: "final" }>["error"]) =>
    error.with === "failure"
      ? "failure"
      : error.with === "spent"
      ? `spent ${error.kind}`
      : `barrier ${error.barrier}`;
  if (decision.action !== "final") {
    return {
      action: decision.action,
      kind: decision.kind,
      delayMs: decision.delayMs,
      refused: ending(decision.refused.error),
    };
  }
  return {
    action: "final",
    reason: decision.reason,
    ...(decision.barrier === undefined ? {} : { barrier: decision.barrier }),
    error: ending(decision.error),
  };
}

const ROWS: ReadonlyArray<readonly [string, RecoveryFacts, Expected]> = [
  // fault-matrix.test.ts, "drop before the first text: replayed once" (SSE: `network`).
  ["fresh drop, nothing shown", FRESH, {
    action: "replay",
    kind: "transport",
    delayMs: 0,
    refused: "spent transport",
  }],
  // fault-matrix.test.ts, "drop after the first text: replayed once" (HTTP/2: `interrupted`,
  // a transport retry like any connection lost without an answer).
  ["fresh HTTP/2 stream closed after text", { ...FRESH, failure: CLOSED, shown: true }, {
    action: "replay",
    kind: "transport",
    delayMs: 0,
    refused: "spent transport",
  }],
  // fault-matrix.test.ts, "error code=unavailable after the first text: replayed once".
  ["fresh unavailable after text", { ...FRESH, failure: UNAVAILABLE, shown: true }, {
    action: "replay",
    kind: "server",
    delayMs: 0,
    refused: "spent server",
  }],
  // fault-matrix.test.ts, "a persistent unavailable makes 1 + 3 Runs": the fourth failure
  // asks for a fourth server retry, which the allowance refuses ("server retries are spent").
  ["fresh unavailable, fourth failure", { ...FRESH, failure: UNAVAILABLE, attempt: 3 }, {
    action: "replay",
    kind: "server",
    delayMs: 2000,
    refused: "spent server",
  }],
  // fault-matrix.test.ts, "quota …: final" and "error code=invalid_argument …: final".
  ["fresh quota", { ...FRESH, failure: QUOTA }, {
    action: "final",
    reason: "not-retryable",
    error: "failure",
  }],
  // fault-matrix-partial-frame.test.ts, "ends the turn with a final partial-frame error".
  ["fresh partial frame", { ...FRESH, failure: { ...DROP, code: "protocol", retryable: false } }, {
    action: "final",
    reason: "not-retryable",
    error: "failure",
  }],
  // shared-budget.test.ts, "a failure with a server retry delay goes back to the host".
  ["fresh retry delay over the inline wait", {
    ...FRESH,
    failure: { ...UNAVAILABLE, retryAfterMs: 1000 },
  }, { action: "final", reason: "retry-after", error: "failure" }],
  // shared-budget.test.ts, "each host retry of a retryable failure counts" and
  // fault-matrix-tools.test.ts, "… after an exec request: final".
  ["fresh failure after an exec request", { ...FRESH, failure: UNAVAILABLE, runBarrier: "exec" }, {
    action: "final",
    reason: "replay-barrier",
    barrier: "exec",
    error: "failure",
  }],
  // resume-interactions.test.ts, "a drop before the question reply was acknowledged does
  // not resume": the open interaction kept the checkpoint from being eligible.
  ["fresh drop past a checkpoint that is not eligible", { ...FRESH, runBarrier: "checkpoint" }, {
    action: "final",
    reason: "replay-barrier",
    barrier: "checkpoint",
    error: "failure",
  }],
  // Guard: a fresh turn's Run that already took tool results is never replayed.
  ["fresh Run past its first pass", { ...FRESH, pumpPasses: 2 }, {
    action: "final",
    reason: "replay-barrier",
    barrier: "tool-results",
    error: "failure",
  }],
  // stop-cancels-run.test.ts, "mid-stream: the emulator sees cancel_action".
  ["fresh call aborted", { ...FRESH, aborted: true }, {
    action: "final",
    reason: "aborted",
    error: "failure",
  }],
  // resume.test.ts, "drop after the settled checkpoint: resumed in the same conversation".
  ["fresh drop after an eligible checkpoint", {
    ...FRESH,
    checkpoint: SETTLED,
    runBarrier: "checkpoint",
    shown: true,
  }, { action: "resume", kind: "transport", delayMs: 0, refused: "spent transport" }],
  // resume.test.ts, "a resumed attempt refused for its credential keeps the checkpoint and
  // resumes": the resumed attempt fails and resumes again, after the back-off.
  ["fresh resumed attempt fails again", {
    ...FRESH,
    attempt: 1,
    checkpoint: { eligible: true, resumedAttempt: true, allowsResume: true },
    runBarrier: "checkpoint",
  }, { action: "resume", kind: "transport", delayMs: 500, refused: "spent transport" }],
  // resume.test.ts, "two resumed attempts that stream without a checkpoint end the turn".
  ["fresh second resume without a checkpoint", {
    ...FRESH,
    attempt: 2,
    checkpoint: { eligible: true, resumedAttempt: true, allowsResume: false },
    runBarrier: "checkpoint",
    shown: true,
  }, { action: "final", reason: "resume-refused", error: "failure" }],
  // Guard: a resume waits inline no longer than a replay does.
  ["fresh resume with a long retry delay", {
    ...FRESH,
    failure: { ...UNAVAILABLE, retryAfterMs: 1000 },
    checkpoint: SETTLED,
  }, { action: "final", reason: "retry-after", error: "failure" }],
  // rebuild.test.ts, "drop at tool-result: rebuilt from host history".
  ["held drop while a result drains", HELD, {
    action: "rebuild",
    kind: "transport",
    delayMs: 0,
    refused: "failure",
  }],
  // rebuild.test.ts, "error code=unavailable at tool-ack: rebuilt from host history".
  ["held unavailable after the tool ack", { ...HELD, failure: UNAVAILABLE }, {
    action: "rebuild",
    kind: "server",
    delayMs: 0,
    refused: "failure",
  }],
  // fault-matrix-tools.test.ts, "drop after the settled checkpoint: resumed".
  ["held drop after the settled checkpoint", { ...HELD, checkpoint: SETTLED }, {
    action: "resume",
    kind: "transport",
    delayMs: 0,
    refused: "spent transport",
  }],
  // fault-matrix-barriers.test.ts, "new text after the results" and "new reasoning after
  // the results": final for the host too (its retry would answer the step twice).
  ["held drop after new text", { ...HELD, shown: true }, {
    action: "final",
    reason: "rebuild-barrier",
    barrier: "shown",
    error: "barrier shown",
  }],
  // fault-matrix-barriers.test.ts, "a late pre-result checkpoint, then new text".
  ["held drop past a late checkpoint and new text", {
    ...HELD,
    passBarrier: "checkpoint",
    shown: true,
  }, { action: "final", reason: "rebuild-barrier", barrier: "shown", error: "barrier shown" }],
  // fault-matrix-barriers.test.ts, "a new tool request after the results".
  ["held drop after a new exec request", { ...HELD, passBarrier: "exec" }, {
    action: "final",
    reason: "rebuild-barrier",
    barrier: "unrepresented",
    error: "barrier unrepresented",
  }],
  // Guard: a result the host did not return cannot be rebuilt.
  ["held drop with a result missing", { ...HELD, resultsComplete: false }, {
    action: "final",
    reason: "rebuild-barrier",
    barrier: "results-missing",
    error: "barrier results-missing",
  }],
  // Guard: a held Run lost with its request or isolate is rebuilt, though not retryable.
  ["held Run without its process-local state", {
    ...HELD,
    failure: { ...DROP, code: "internal", retryable: false },
    missingLocalState: true,
  }, { action: "rebuild", kind: "server", delayMs: 0, refused: "failure" }],
  // Guard: a non-retryable failure of a held pass ends as it is (no barrier verdict).
  ["held quota after new text", { ...HELD, failure: QUOTA, shown: true }, {
    action: "final",
    reason: "not-retryable",
    error: "failure",
  }],
  // Guard: without the session's conversation nothing is rebuilt.
  ["held turn without a conversation", { ...HELD, conversationKnown: false }, {
    action: "final",
    reason: "no-conversation",
    error: "failure",
  }],
  // Guard: a refused resume of a held pass past a barrier is final for the host too.
  ["held second resume without a checkpoint, text shown", {
    ...HELD,
    checkpoint: { eligible: true, resumedAttempt: true, allowsResume: false },
    shown: true,
  }, { action: "final", reason: "resume-refused", error: "barrier shown" }],
  // Guard: a resume needs the request context the resumed Run sends.
  ["held resume without a request context", {
    ...HELD,
    checkpoint: SETTLED,
    requestContextKnown: false,
  }, { action: "final", reason: "no-request-context", error: "failure" }],
  // stop-cancels-run.test.ts, "mid-tool: the held Run is cancelled": an aborted call ends
  // as it is, whatever was shown.
  ["held call aborted", { ...HELD, aborted: true }, {
    action: "final",
    reason: "aborted",
    error: "failure",
  }],
  ["held call aborted after new text", { ...HELD, aborted: true, shown: true }, {
    action: "final",
    reason: "rebuild-barrier",
    barrier: "shown",
    error: "failure",
  }],
  // Guard: the rebuilt Run fails in turn: replayed like a fresh one, no second rebuild.
  ["held turn already rebuilt", { ...HELD, rebuilt: true, pumpPasses: 1, runBarrier: undefined }, {
    action: "replay",
    kind: "transport",
    delayMs: 0,
    refused: "spent transport",
  }],
  // Guard: the rebuilt Run past a barrier, after new text: final for the host too.
  ["held turn already rebuilt, past a checkpoint", {
    ...HELD,
    rebuilt: true,
    pumpPasses: 1,
    runBarrier: "checkpoint",
    shown: true,
  }, { action: "final", reason: "replay-barrier", barrier: "checkpoint", error: "barrier shown" }],
];

describe("recovery policy", () => {
  for (const [name, facts, expected] of ROWS) {
    it(name, () => {
      assert.deepEqual(summary(decideRecovery(facts)), expected);
    });
  }

  it("reports replay safety as the Run interrupted line has it", () => {
    assert.equal(decideRecovery(FRESH).replaySafe, true);
    assert.equal(decideRecovery({ ...FRESH, runBarrier: "exec" }).replaySafe, false);
    assert.equal(decideRecovery({ ...FRESH, aborted: true }).replaySafe, true);
    const refusedResume = { eligible: true, resumedAttempt: true, allowsResume: false };
    assert.equal(decideRecovery({ ...FRESH, checkpoint: refusedResume }).replaySafe, false);
    assert.equal(decideRecovery({ ...HELD, shown: true }).replaySafe, false);
  });

  it("asks the checkpoint tracker only when a resume could follow", () => {
    assert.equal(resumeApplies(FRESH), false);
    assert.equal(resumeApplies({ ...FRESH, checkpoint: SETTLED }), true);
    assert.equal(
      resumeApplies({ ...FRESH, checkpoint: { ...NO_CHECKPOINT, resumedAttempt: true } }),
      true,
    );
    assert.equal(resumeApplies({ ...HELD, checkpoint: SETTLED, conversationKnown: false }), false);
    assert.equal(resumeApplies({ ...HELD, checkpoint: SETTLED, rebuilt: true }), false);
  });
});
