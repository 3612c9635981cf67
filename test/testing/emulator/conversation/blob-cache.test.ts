import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fromBinary } from "@bufbuild/protobuf";
import { ConversationStateStructureSchema } from "../../../../src/gen/agent/v1/conversation_state_pb.ts";
import { hexToBytes } from "../../../../src/core/bytes.ts";
import { type Harness, startHarness, TRANSPORTS } from "../../support/harness.ts";
import { driveTurn, type HostState, newHostState, type TurnOutcome } from "../../support/host.ts";

function checkpointOf(outcome: TurnOutcome): Uint8Array {
  const bytes = outcome.checkpoints.at(-1);
  assert.ok(bytes, "a checkpoint was received");
  return bytes;
}

/** Every blob the client holds, as `pre_fetched_blobs` entries. */
function pushAll(state: HostState): { id: Uint8Array; value: Uint8Array }[] {
  return [...state.blobs.entries()].map(([hex, value]) => ({
    id: hexToBytes(hex) ?? new Uint8Array(0),
    value,
  }));
}

/** Three turns of one conversation; the KV counts of each warm Run. */
async function threeTurns(harness: Harness, transport: "sse" | "http2") {
  const state = newHostState();
  const conversationId = crypto.randomUUID();
  let outcome = await driveTurn(harness.target(transport), state, {
    text: "remember 7",
    conversationId,
  });
  const kv = [];
  for (const text of ["::shell echo two", "and?"]) {
    outcome = await driveTurn(harness.target(transport), state, {
      text,
      conversationId,
      checkpoint: checkpointOf(outcome),
    });
    assert.ok(outcome.turnEnded, `turn ${text} ended`);
    kv.push(harness.emulator.runs().at(-1)?.kv);
  }
  return { outcome, kv, conversationId, state };
}

describe("the server's blob cache", () => {
  let warm: Harness;
  let cold: Harness;
  before(async () => {
    warm = await startHarness();
    cold = await startHarness({ serverBlobCache: false });
  });
  after(async () => {
    await warm.emulator.close();
    await cold.emulator.close();
  });

  for (const transport of TRANSPORTS) {
    it(`a warm server GETs no old blob on a warm continuation and keeps the context (${transport})`, async () => {
      const { outcome, kv } = await threeTurns(warm, transport);
      for (const counts of kv) {
        assert.equal(counts?.gets, 0, "no GET: the server holds every blob it made");
        assert.ok((counts?.cacheHits ?? 0) > 0);
      }
      assert.match(
        outcome.text,
        /History holds 6 message\(s\)/,
        "every earlier turn is in context",
      );
      assert.deepEqual(warm.emulator.violations(), []);
    });

    it(`a cold server GETs every blob it needs on every warm Run (${transport})`, async () => {
      const { outcome, kv } = await threeTurns(cold, transport);
      const [second, third] = kv;
      assert.ok((second?.gets ?? 0) > 0);
      assert.ok((third?.gets ?? 0) > (second?.gets ?? 0), "the history grew, so did the GETs");
      assert.equal(third?.cacheHits, 0);
      assert.match(
        outcome.text,
        /History holds 6 message\(s\)/,
        "every earlier turn is in context",
      );
    });
  }

  it("forgets a conversation's blobs on forgetServerBlobs and after its idle expiry", async () => {
    let now = 1_000_000;
    const clocked = await startHarness({
      now: () => now,
      serverBlobCache: { ttlMs: 60_000 },
    });
    try {
      const state = newHostState();
      const conversationId = crypto.randomUUID();
      let outcome = await driveTurn(clocked.target("sse"), state, { text: "one", conversationId });
      const next = async (text: string) => {
        outcome = await driveTurn(clocked.target("sse"), state, {
          text,
          conversationId,
          checkpoint: checkpointOf(outcome),
        });
        assert.ok(outcome.turnEnded);
        return clocked.emulator.runs().at(-1)?.kv.gets ?? -1;
      };
      now += 59_000;
      assert.equal(await next("two"), 0, "still held inside the expiry");
      now += 61_000;
      assert.ok(await next("three") > 0, "expired: GETs again");
      assert.equal(await next("four"), 0, "held again");
      clocked.emulator.forgetServerBlobs(conversationId);
      assert.ok(await next("five") > 0, "forgotten: GETs again");
    } finally {
      await clocked.emulator.close();
    }
  });

  it("stays within its byte bound, least recently used conversation first", async () => {
    const small = await startHarness({ serverBlobCache: { maxBytes: 6_000 } });
    try {
      const first = { state: newHostState(), id: crypto.randomUUID() };
      const firstTurn = await driveTurn(small.target("sse"), first.state, {
        text: "one",
        conversationId: first.id,
      });
      for (let i = 0; i < 4; i++) {
        await driveTurn(small.target("sse"), newHostState(), {
          text: `other ${"x".repeat(1_500)}`,
          conversationId: crypto.randomUUID(),
        });
        assert.ok(small.emulator.stats().serverBlobBytes <= 6_000);
      }
      await driveTurn(small.target("sse"), first.state, {
        text: "two",
        conversationId: first.id,
        checkpoint: checkpointOf(firstTurn),
      });
      assert.ok((small.emulator.runs().at(-1)?.kv.gets ?? 0) > 0, "the first one was evicted");
    } finally {
      await small.emulator.close();
    }
  });

  it("takes pre_fetched_blobs instead of GETs, each verified", async () => {
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(cold.target("sse"), state, {
      text: "remember 9",
      conversationId,
    });
    const second = await driveTurn(cold.target("sse"), state, {
      text: "and?",
      conversationId,
      checkpoint: checkpointOf(first),
      preFetchedBlobs: pushAll(state),
    });
    assert.match(second.text, /Previously you said: "remember 9"/);
    const run = cold.emulator.runs().at(-1);
    assert.equal(run?.kv.gets, 0);
    const checkpoint = fromBinary(ConversationStateStructureSchema, checkpointOf(first));
    assert.ok(
      (run?.kv.preFetched ?? 0) >=
        checkpoint.rootPromptMessagesJson.length + checkpoint.turns.length,
    );
    assert.equal(run?.variants.preFetchedBlobs, true);
  });

  it("refuses a pre-fetched blob that does not hash to its id", async () => {
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(cold.target("sse"), state, { text: "one", conversationId });
    cold.emulator.clear();
    const pushed = pushAll(state);
    const [victim] = pushed;
    assert.ok(victim);
    victim.value = new Uint8Array([1, 2, 3]);
    const second = await driveTurn(cold.target("http2"), state, {
      text: "two",
      conversationId,
      checkpoint: checkpointOf(first),
      preFetchedBlobs: pushed,
    });
    assert.equal(second.end?.ok, false);
    if (second.end?.ok === false) {
      assert.equal(second.end.error.connectCode, "invalid_argument");
      assert.match(second.end.error.message, /Pre-fetched blob ".{16}" does not hash to its id/);
    }
    assert.equal(second.turnEnded, undefined);
    assert.equal(cold.emulator.runs().at(-1)?.error?.code, "invalid_argument");
    assert.equal(cold.emulator.runs().at(-1)?.kv.gets, 0, "refused before any GET");
  });
});
