import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, startHarness, TRANSPORTS } from "../../support/harness.ts";
import { driveTurn, newHostState, type TurnOutcome } from "../../support/host.ts";
import { ERROR_PRESETS } from "../../../../src/testing/mod.ts";
import { openHttp2Run, openSseRun } from "../../support/minimal-client.ts";

function endError(outcome: TurnOutcome) {
  assert.equal(outcome.end?.ok, false, "the Run ended with an error end-of-stream");
  return outcome.end?.ok === false ? outcome.end.error : undefined;
}

describe("faults on demand", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });
  const turn = (transport: "sse" | "http2", text = "::shell echo x", extra = {}) =>
    driveTurn(harness.target(transport), newHostState(), { text, ...extra });

  for (const transport of TRANSPORTS) {
    it(`drops the stream after N frames (${transport})`, async () => {
      harness.emulator.faults.next({ kind: "drop", afterFrames: 3 });
      const outcome = await turn(transport);
      assert.equal(outcome.frames.length, 3);
      assert.equal(outcome.closed, true);
      assert.equal(outcome.end, undefined);
      await harness.emulator.idle();
      const run = harness.emulator.runs().at(-1);
      assert.equal(run?.status, "dropped");
      assert.deepEqual(run?.faults, ["drop", "drop at frame 3"]);
    });

    it(`answers the opening request with an HTTP status (${transport})`, async () => {
      harness.emulator.faults.next({ kind: "http-status", status: 503 });
      const run = transport === "sse"
        ? openSseRun(harness.target("sse"))
        : openHttp2Run(harness.target("http2"));
      assert.equal(await run.status, 503);
      run.close();
    });

    it(`closes at once with no frames for a wrong region (${transport})`, async () => {
      harness.emulator.faults.next({ kind: "wrong-region" });
      const run = transport === "sse"
        ? openSseRun(harness.target("sse"))
        : openHttp2Run(harness.target("http2"));
      assert.equal(await run.status, 200);
      assert.equal((await run.next()).kind, "closed");
      run.close();
    });
  }

  it("stalls without frames, then carries on", async () => {
    harness.emulator.faults.next({ kind: "stall", ms: 400, afterFrames: 1 });
    const outcome = await turn("sse", "hi");
    assert.ok(outcome.turnEnded);
    const gap = (outcome.times[1] ?? 0) - (outcome.times[0] ?? 0);
    assert.ok(gap >= 350, `gap ${gap} ms`);
    assert.equal(outcome.kinds.slice(0, 2).includes("heartbeat"), false);
  });

  it("stalls with heartbeats only", async () => {
    const fast = await startHarness({ heartbeatIntervalMs: 50 });
    try {
      fast.emulator.faults.next({ kind: "stall", ms: 300, heartbeats: true, afterFrames: 1 });
      const outcome = await driveTurn(fast.target("http2"), newHostState(), { text: "hi" });
      assert.ok(outcome.turnEnded);
      const during = outcome.kinds.slice(1, outcome.kinds.indexOf("stepStarted"));
      assert.ok(
        during.filter((kind) => kind === "heartbeat").length >= 3,
        `saw ${during.join(",")}`,
      );
    } finally {
      await fast.emulator.close();
    }
  });

  for (const [name, preset] of Object.entries(ERROR_PRESETS)) {
    it(`ends with the ${name} error preset`, async () => {
      harness.emulator.faults.next(name);
      const error = endError(await turn("sse", "hi"));
      assert.equal(error?.connectCode, preset.code);
      if (preset.detail !== undefined) assert.equal(error?.detail?.error, preset.detail.error);
      if (preset.retryAfterMs !== undefined) assert.equal(error?.retryAfterMs, preset.retryAfterMs);
      const run = harness.emulator.runs().at(-1);
      assert.equal(run?.status, "error");
      assert.equal(run?.error?.code, preset.code, "the Run's record names the injected error");
    });
  }

  it("classifies quota, rate limit and bad model the way the client library does", async () => {
    harness.emulator.faults.next("quota");
    assert.equal(endError(await turn("sse", "hi"))?.code, "usage_limit");
    harness.emulator.faults.next("rate-limit");
    const limited = endError(await turn("sse", "hi"));
    assert.equal(limited?.code, "rate_limited");
    assert.equal(limited?.retryable, true);
    harness.emulator.faults.next("bad-model");
    assert.equal(endError(await turn("sse", "hi"))?.code, "bad_model");
  });

  it("sends GOAWAY on the HTTP/2 session", async () => {
    harness.emulator.faults.next({ kind: "goaway", afterFrames: 2 });
    const outcome = await turn("http2");
    assert.equal(outcome.frames.length, 2);
    assert.equal(outcome.closed, true);
    assert.ok(outcome.closeError !== undefined || outcome.end === undefined);
  });

  it("resets the HTTP/2 stream with RST_STREAM", async () => {
    harness.emulator.faults.next({ kind: "rst-stream", afterFrames: 2 });
    const outcome = await turn("http2");
    assert.equal(outcome.frames.length, 2);
    assert.equal(outcome.closed, true);
    assert.match(String(outcome.closeError), /RST_STREAM|NGHTTP2_CANCEL|stream|cancel/i);
  });

  it("treats GOAWAY and RST_STREAM as a dropped connection over RunSSE", async () => {
    harness.emulator.faults.next({ kind: "rst-stream", afterFrames: 2 });
    const outcome = await turn("sse");
    assert.equal(outcome.frames.length, 2);
    assert.equal(outcome.closed, true);
  });

  it("misses a blob: the Run fails with internal Blob not found", async () => {
    harness.emulator.faults.next({ kind: "blob-miss" });
    const error = endError(await turn("sse", "hi"));
    assert.equal(error?.connectCode, "internal");
    assert.match(error?.message ?? "", /Blob not found/);
    assert.equal(harness.emulator.runs().at(-1)?.kv.misses, 1);
  });

  it("sends a malformed frame, then carries on", async () => {
    harness.emulator.faults.next({ kind: "malformed-frame", afterFrames: 2 });
    const outcome = await turn("sse", "hi");
    assert.equal(outcome.undecodable, 1);
    assert.ok(outcome.turnEnded);
  });

  it("announces an oversized frame the client must refuse", async () => {
    harness.emulator.faults.next({ kind: "oversized-frame", afterFrames: 1 });
    const outcome = await turn("http2", "hi");
    assert.equal(outcome.closed, true);
    assert.match(String(outcome.closeError), /exceeds limit/);
  });

  it("sends an AgentServerMessage case the schema does not have", async () => {
    harness.emulator.faults.next({ kind: "unknown-message", fieldNumber: 99, afterFrames: 1 });
    const outcome = await turn("sse", "hi");
    const unknown = outcome.frames.find((frame) => frame.message.case === undefined);
    assert.deepEqual(unknown?.$unknown?.map((field) => field.no), [99]);
    assert.ok(outcome.turnEnded);
  });

  it("targets faults by conversation, by request id and at the next N Runs", async () => {
    const target = crypto.randomUUID();
    harness.emulator.faults.forConversation(target, "unavailable");
    assert.ok((await turn("sse", "other conversation")).turnEnded);
    assert.equal(
      endError(await turn("sse", "mine", { conversationId: target }))?.connectCode,
      "unavailable",
    );
    const requestId = crypto.randomUUID();
    harness.emulator.faults.forRequest(requestId, "internal");
    assert.ok((await turn("sse", "not this request")).turnEnded);
    assert.equal(
      endError(await turn("http2", "this request", { requestId }))?.connectCode,
      "internal",
    );
    harness.emulator.faults.next("canceled", 2);
    assert.equal(endError(await turn("sse", "1"))?.connectCode, "canceled");
    assert.equal(endError(await turn("sse", "2"))?.connectCode, "canceled");
    assert.ok((await turn("sse", "3")).turnEnded);
    assert.deepEqual(harness.emulator.faults.pending(), []);
    assert.throws(
      () => harness.emulator.faults.forConversation("x", { kind: "wrong-region" }),
      /before the conversation is known/,
    );
    assert.throws(
      () => harness.emulator.faults.next("no-such-preset"),
      /Unknown fault preset "no-such-preset"/,
    );
  });

  it("triggers faults from the directive language", async () => {
    const dropped = await turn("sse", "::text before\n::fault drop\n::text after");
    assert.match(dropped.text, /before/);
    assert.doesNotMatch(dropped.text, /after/);
    assert.equal(dropped.closed, true);
    assert.equal(
      endError(await turn("sse", "::fault rate-limit"))?.connectCode,
      "resource_exhausted",
    );
    assert.equal(endError(await turn("sse", "::fault blob-miss"))?.connectCode, "internal");
  });
});
