import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  ConversationStateStructureSchema,
  ConversationTurnStructureSchema,
} from "../../src/gen/agent/v1/conversation_state_pb.ts";
import { bytesToHex, sha256 } from "../../src/core/bytes.ts";
import { type Harness, startHarness, TRANSPORTS } from "./support/harness.ts";
import { driveTurn, lastCheckpoint, newHostState, type TurnOutcome } from "./support/host.ts";

function checkpointOf(outcome: TurnOutcome) {
  const bytes = outcome.checkpoints.at(-1);
  assert.ok(bytes, "a checkpoint was received");
  return bytes;
}

describe("conversation state in the client's blob store", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("references only blobs it SET, each under its SHA-256, and waits for every ack before publishing", async () => {
    const state = newHostState();
    const outcome = await driveTurn(harness.target("sse"), state, { text: "::shell echo a" });
    for (const bytes of outcome.checkpoints) {
      const checkpoint = fromBinary(ConversationStateStructureSchema, bytes);
      for (const id of [...checkpoint.rootPromptMessagesJson, ...checkpoint.turns]) {
        const data = state.blobs.get(bytesToHex(id));
        assert.ok(data, "referenced blob is in the client store");
        assert.equal(bytesToHex(await sha256(data)), bytesToHex(id));
      }
    }
    const run = harness.emulator.runs().at(-1);
    const entries = harness.emulator.log({ runId: run?.runId ?? "" });
    const acked = new Set<string>();
    const sets: string[] = [];
    for (const entry of entries) {
      if (entry.kind === "kv_server_message.set_blob_args") {
        sets.push(entry.summary.split(" ")[0] ?? "");
      }
      if (entry.kind === "kv_client_message.set_blob_result") acked.add(entry.summary);
      if (entry.kind === "conversation_checkpoint_update") {
        for (const id of sets) assert.ok(acked.has(id), `${id} acked before the checkpoint`);
      }
    }
  });

  it("stages a checkpoint with pending tool calls before the exec and settles it after", async () => {
    const outcome = await driveTurn(harness.target("http2"), newHostState(), {
      text: "::shell echo a",
    });
    const kinds = outcome.frames.map((frame) => {
      const top = frame.message;
      if (top.case === "conversationCheckpointUpdate") {
        return top.value.pendingToolCalls.length > 0 ? "staged" : "settled";
      }
      if (top.case === "execServerMessage") return top.value.message.case ?? "";
      if (top.case === "interactionUpdate") return top.value.message.case ?? "";
      return "";
    }).filter((kind) =>
      ["staged", "settled", "shellStreamArgs", "toolCallCompleted", "turnEnded"].includes(kind)
    );
    assert.deepEqual(kinds, [
      "staged",
      "shellStreamArgs",
      "toolCallCompleted",
      "settled",
      "turnEnded",
      "settled",
      "settled",
      "settled",
    ]);
    const staged =
      outcome.frames.flatMap((frame) =>
        frame.message.case === "conversationCheckpointUpdate" &&
          frame.message.value.pendingToolCalls.length > 0
          ? [frame.message.value]
          : []
      )[0];
    assert.match(staged?.pendingToolCalls[0] ?? "", /"toolCallId":"call_[A-Za-z0-9]+_1_0_0"/);
  });

  it("gives the tool calls of two conversations different ids, as Cursor does", async () => {
    const ids: string[] = [];
    for (let conversation = 0; conversation < 2; conversation++) {
      await driveTurn(harness.target("sse"), newHostState(), { text: "::shell echo a" });
      const exec = harness.emulator.runs().at(-1)?.execs
        .find((entry) => entry.requestCase === "shellStreamArgs");
      ids.push(exec?.toolCallId ?? "");
    }
    assert.match(ids[0] ?? "", /^call_[A-Za-z0-9]+_1_0_0$/);
    assert.notEqual(ids[0], ids[1]);
  });

  it("ends successfully with turn_ended, staged, final and repeated final checkpoints, then {}", async () => {
    const outcome = await driveTurn(harness.target("sse"), newHostState(), { text: "hi" });
    const tail = outcome.kinds.slice(outcome.kinds.indexOf("turnEnded"));
    assert.deepEqual(tail.filter((kind) => kind !== "kvServerMessage" && kind !== "heartbeat"), [
      "turnEnded",
      "conversationCheckpointUpdate",
      "conversationCheckpointUpdate",
      "conversationCheckpointUpdate",
    ]);
    assert.deepEqual(
      outcome.checkpoints.at(-1),
      outcome.checkpoints.at(-2),
      "the final checkpoint is repeated byte for byte",
    );
    assert.equal(outcome.end?.ok, true);
    const ended = outcome.turnEnded;
    assert.ok(ended);
    for (
      const counter of [
        ended.inputTokens,
        ended.outputTokens,
        ended.cacheReadTokens,
        ended.cacheWriteTokens,
        ended.reasoningTokens,
      ]
    ) {
      assert.notEqual(counter, undefined, "all five counters are on the wire");
    }
  });

  it("carries token details with the observed category ids summing to the used tokens", async () => {
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "hi",
      modelId: "claude-4.5-sonnet",
      parameters: { thinking: "false", context: "1m" },
      maxMode: true,
    });
    const details = lastCheckpoint(outcome)?.tokenDetails;
    assert.ok(details);
    assert.equal(details.maxTokens, 1_000_000);
    const categories = details.breakdown?.categories ?? [];
    assert.deepEqual(categories.map((c) => c.id), [
      "system_prompt",
      "tools",
      "rules",
      "skills",
      "mcp",
      "subagents",
      "summarized_conversation",
      "conversation",
    ]);
    assert.equal(categories.reduce((sum, c) => sum + c.estimatedTokens, 0), details.usedTokens);
    assert.equal(details.breakdown?.totalUsedTokens, details.usedTokens);
  });

  for (const transport of TRANSPORTS) {
    it(`continues on a cold server by GETting every referenced blob and rebuilding the conversation (${transport})`, async () => {
      const state = newHostState();
      const conversationId = crypto.randomUUID();
      const first = await driveTurn(harness.target(transport), state, {
        text: "remember 7",
        conversationId,
      });
      harness.emulator.forgetServerBlobs(conversationId);
      const second = await driveTurn(harness.target(transport), state, {
        text: "and?",
        conversationId,
        checkpoint: checkpointOf(first),
      });
      assert.match(second.text, /Previously you said: "remember 7"/);
      const run = harness.emulator.runs().at(-1);
      assert.equal(run?.continuity, "warm");
      assert.equal(run?.checkpointSupplied, true);
      assert.equal(run?.variants.checkpointKind, "final");
      const checkpoint = fromBinary(ConversationStateStructureSchema, checkpointOf(first));
      const turn = fromBinary(
        ConversationTurnStructureSchema,
        state.blobs.get(bytesToHex(checkpoint.turns[0] ?? new Uint8Array())) ?? new Uint8Array(),
      );
      const steps = turn.turn.case === "agentConversationTurn" ? turn.turn.value.steps.length : 0;
      assert.equal(
        run?.kv.gets,
        checkpoint.rootPromptMessagesJson.length + checkpoint.turns.length + 1 + steps,
      );
    });
  }

  it("fails like the service when the client cannot serve a blob", async () => {
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(harness.target("sse"), state, { text: "one", conversationId });
    for (const shape of ["empty", "error"] as const) {
      harness.emulator.forgetServerBlobs(conversationId);
      const second = await driveTurn(harness.target("sse"), state, {
        text: "two",
        conversationId,
        checkpoint: checkpointOf(first),
      }, { forgetBlobs: true, blobMissShape: shape });
      assert.equal(second.end?.ok, false);
      if (second.end?.ok === false) {
        assert.equal(second.end.error.connectCode, "internal");
        assert.match(second.end.error.message, /Blob not found/);
        assert.equal(second.end.error.code, "blob_not_found");
      }
      assert.equal(second.turnEnded, undefined);
      assert.equal(harness.emulator.runs().at(-1)?.variants.blobMissShape, shape);
    }
  });

  it("starts cold for a new conversation id and on a first turn", async () => {
    const state = newHostState();
    const first = await driveTurn(harness.target("sse"), state, { text: "one" });
    assert.equal(harness.emulator.runs().at(-1)?.continuity, "cold");
    await driveTurn(harness.target("sse"), state, {
      text: "two",
      conversationId: crypto.randomUUID(),
      checkpoint: checkpointOf(first),
    });
    const run = harness.emulator.runs().at(-1);
    assert.equal(run?.continuity, "cold");
    assert.equal(run?.checkpointSupplied, true);
  });

  it("re-issues a staged tool batch on resume_action and finishes the turn", async () => {
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const broken = await driveTurn(harness.target("sse"), state, {
      text: "::shell echo resumed\n::text after",
      conversationId,
    }, {
      stopWhen: (message) =>
        message.message.case === "execServerMessage" &&
        message.message.value.message.case === "shellStreamArgs",
    });
    await harness.emulator.idle();
    assert.equal(broken.turnEnded, undefined);
    assert.equal(harness.emulator.runs().at(-1)?.status, "canceled");
    const staged = lastCheckpoint(broken);
    assert.equal(staged?.pendingToolCalls.length, 1);
    const issued = harness.emulator.runs().at(-1)?.execs
      .find((exec) => exec.requestCase === "shellStreamArgs")?.toolCallId;
    assert.equal(issued, `call_${conversationId.replaceAll("-", "").slice(0, 8)}_1_0_0`);
    const resumed = await driveTurn(harness.target("sse"), state, {
      action: "resume",
      conversationId,
      checkpoint: checkpointOf(broken),
    });
    assert.ok(resumed.turnEnded);
    assert.match(resumed.text, /after/);
    assert.match(resumed.text, /shell `echo resumed` exited 0: resumed/);
    const run = harness.emulator.runs().at(-1);
    assert.equal(run?.action, "resume_action");
    assert.equal(run?.variants.checkpointKind, "staged");
    const shell = run?.execs.find((exec) => exec.requestCase === "shellStreamArgs");
    assert.equal(shell?.toolCallId, issued, "the same tool call is re-issued");
  });

  it("seeds a new conversation from an inline conversation_history", async () => {
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "continue",
      history: {
        messages: [
          {
            message: {
              case: "user",
              value: {
                content: [{ content: { case: "text", value: { text: "earlier question" } } }],
              },
            },
          },
          {
            message: {
              case: "assistant",
              value: {
                content: [{ content: { case: "text", value: { text: "earlier answer" } } }],
              },
            },
          },
        ],
      },
    });
    assert.match(outcome.text, /Previously you said: "earlier question"/);
  });

  it("accepts client-seeded inline roots and pushes of pre-fetched blobs", async () => {
    const seed = create(ConversationStateStructureSchema, {
      rootPromptMessagesJson: [
        new TextEncoder().encode(JSON.stringify({ role: "system", content: "Custom system" })),
      ],
    });
    const seeded = await driveTurn(harness.target("sse"), newHostState(), {
      text: "hi",
      checkpoint: toBinary(ConversationStateStructureSchema, seed),
    });
    assert.ok(seeded.turnEnded);
    const run = harness.emulator.runs().at(-1);
    assert.equal(run?.variants.rootEntries, "inline");
    assert.deepEqual(harness.emulator.violations(), []);

    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(harness.target("sse"), state, { text: "one", conversationId });
    const preFetchedBlobs = [...state.blobs.entries()].map(([hex, value]) => ({
      id: new Uint8Array(hex.match(/../g)?.map((pair) => Number.parseInt(pair, 16)) ?? []),
      value,
    }));
    await driveTurn(harness.target("sse"), state, {
      text: "two",
      conversationId,
      checkpoint: checkpointOf(first),
      preFetchedBlobs,
    });
    const pushed = harness.emulator.runs().at(-1);
    assert.equal(pushed?.kv.gets, 0);
    assert.equal(pushed?.variants.preFetchedBlobs, true);
  });
});
