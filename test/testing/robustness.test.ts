import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { BidiRequestIdSchema } from "../../src/gen/aiserver/v1/bidi_pb.ts";
import { encodeEnvelope } from "../../src/protocol/envelope.ts";
import { parseEndStream } from "../../src/protocol/end-stream.ts";
import { decodeErrorDetail } from "../../src/protocol/error-detail.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import { driveTurn, newHostState } from "./support/host.ts";
import { openHttp2Run } from "./support/minimal-client.ts";

function gcFunction(): (() => void) | undefined {
  const global = globalThis as { gc?: () => void; Bun?: { gc?: (force: boolean) => void } };
  if (typeof global.gc === "function") return global.gc;
  const bunGc = global.Bun?.gc;
  return typeof bunGc === "function" ? () => bunGc(true) : undefined;
}

describe("bad input and load", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  const post = (path: string, type: string, body: BodyInit) =>
    fetch(`${harness.emulator.url}${path}`, {
      method: "POST",
      headers: { "content-type": type, authorization: `Bearer ${harness.token}` },
      body,
    });

  async function connectError(response: Response, status: number, code: string): Promise<string> {
    assert.equal(response.status, status);
    const body = await response.json();
    assert.equal(body.code, code);
    assert.equal(typeof body.message, "string");
    return body.message;
  }

  async function streamError(response: Response, code: string): Promise<string> {
    assert.equal(response.status, 200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(bytes[0], 0x02, "an end-of-stream envelope");
    const end = parseEndStream(bytes.subarray(5), decodeErrorDetail);
    assert.equal(end.ok, false);
    if (end.ok) return "";
    assert.equal(end.error.connectCode, code);
    return end.error.message;
  }

  it("answers garbage unary bodies, wrong content types and unknown JSON fields with clear Connect errors", async () => {
    const models = "/aiserver.v1.AiService/AvailableModels";
    assert.match(
      await connectError(
        await post(models, "application/proto", new Uint8Array([0xff, 0xff, 0xff])),
        400,
        "invalid_argument",
      ),
      /Cannot decode aiserver.v1.AvailableModelsRequest/,
    );
    assert.match(
      await connectError(
        await post(models, "application/json", "{not json"),
        400,
        "invalid_argument",
      ),
      /Cannot decode/,
    );
    assert.match(
      await connectError(
        await post(models, "application/json", JSON.stringify({ bogusField: 1 })),
        400,
        "invalid_argument",
      ),
      /bogusField/,
    );
    assert.match(
      await connectError(await post(models, "text/plain", "hi"), 415, "unknown"),
      /Unsupported content type "text\/plain"/,
    );
    assert.match(
      await connectError(
        await post("/aiserver.v1.Nope/Nothing", "application/json", "{}"),
        404,
        "unimplemented",
      ),
      /No procedure/,
    );
    const get = await fetch(`${harness.emulator.url}${models}`);
    assert.equal(get.status, 405);
    await get.text();
  });

  it("answers garbage, oversized and truncated RunSSE and BidiAppend requests", async () => {
    const runSse = "/agent.v1.AgentService/RunSSE";
    assert.match(
      await streamError(
        await post(runSse, "application/connect+proto", new Uint8Array([1, 2, 3])),
        "invalid_argument",
      ),
      /Cannot decode RunSSE request/,
    );
    const header = new Uint8Array(5);
    new DataView(header.buffer).setUint32(1, 1_000_000, false);
    assert.match(
      await streamError(
        await post(runSse, "application/connect+proto", header),
        "invalid_argument",
      ),
      /exceeds limit/,
    );
    const whole = encodeEnvelope(
      toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId: "r" })),
    );
    assert.match(
      await streamError(
        await post(
          runSse,
          "application/connect+proto",
          new Uint8Array(whole.subarray(0, whole.length - 1)),
        ),
        "invalid_argument",
      ),
      /ended inside an envelope/,
    );
    assert.match(
      await streamError(
        await post(
          runSse,
          "application/connect+proto",
          new Uint8Array(encodeEnvelope(new Uint8Array(0))),
        ),
        "invalid_argument",
      ),
      /no request_id/,
    );
    assert.equal((await post(runSse, "application/json", "{}")).status, 415);
    const append = "/aiserver.v1.BidiService/BidiAppend";
    assert.match(
      await connectError(
        await post(append, "application/proto", new Uint8Array([0xff, 0x01])),
        400,
        "invalid_argument",
      ),
      /Cannot decode BidiAppendRequest/,
    );
    assert.match(
      await connectError(
        await post(append, "application/proto", new Uint8Array(0)),
        400,
        "invalid_argument",
      ),
      /no request_id/,
    );
    const health = await fetch(`${harness.emulator.url}/health`);
    assert.equal(health.status, 200, "the server stays up");
    await health.text();
  });

  it("ends a bidi Run whose frame is oversized or truncated", async () => {
    const oversized = openHttp2Run(harness.target("http2"));
    const header = new Uint8Array(5);
    new DataView(header.buffer).setUint32(1, 64 * 1024 * 1024, false);
    oversized.sendRaw(header);
    const end = await oversized.next();
    assert.equal(
      end.kind === "end" && !end.end.ok ? end.end.error.connectCode : end.kind,
      "resource_exhausted",
    );
    oversized.close();
    const truncated = openHttp2Run(harness.target("http2"));
    truncated.sendRaw(new Uint8Array([0, 0, 0, 0, 9, 1, 2]));
    truncated.endWrite();
    const cut = await truncated.next();
    assert.equal(
      cut.kind === "end" && !cut.end.ok ? cut.end.error.connectCode : cut.kind,
      "invalid_argument",
    );
    assert.match(
      cut.kind === "end" && !cut.end.ok ? cut.end.error.message : "",
      /ended inside an envelope/,
    );
    truncated.close();
  });

  it("completes 50 concurrent Runs and keeps no per-Run state afterwards", async () => {
    // Generous deadlines: this checks completion and clean-up, not speed, and 50 Runs on a
    // loaded 2-core machine can take seconds to answer.
    const loaded = await startHarness({
      replyDeadlineMs: 60_000,
      clientHeartbeatTimeoutMs: 120_000,
      appendGapTimeoutMs: 60_000,
    });
    try {
      const turns = Array.from(
        { length: 50 },
        (_, index) =>
          driveTurn(
            loaded.target(index % 2 === 0 ? "sse" : "http2"),
            newHostState(),
            { text: `::shell echo ${index}` },
            { frameTimeoutMs: 60_000 },
          ),
      );
      const outcomes = await Promise.all(turns);
      outcomes.forEach((outcome, index) => {
        assert.ok(
          outcome.turnEnded,
          `turn ${index} ended (end: ${JSON.stringify(outcome.end)}, closed: ${outcome.closed}, ` +
            `violations: ${JSON.stringify(loaded.emulator.violations())})`,
        );
        assert.match(outcome.text, new RegExp(`exited 0: ${index}\\b`));
      });
      await loaded.emulator.idle();
      const stats = loaded.emulator.stats();
      assert.equal(stats.liveRuns, 0);
      assert.equal(stats.bidiBindings, 0);
      assert.equal(stats.conversations, 50);
      assert.deepEqual(loaded.emulator.violations(), []);
    } finally {
      await loaded.emulator.close();
    }
  });

  const collect = gcFunction();
  it(
    "returns the heap to near its baseline after 50 Runs",
    collect === undefined
      ? { skip: "this runtime exposes no garbage collector to tests (needs --expose-gc)" }
      : {},
    async () => {
      const lean = await startHarness({ log: false, runLimit: 1 });
      try {
        await driveTurn(lean.target("sse"), newHostState(), { text: "warm up" });
        collect?.();
        const baseline = process.memoryUsage().heapUsed;
        await Promise.all(
          Array.from(
            { length: 50 },
            () => driveTurn(lean.target("sse"), newHostState(), { text: "::emit 16kb" }),
          ),
        );
        await lean.emulator.idle();
        collect?.();
        const grown = process.memoryUsage().heapUsed - baseline;
        assert.ok(grown < 16 * 1024 * 1024, `heap grew by ${Math.round(grown / 1024)} KiB`);
        assert.equal(lean.emulator.stats().liveRuns, 0);
      } finally {
        await lean.emulator.close();
      }
    },
  );

  it("bounds what it keeps: conversations, log and run records", async () => {
    const bounded = await startHarness({ conversationLimit: 5, log: { limit: 100 }, runLimit: 10 });
    try {
      await Promise.all(
        Array.from(
          { length: 20 },
          () => driveTurn(bounded.target("sse"), newHostState(), { text: "hi" }),
        ),
      );
      await bounded.emulator.idle();
      const stats = bounded.emulator.stats();
      assert.equal(stats.conversations, 5);
      assert.ok(stats.logEntries <= 100);
      assert.equal(stats.runRecords, 10);
      assert.equal(stats.liveRuns, 0);
      assert.equal(stats.bidiBindings, 0);
      assert.ok(stats.cachedPromptBytes < 5 * 8192);
    } finally {
      await bounded.emulator.close();
    }
  });

  it("closes cleanly with Runs in flight", async () => {
    const closing = await startHarness();
    const pending = driveTurn(closing.target("http2"), newHostState(), { text: "::sleep 5000" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await closing.emulator.close();
    const outcome = await pending;
    assert.equal(
      outcome.end?.ok === false ? outcome.end.error.connectCode : "closed",
      "unavailable",
    );
  });
});
