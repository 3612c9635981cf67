import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ConversationActionSchema } from "../../src/gen/agent/v1/conversation_action_pb.ts";
import { AgentRunRequestSchema } from "../../src/gen/agent/v1/run_request_pb.ts";
import { AgentMode } from "../../src/gen/agent/v1/common_pb.ts";
import { encodeRunRequestMessage } from "../../src/protocol/run-request-bytes.ts";
import { type Harness, startHarness } from "../testing/support/harness.ts";
import { driveTurn, newHostState, requestContext } from "../testing/support/host.ts";

/** The tool execs of the last Run (the request-context probe left out). */
function toolExecs(harness: Harness): string[] {
  return (harness.emulator.runs().at(-1)?.execs ?? []).map((e) => e.requestCase).filter((c) =>
    c !== "requestContextArgs"
  );
}

type Action = NonNullable<MessageInitShape<typeof ConversationActionSchema>["action"]>;

function rawRequest(conversationId: string, action: Action, checkpoint?: Uint8Array): Uint8Array {
  const request = create(AgentRunRequestSchema, {
    action: { action },
    requestedModel: { modelId: "composer-1", maxMode: false, parameters: [] },
    conversationId,
  });
  return encodeRunRequestMessage(request, checkpoint ?? new Uint8Array(0));
}

function message(text: string, mode: AgentMode): Action {
  return {
    case: "userMessageAction",
    value: {
      userMessage: { text, messageId: crypto.randomUUID(), mode },
      requestContext: requestContext(),
    },
  };
}

describe("the emulator's modes and plans", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ replyDeadlineMs: 2_000 });
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("runs an accepted plan as an agent-mode build turn on execute_plan_action", async () => {
    harness.emulator.clear();
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const planned = await driveTurn(harness.target("sse"), state, {
      rawRunRequest: rawRequest(conversationId, message("::plan Notes: ::ls .", AgentMode.PLAN)),
    });
    assert.match(planned.text, /plan "Notes": accepted at file:\/\/\/ws\/plan\.md/);
    assert.equal(harness.emulator.runs().at(-1)?.mode, "plan");
    const built = await driveTurn(harness.target("sse"), state, {
      rawRunRequest: rawRequest(conversationId, {
        case: "executePlanAction",
        value: {
          requestContext: requestContext(),
          planFileUri: "file:///ws/plan.md",
          planFileContent: "::ls .",
        },
      }, planned.checkpoints.at(-1)),
    });
    assert.equal(built.end?.ok, true);
    const run = harness.emulator.runs().at(-1);
    assert.equal(run?.action, "execute_plan_action");
    assert.equal(run?.mode, "agent");
    assert.deepEqual(toolExecs(harness), ["lsArgs"]);
    assert.match(run?.userText ?? "", /^Implement the plan Notes \(file:\/\/\/ws\/plan\.md\)/);
    assert.deepEqual(harness.emulator.violations(), []);
  });

  it("ends an execute_plan_action naming no accepted plan (execute-plan-unknown)", async () => {
    harness.emulator.clear();
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      rawRunRequest: rawRequest(crypto.randomUUID(), {
        case: "executePlanAction",
        value: { requestContext: requestContext(), planFileUri: "file:///ws/other.md" },
      }),
    });
    await harness.emulator.idle();
    assert.deepEqual(harness.emulator.violations().map((v) => v.rule), ["execute-plan-unknown"]);
    assert.equal(outcome.end?.ok, false);
    if (outcome.end?.ok === false) {
      assert.equal(outcome.end.error.connectCode, "failed_precondition");
    }
  });

  it("changes no file in plan mode, and an approved switch leaves it", async () => {
    harness.emulator.clear();
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const planning = await driveTurn(harness.target("sse"), state, {
      rawRunRequest: rawRequest(conversationId, message("::write a.txt hi", AgentMode.PLAN)),
    });
    assert.match(planning.text, /write: not available in plan mode/);
    assert.deepEqual(toolExecs(harness), []);
    await driveTurn(harness.target("sse"), state, {
      rawRunRequest: rawRequest(
        conversationId,
        message("::mode agent build it\n::write a.txt hi", AgentMode.PLAN),
        planning.checkpoints.at(-1),
      ),
    });
    const run = harness.emulator.runs().at(-1);
    assert.equal(run?.mode, "agent");
    assert.deepEqual(toolExecs(harness), ["readArgs", "writeArgs"]);
    assert.deepEqual(harness.emulator.violations(), []);
  });
});
