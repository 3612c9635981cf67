import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, startHarness } from "./support/harness.ts";
import { driveTurn, newHostState } from "./support/host.ts";

describe("observability", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("logs every RPC and decoded message with direction, Run id and time", async () => {
    harness.emulator.clear();
    await driveTurn(harness.target("sse"), newHostState(), { text: "::shell echo logged" });
    const run = harness.emulator.runs()[0];
    assert.ok(run);
    const entries = harness.emulator.log({ runId: run.runId });
    assert.ok(
      entries.some((entry) => entry.direction === "client" && entry.kind === "run_request"),
    );
    assert.ok(
      entries.some((entry) =>
        entry.direction === "server" && entry.kind === "exec_server_message.shell_stream_args"
      ),
    );
    assert.ok(
      entries.some((entry) =>
        entry.direction === "client" && entry.kind === "exec_client_message.shell_stream" &&
        entry.message !== undefined
      ),
    );
    assert.ok(
      entries.every((entry, index) => index === 0 || entry.seq > (entries[index - 1]?.seq ?? 0)),
    );
    assert.ok(entries.every((entry) => typeof entry.time === "number"));
    const http = harness.emulator.log({ direction: "http" });
    assert.ok(
      http.some((entry) =>
        entry.rpc === "/aiserver.v1.BidiService/BidiAppend" && entry.kind === "POST 200"
      ),
    );
    assert.equal(harness.emulator.log({ kind: "interaction_update.turn_ended" }).length, 1);
  });

  it("prints a readable transcript", async () => {
    harness.emulator.clear();
    await driveTurn(harness.target("http2"), newHostState(), { text: "transcribe me" });
    const text = harness.emulator.transcript({ runId: harness.emulator.runs()[0]?.runId ?? "" });
    assert.match(text, /C→S Run run_request user_message_action conversation=\S+ "transcribe me"/);
    assert.match(
      text,
      /S→C Run interaction_update\.turn_ended in=\d+ out=\d+ cache_read=\d+ cache_write=\d+ reasoning=\d+/,
    );
    assert.match(text, /S→C Run end_stream \{\}/);
  });

  it("records per Run: conversation, transport, continuity, counters, ideal cache read, execs and variants", async () => {
    harness.emulator.clear();
    const conversationId = crypto.randomUUID();
    const state = newHostState();
    const first = await driveTurn(harness.target("sse"), state, {
      text: "::shell echo v",
      conversationId,
    }, {
      appendEncoding: "binary",
      shellTerminal: "exit+shell_result",
      closeRequestContext: true,
    });
    await driveTurn(harness.target("http2"), state, {
      text: "next",
      conversationId,
      checkpoint: first.checkpoints.at(-1) ?? new Uint8Array(),
    }, {
      shellTerminal: "shell_result",
    });
    await driveTurn(harness.target("sse"), newHostState(), { text: "::shell echo only" }, {
      shellTerminal: "shell_result",
    });
    const [one, two, three] = harness.emulator.runs();
    assert.equal(one?.conversationId, conversationId);
    assert.equal(one?.transport, "sse");
    assert.equal(one?.continuity, "cold");
    assert.equal(one?.userText, "::shell echo v");
    assert.equal(one?.turn, 1);
    assert.equal(one?.status, "ok");
    assert.equal(one?.turnEnded, true);
    assert.equal(one?.variants.appendEncoding, "binary");
    assert.equal(one?.variants.shellTerminal, "exit+shell_result");
    assert.equal(one?.variants.requestContextStreamClose, true);
    assert.equal(one?.variants.requestIdHeaderMatches, true);
    assert.equal(one?.requestContextSha256.length, 64);
    assert.deepEqual(
      one?.execs.map((exec) => [exec.requestCase, exec.resultCase, exec.streamClosed]),
      [
        ["requestContextArgs", "requestContextResult", false],
        ["shellStreamArgs", "exit", true],
      ],
    );
    assert.equal(two?.transport, "http2");
    assert.equal(two?.continuity, "warm");
    assert.equal(two?.turn, 2);
    assert.ok((two?.idealCacheRead ?? 0) > 0);
    assert.equal(two?.counters.cacheRead, two?.idealCacheRead);
    assert.equal(three?.variants.shellTerminal, "shell_result");
    assert.match(three?.execs[1]?.resultCase ?? "", /shell_result/);
    assert.ok((one?.kv.sets ?? 0) > 0);
    assert.ok((one?.checkpoints ?? 0) >= 5);
    assert.deepEqual(harness.emulator.violations(), []);
  });

  it("filters runs and returns snapshots", async () => {
    harness.emulator.clear();
    await driveTurn(harness.target("http2"), newHostState(), { text: "filter" });
    assert.equal(harness.emulator.runs({ transport: "sse" }).length, 0);
    const [snapshot] = harness.emulator.runs({ transport: "http2", status: "ok" });
    assert.ok(snapshot);
    snapshot.userText = "changed";
    assert.equal(harness.emulator.runs()[0]?.userText, "filter");
  });
});
