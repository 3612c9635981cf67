import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { RunActivity } from "../../src/agent-run/run-activity.ts";
import type { TurnCounters } from "../../src/agent-run/run-events.ts";
import { buildFinish, type FinishContext } from "../../src/provider/direct/turn/finish.ts";
import { formatDiagnostic } from "../../src/provider/direct/diagnostics/format.ts";
import { createRunStreamState } from "../../src/provider/direct/turn/run-stream.ts";

const activity: RunActivity = {
  checkpointUpdates: 1,
  tokenDetailUpdates: 1,
  stepsStarted: 1,
  stepsCompleted: 1,
  displayToolCalls: 0,
  execRequests: 0,
  kvGets: 0,
  kvSets: 0,
  visibleOutput: true,
  createPlanInRun: false,
  switchModeInRun: false,
  displayFailures: [],
};

const counters: TurnCounters = {
  inputTokens: 5_000,
  outputTokens: 40,
  cacheReadTokens: 3_000,
  cacheWriteTokens: 150,
  reasoningTokens: 21,
  present: ["input", "output", "cacheRead", "cacheWrite", "reasoning"],
};

function finishLine(
  state: { latestUsed?: number; counters?: TurnCounters },
  context: Partial<FinishContext>,
): string {
  const stream = { ...createRunStreamState(), ...state };
  const { event } = buildFinish(stream, {
    priorUsed: undefined,
    previousStepUsed: undefined,
    activity,
    reason: "stop",
    mode: "occupancy",
    estimate: { input: 0, output: 0 },
    ...context,
  });
  return formatDiagnostic(event);
}

describe("finish: lines, one per usage source", () => {
  it("prints every source with its fields", () => {
    assert.equal(
      finishLine({ latestUsed: 1_200, counters }, { priorUsed: 800 }),
      "finish: reason=stop source=checkpoint-current-run v3In=1199 v3Out=1 v3CacheRead=800 v3CacheWrite=0 rawIn=5000 rawOut=40 rawCacheRead=3000 rawCacheWrite=150 rawReasoning=21 occupancyPrefixCache=800",
    );
    assert.equal(
      finishLine({ counters }, { priorUsed: 800 }),
      "finish: reason=stop source=checkpoint-previous-turn v3In=799 v3Out=1 v3CacheRead=799 v3CacheWrite=0 rawIn=5000 rawOut=40 rawCacheRead=3000 rawCacheWrite=150 rawReasoning=21 occupancyPrefixCache=800",
    );
    assert.equal(
      finishLine({ counters }, {}),
      "finish: reason=stop source=unavailable v3In=0 v3Out=0 v3CacheRead=0 v3CacheWrite=0 rawIn=5000 rawOut=40 rawCacheRead=3000 rawCacheWrite=150 rawReasoning=21 occupancyPrefixCache=0",
    );
    assert.equal(
      finishLine({ latestUsed: 1_500 }, {
        reason: "tool-calls",
        priorUsed: 800,
        previousStepUsed: 1_200,
      }),
      "finish: reason=tool-calls source=occupancy-checkpoint-current-run v3In=1499 v3Out=1 v3CacheRead=800 v3CacheWrite=0 occupancyIn=1499 occupancyCacheRead=1200 occupancyCacheWrite=0",
    );
    assert.equal(
      finishLine({}, { reason: "tool-calls", priorUsed: 800 }),
      "finish: reason=tool-calls source=occupancy-checkpoint-previous-turn v3In=799 v3Out=1 v3CacheRead=799 v3CacheWrite=0 occupancyIn=799 occupancyCacheRead=799 occupancyCacheWrite=0",
    );
    assert.equal(
      finishLine({}, { reason: "tool-calls", estimate: { input: 312, output: 9 } }),
      "finish: reason=tool-calls source=intermediate-zero v3In=0 v3Out=0 v3CacheRead=0 v3CacheWrite=0 estIn=312 estOut=9",
    );
  });

  it("request mode sends Cursor's counters at the Run's end and zero before it", () => {
    assert.equal(
      finishLine({ latestUsed: 1_200, counters }, { priorUsed: 800, mode: "request" }),
      "finish: reason=stop source=checkpoint-current-run v3In=5000 v3Out=40 v3CacheRead=3000 v3CacheWrite=150 rawIn=5000 rawOut=40 rawCacheRead=3000 rawCacheWrite=150 rawReasoning=21 occupancyPrefixCache=800",
    );
    assert.equal(
      finishLine({ latestUsed: 1_500 }, { reason: "tool-calls", priorUsed: 800, mode: "request" }),
      "finish: reason=tool-calls source=occupancy-checkpoint-current-run v3In=0 v3Out=0 v3CacheRead=0 v3CacheWrite=0 occupancyIn=1499 occupancyCacheRead=800 occupancyCacheWrite=0",
    );
  });
});
