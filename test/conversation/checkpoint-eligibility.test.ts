import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { CheckpointEligibility } from "../../src/conversation/checkpoint-eligibility.ts";
import type { RunEvent } from "../../src/agent-run/run-events.ts";
import type { TodoItem } from "../../src/gen/agent/v1/common_pb.ts";
import { ExecServerMessageSchema } from "../../src/gen/agent/v1/exec_pb.ts";
import { InteractionQuerySchema } from "../../src/gen/agent/v1/interaction_query_pb.ts";

const checkpoint = (n: number, todos?: TodoItem[]): RunEvent => ({
  type: "checkpoint",
  bytes: new Uint8Array([n]),
  tokenDetails: undefined,
  todos,
});
const started = (callId: string): RunEvent => ({
  type: "tool-display",
  phase: "started",
  callId,
  tool: "shell",
});
const completed = (callId: string): RunEvent => ({
  type: "tool-display",
  phase: "completed",
  callId,
  tool: "shell",
});
const exec = (toolCallId: string): RunEvent => ({
  type: "exec",
  exec: create(ExecServerMessageSchema, {
    id: 1,
    message: { case: "shellStreamArgs", value: { command: "ls", toolCallId } },
  }),
});
const text: RunEvent = { type: "text-delta", text: "Hi", serverNotice: false };
const eligibleByte = (tracker: CheckpointEligibility) => tracker.eligible?.[0];

describe("checkpoint eligibility", () => {
  it("a checkpoint with no tool work outstanding is the resume point", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe(text);
    tracker.observe(checkpoint(1));
    assert.equal(eligibleByte(tracker), 1);
    assert.equal(tracker.settleFailure(), true);
  });

  it("a drained result's checkpoint is eligible only after Cursor acknowledges the tool", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe(checkpoint(1));
    tracker.observe(started("call_1"));
    tracker.observe(exec("call_1"));
    assert.equal(tracker.eligible, undefined, "the call withdraws the earlier checkpoint");
    tracker.observe(checkpoint(2)); // received while the delivered result drains
    assert.equal(tracker.eligible, undefined);
    assert.equal(tracker.settleFailure(), false, "nothing to resume from");
    tracker.observe(completed("call_1"));
    tracker.observe(checkpoint(3));
    assert.equal(eligibleByte(tracker), 3);
  });

  it("a late pre-result checkpoint never authorises a resume", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe(exec("call_1"));
    tracker.observe(checkpoint(1)); // the staged checkpoint, arriving after the exec
    tracker.observe(completed("call_2")); // another call's acknowledgement
    assert.equal(tracker.eligible, undefined);
    assert.equal(tracker.settleFailure(), false);
  });

  it("parallel calls wait for every acknowledgement", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe(exec("a"));
    tracker.observe(exec("b"));
    tracker.observe(completed("b"));
    tracker.observe(checkpoint(1));
    assert.equal(tracker.eligible, undefined);
    tracker.observe(completed("a"));
    tracker.observe(checkpoint(2));
    assert.equal(eligibleByte(tracker), 2);
  });

  for (
    const [name, query] of [
      ["question", { case: "askQuestionInteractionQuery", value: { toolCallId: "q1" } }],
      ["mode switch", { case: "switchModeRequestQuery", value: { args: { toolCallId: "q1" } } }],
      ["plan", { case: "createPlanRequestQuery", value: { toolCallId: "q1" } }],
    ] as const
  ) {
    it(`a ${name} reply uses the same acknowledgement guard`, () => {
      const tracker = new CheckpointEligibility();
      tracker.observe({ type: "interaction", query: create(InteractionQuerySchema, { query }) });
      tracker.observe(checkpoint(1));
      assert.equal(tracker.eligible, undefined, "the reply is not acknowledged yet");
      tracker.observe(completed("q1"));
      tracker.observe(checkpoint(2));
      assert.equal(eligibleByte(tracker), 2);
    });
  }

  it("a display-only todo mirror does not wait for a completion", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe(checkpoint(1, []));
    assert.equal(eligibleByte(tracker), 1);
  });

  it("a stateful request without a call id blocks every later checkpoint of the Run", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe({
      type: "exec",
      exec: create(ExecServerMessageSchema, {
        id: 1,
        message: { case: "shellStreamArgs", value: {} },
      }),
    });
    tracker.observe(checkpoint(1));
    assert.equal(tracker.eligible, undefined);
  });

  it("checkpoints after turn_ended are terminal, not resume points", () => {
    const tracker = new CheckpointEligibility();
    tracker.observe(checkpoint(1));
    tracker.observe({
      type: "turn-ended",
      counters: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        present: [],
      },
    });
    tracker.observe(checkpoint(2));
    assert.equal(tracker.eligible, undefined);
  });

  it("the resume point survives a resumed attempt that failed untouched (a refused credential)", () => {
    const first = new CheckpointEligibility();
    first.observe(checkpoint(7));
    assert.equal(first.settleFailure(), true);
    const untouched = first.carry();
    assert.equal(eligibleByte(untouched), 7);
    assert.equal(untouched.settleFailure(), true, "no frame: not counted");
    assert.equal(untouched.resumesWithoutCheckpoint, 0);
    assert.equal(eligibleByte(untouched.carry()), 7);
  });

  it("two resumed attempts that stream without saving a checkpoint end the turn", () => {
    const first = new CheckpointEligibility();
    first.observe(checkpoint(1));
    first.settleFailure();
    const second = first.carry();
    second.observe(text);
    assert.equal(second.settleFailure(), true, "one resumed attempt without a checkpoint");
    const third = second.carry();
    third.observe(text);
    assert.equal(third.settleFailure(), false, "the second ends the turn");
    assert.equal(third.resumesWithoutCheckpoint, 2);
  });

  it("a resumed attempt that saves a checkpoint starts the count again", () => {
    const first = new CheckpointEligibility();
    first.observe(checkpoint(1));
    first.settleFailure();
    const second = first.carry();
    second.observe(text);
    second.settleFailure();
    const third = second.carry();
    third.observe(text);
    third.observe(checkpoint(2));
    assert.equal(third.settleFailure(), true);
    assert.equal(third.resumesWithoutCheckpoint, 0);
    assert.equal(eligibleByte(third), 2);
  });
});
