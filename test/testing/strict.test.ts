import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { AgentSkillSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { BidiAppendRequestSchema } from "../../src/gen/aiserver/v1/bidi_pb.ts";
import { ConversationStateStructureSchema } from "../../src/gen/agent/v1/conversation_state_pb.ts";
import { fromBinary } from "@bufbuild/protobuf";
import { encodeEnvelope } from "../../src/protocol/envelope.ts";
import type { RuleName } from "../../src/testing/mod.ts";
import { RULE_NAMES } from "../../src/testing/mod.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import {
  driveTurn,
  newHostState,
  requestContext,
  runRequestBytes,
  type TurnOutcome,
} from "./support/host.ts";
import type { HostBehaviour } from "./support/host-answers.ts";
import {
  type ClientFrame,
  openHttp2Run,
  openSseRun,
  type RawRun,
} from "./support/minimal-client.ts";

const skill = (fullPath: string) => create(AgentSkillSchema, { fullPath, description: "Demo" });

const heartbeat = create(AgentClientMessageSchema, {
  message: { case: "clientHeartbeat", value: {} },
});

/** Keeps the event loop busy, the way a starved or collecting process does. */
function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // nothing runs meanwhile
  }
}

async function endOf(run: RawRun): Promise<ClientFrame> {
  for (;;) {
    const frame = await run.next();
    if (frame.kind !== "message") return frame;
  }
}

describe("strict mode", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ replyDeadlineMs: 300, appendGapTimeoutMs: 200 });
  });
  after(async () => {
    await harness.emulator.close();
  });

  function rules(): RuleName[] {
    return harness.emulator.violations().map((violation) => violation.rule);
  }

  async function expectRunError(
    outcome: TurnOutcome | ClientFrame,
    code: string,
    message?: RegExp,
  ): Promise<void> {
    const end = "kind" in outcome
      ? (outcome.kind === "end" ? outcome.end : undefined)
      : outcome.end;
    assert.equal(end?.ok, false, "the Run ends with an error");
    if (end?.ok === false) {
      assert.equal(end.error.connectCode, code);
      if (message !== undefined) assert.match(end.error.message, message);
    }
    await harness.emulator.idle();
  }

  async function misbehave(
    behaviour: HostBehaviour,
    text = "::shell echo x",
  ): Promise<TurnOutcome> {
    harness.emulator.clear();
    return await driveTurn(harness.target("sse"), newHostState(), { text }, behaviour);
  }

  it("documents every rule", () => {
    assert.ok(RULE_NAMES.length >= 18);
  });

  it("records nothing for a well-behaved client", async () => {
    harness.emulator.clear();
    const outcome = await driveTurn(harness.target("http2"), newHostState(), {
      text: "::shell echo a\n::read README.md\n::ask ok? | yes",
    });
    assert.ok(outcome.turnEnded);
    assert.deepEqual(harness.emulator.violations(), []);
  });

  for (const transport of ["http2", "sse"] as const) {
    it(`records nothing when the process stalls after the client answered (${transport})`, async () => {
      harness.emulator.clear();
      let stalled = false;
      const outcome = await driveTurn(harness.target(transport), newHostState(), {
        text: "::shell echo a\n::read README.md\n::ask ok? | yes",
      }, {
        stopWhen: (message) => {
          // Right after the answer to the first exec goes out, the process stops for longer
          // than the reply deadline (a loaded machine): the overdue timer runs first.
          if (!stalled && message.message.case === "execServerMessage") {
            stalled = true;
            setTimeout(() => blockFor(500), 0);
          }
          return false;
        },
      });
      assert.ok(outcome.turnEnded, JSON.stringify(harness.emulator.violations()));
      assert.deepEqual(harness.emulator.violations(), []);
    });
  }

  it("a Run whose run request never comes ends with deadline_exceeded", async () => {
    harness.emulator.clear();
    const run = openSseRun(harness.target("sse"));
    assert.equal(await run.status, 200);
    await expectRunError(await endOf(run), "deadline_exceeded", /No run_request arrived in time/);
    run.close();
  });

  for (const transport of ["sse", "http2"] as const) {
    it(`a run request sent before the process stalls is on time (${transport})`, async () => {
      harness.emulator.clear();
      const run = transport === "sse"
        ? openSseRun(harness.target("sse"))
        : openHttp2Run(harness.target("http2"));
      // The Run is open on the server (its deadline running) before the request goes out;
      // RunSSE's status is no sign of that on Node, whose server sends headers with the
      // first frame.
      for (let waited = 0; harness.emulator.runs().length === 0; waited += 5) {
        assert.ok(waited < 5_000, "the Run opens");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const sent = run.send(runRequestBytes({ text: "::text hi" }, requestContext()));
      // The process stops for longer than the deadline before the emulator reads the
      // request: its overdue timer runs first.
      blockFor(500);
      await sent;
      const first = await run.next();
      run.close();
      assert.equal(first.kind, "message", JSON.stringify(first));
      if (first.kind === "message") {
        assert.equal(first.message.message.case, "execServerMessage");
      }
      await harness.emulator.idle();
    });
  }

  it("first-message-not-run-request: the first message must be a run request", async () => {
    harness.emulator.clear();
    const run = openHttp2Run(harness.target("http2"));
    await run.send(heartbeat);
    await expectRunError(
      await endOf(run),
      "invalid_argument",
      /First message must be a run request/,
    );
    run.close();
    assert.deepEqual(rules(), ["first-message-not-run-request"]);
    assert.equal(harness.emulator.violations()[0]?.endedRun, true);
  });

  it("conversation-state-missing: conversation state is required", async () => {
    harness.emulator.clear();
    const run = openSseRun(harness.target("sse"));
    const message = create(AgentClientMessageSchema, {
      message: {
        case: "runRequest",
        value: {
          action: { action: { case: "userMessageAction", value: { userMessage: { text: "hi" } } } },
        },
      },
    });
    await run.send(message);
    await expectRunError(await endOf(run), "invalid_argument", /Conversation state is required/);
    run.close();
    assert.deepEqual(rules(), ["conversation-state-missing"]);
  });

  it("records a client cancel_action apart from a dropped stream, and checks its shape", async () => {
    const cancel = (unknownField?: number) => {
      const message = create(AgentClientMessageSchema, {
        message: {
          case: "conversationAction",
          value: { action: { case: "cancelAction", value: {} } },
        },
      });
      if (unknownField !== undefined && message.message.case === "conversationAction") {
        const action = message.message.value.action;
        if (action.case === "cancelAction") {
          action.value.$unknown = [{
            no: unknownField,
            wireType: WireType.Varint,
            data: new BinaryWriter().uint32(1).finish(),
          }];
        }
      }
      return toBinary(AgentClientMessageSchema, message);
    };
    for (const transport of ["sse", "http2"] as const) {
      harness.emulator.clear();
      const cancelled = transport === "sse"
        ? openSseRun(harness.target("sse"))
        : openHttp2Run(harness.target("http2"));
      await cancelled.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()));
      await cancelled.send(cancel());
      await expectRunError(await endOf(cancelled), "canceled", /Canceled by the client/);
      cancelled.close();
      const dropped = openHttp2Run(harness.target("http2"));
      await dropped.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()));
      await new Promise((resolve) => setTimeout(resolve, 50));
      dropped.close();
      await harness.emulator.idle();
      const [first, second] = harness.emulator.runs();
      assert.equal(first?.status, "canceled");
      assert.equal(first?.clientCancel?.reason, "");
      assert.equal(typeof first?.clientCancel?.at, "number");
      assert.equal(second?.status, "canceled");
      assert.equal(second?.clientCancel, undefined, "a dropped stream is no cancel");
      assert.deepEqual(rules(), []);
    }
    harness.emulator.clear();
    const odd = openHttp2Run(harness.target("http2"));
    await odd.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()));
    await odd.send(cancel(7));
    await expectRunError(await endOf(odd), "canceled");
    odd.close();
    assert.deepEqual(rules(), ["cancel-action-malformed"]);
    const known = openHttp2Run(harness.target("http2"));
    harness.emulator.clear();
    await known.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()));
    await known.send(cancel(3));
    await expectRunError(await endOf(known), "canceled");
    known.close();
    assert.deepEqual(rules(), [], "#3 interrupted_pending_tool_call_resolutions is known");
  });

  it("second-run-request and unknown-client-message and undecodable-client-message end the Run", async () => {
    for (
      const [rule, second] of [
        ["second-run-request", runRequestBytes({ text: "again" }, requestContext())],
        [
          "unknown-client-message",
          (() => {
            const message = create(AgentClientMessageSchema);
            message.$unknown = [{
              no: 99,
              wireType: WireType.LengthDelimited,
              data: new BinaryWriter().bytes(new Uint8Array([8, 1])).finish(),
            }];
            return toBinary(AgentClientMessageSchema, message);
          })(),
        ],
        ["undecodable-client-message", new Uint8Array([0xff, 0xff, 0xff, 0xff])],
      ] as const
    ) {
      harness.emulator.clear();
      const run = openHttp2Run(harness.target("http2"));
      await run.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()));
      run.sendRaw(encodeEnvelope(second));
      await expectRunError(await endOf(run), "invalid_argument");
      run.close();
      assert.ok(rules().includes(rule), `${rule} in ${rules().join(",")}`);
    }
  });

  it("reply-deadline-exceeded: an unanswered exec ends the Run with deadline_exceeded", async () => {
    const outcome = await misbehave({ ignoreExecs: true });
    await expectRunError(outcome, "deadline_exceeded");
    assert.deepEqual(rules(), ["reply-deadline-exceeded"]);
  });

  it("reply-deadline-exceeded also covers KV requests", async () => {
    const outcome = await misbehave({ skipKv: true }, "hi");
    await expectRunError(outcome, "deadline_exceeded");
    assert.deepEqual(rules(), ["reply-deadline-exceeded"]);
    assert.equal(outcome.checkpoints.length, 0, "nothing is published over unacknowledged blobs");
  });

  it("duplicate-reply, unknown-reply-id, reply-case-mismatch and stream-close-before-result end the Run", async () => {
    for (
      const [behaviour, rule] of [
        [{ duplicateResults: true }, "duplicate-reply"],
        [{ execIdOffset: 100 }, "unknown-reply-id"],
        [{ wrongResultCase: true }, "reply-case-mismatch"],
        [{ closeBeforeResult: true }, "stream-close-before-result"],
      ] as const
    ) {
      const outcome = await misbehave(behaviour);
      await expectRunError(outcome, "invalid_argument");
      assert.equal(rules()[0], rule);
    }
  });

  it("stream-close-missing: a tool result without stream_close stalls until the deadline", async () => {
    const outcome = await misbehave({ omitStreamClose: true });
    await expectRunError(outcome, "deadline_exceeded");
    assert.deepEqual(rules(), ["stream-close-missing"]);
  });

  it("append-seqno-gap: a skipped seqno that never arrives ends the Run", async () => {
    // Its own emulator whose reply deadline is far away: the Run's blob requests go
    // unanswered here, and under load their 300 ms deadline could otherwise end the Run
    // before the gap is noticed.
    const gap = await startHarness({ replyDeadlineMs: 30_000, appendGapTimeoutMs: 200 });
    try {
      const run = openSseRun(gap.target("sse"));
      await run.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()), { seqno: 0 });
      await run.send(heartbeat, { seqno: 2 });
      await expectRunError(await endOf(run), "invalid_argument", /seqno 1 never arrived/);
      run.close();
      assert.deepEqual(gap.emulator.violations().map((v) => v.rule), ["append-seqno-gap"]);
    } finally {
      await gap.emulator.close();
    }
  });

  it("append-seqno-duplicate: a reused seqno is refused and ends the Run", async () => {
    harness.emulator.clear();
    const run = openSseRun(harness.target("sse"));
    await run.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()), { seqno: 0 });
    const response = await run.send(heartbeat, { seqno: 0 });
    assert.equal(response?.status, 400);
    await expectRunError(await endOf(run), "invalid_argument", /seqno 0 was already received/);
    run.close();
    assert.deepEqual(rules(), ["append-seqno-duplicate"]);
  });

  it("append-hex-invalid: uppercase hex is refused and ends the Run", async () => {
    harness.emulator.clear();
    const run = openSseRun(harness.target("sse"));
    await run.send(runRequestBytes({ text: "::sleep 2000" }, requestContext()));
    const response = await run.send(heartbeat, { encoding: "upper" });
    assert.equal(response?.status, 400);
    await expectRunError(await endOf(run), "invalid_argument", /not lowercase hex/);
    run.close();
    assert.deepEqual(rules(), ["append-hex-invalid"]);
  });

  it("append-hex-invalid: data that is not hex at all is refused", async () => {
    harness.emulator.clear();
    const body = toBinary(
      BidiAppendRequestSchema,
      create(BidiAppendRequestSchema, {
        data: "zz",
        requestId: { requestId: crypto.randomUUID() },
        appendSeqno: 0n,
      }),
    );
    const response = await fetch(`${harness.emulator.url}/aiserver.v1.BidiService/BidiAppend`, {
      method: "POST",
      headers: { "content-type": "application/proto", authorization: `Bearer ${harness.token}` },
      body: new Uint8Array(body),
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /not valid hex/);
    assert.deepEqual(rules(), ["append-hex-invalid"]);
  });

  it("checkpoint-not-issued: an altered checkpoint is recorded; the Run goes on", async () => {
    harness.emulator.clear();
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(harness.target("sse"), state, { text: "one", conversationId });
    const checkpoint = fromBinary(
      ConversationStateStructureSchema,
      first.checkpoints.at(-1) ?? new Uint8Array(),
    );
    checkpoint.readPaths.push("/tampered");
    const altered = toBinary(ConversationStateStructureSchema, checkpoint);
    const second = await driveTurn(harness.target("sse"), state, {
      text: "two",
      conversationId,
      checkpoint: altered,
    });
    assert.ok(second.turnEnded);
    assert.deepEqual(rules(), ["checkpoint-not-issued"]);
    assert.equal(harness.emulator.violations()[0]?.endedRun, false);
  });

  it("agent-skill-invalid: a relative skill path or a missing completeness flag is recorded", async () => {
    harness.emulator.clear();
    const relative = requestContext((context) => {
      context.agentSkills.push(skill("skills/demo/SKILL.md"));
      context.agentSkillsInfoComplete = true;
    });
    const first = await driveTurn(harness.target("sse"), newHostState(), {
      text: "one",
      context: relative,
    });
    assert.ok(first.turnEnded);
    assert.deepEqual(rules(), ["agent-skill-invalid"]);
    assert.match(harness.emulator.violations()[0]?.message ?? "", /"skills\/demo\/SKILL.md"/);
    harness.emulator.clear();
    const incomplete = requestContext((context) => {
      context.agentSkills.push(skill("/p/skill/demo/SKILL.md"));
    });
    await driveTurn(harness.target("sse"), newHostState(), { text: "two", context: incomplete });
    assert.deepEqual(rules(), ["agent-skill-invalid"]);
    harness.emulator.clear();
    const good = requestContext((context) => {
      context.agentSkills.push(skill("/p/skill/demo/SKILL.md"));
      context.agentSkillsInfoComplete = true;
    });
    const third = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::skills",
      context: good,
    });
    assert.deepEqual(rules(), []);
    assert.equal(third.text, "Skills:\n- demo (/p/skill/demo/SKILL.md): Demo");
  });

  it("tool-image-invalid: MCP image content that is no image of its type is recorded", async () => {
    harness.emulator.clear();
    const context = requestContext((c) => {
      const tool = c.tools[0];
      if (tool !== undefined) {
        c.tools.push({ ...tool, name: "mislabeled-image", toolName: "mislabeled-image" });
      }
    });
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::mcp mislabeled-image",
      context,
    });
    assert.ok(outcome.turnEnded);
    assert.deepEqual(rules(), ["tool-image-invalid"]);
    assert.match(
      harness.emulator.violations()[0]?.message ?? "",
      /9 bytes is no image, sent as "image\/png"/,
    );
    assert.match(outcome.text, /\[9 bytes\]/);
  });

  it("blob-hash-mismatch: blob data that does not hash to its id ends the Run", async () => {
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(harness.target("sse"), state, { text: "one", conversationId });
    harness.emulator.clear();
    harness.emulator.forgetServerBlobs(conversationId);
    const second = await driveTurn(harness.target("sse"), state, {
      text: "two",
      conversationId,
      checkpoint: first.checkpoints.at(-1) ?? new Uint8Array(),
    }, { corruptBlobs: true });
    await expectRunError(second, "internal");
    assert.equal(rules()[0], "blob-hash-mismatch");
  });

  it("heartbeat-missing: a silent client is recorded", async () => {
    const quiet = await startHarness({ clientHeartbeatTimeoutMs: 100 });
    try {
      const outcome = await driveTurn(quiet.target("sse"), newHostState(), {
        text: "::sleep 400\n::text ok",
      }, { heartbeatMs: 0 });
      assert.ok(outcome.turnEnded);
      assert.deepEqual(quiet.emulator.violations().map((violation) => violation.rule), [
        "heartbeat-missing",
      ]);
      const again = await driveTurn(quiet.target("sse"), newHostState(), {
        text: "::sleep 400\n::text ok",
      }, { heartbeatMs: 40 });
      assert.ok(again.turnEnded);
      assert.equal(quiet.emulator.violations().length, 1, "a heartbeating client is fine");
    } finally {
      await quiet.emulator.close();
    }
  });

  it("can be turned off, or turned off rule by rule", async () => {
    const lax = await startHarness({ strict: false, replyDeadlineMs: 300 });
    const partial = await startHarness({
      strict: { disable: ["stream-close-missing"] },
      replyDeadlineMs: 300,
    });
    try {
      const upper = await driveTurn(lax.target("sse"), newHostState(), { text: "::shell echo x" }, {
        appendEncoding: "upper",
        omitStreamClose: true,
      });
      assert.ok(upper.turnEnded);
      assert.deepEqual(lax.emulator.violations(), []);
      const noClose = await driveTurn(partial.target("sse"), newHostState(), {
        text: "::shell echo x",
      }, { omitStreamClose: true });
      assert.ok(noClose.turnEnded);
      assert.deepEqual(partial.emulator.violations(), []);
    } finally {
      await lax.emulator.close();
      await partial.emulator.close();
    }
  });
});
