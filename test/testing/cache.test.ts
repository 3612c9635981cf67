import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { toBinary } from "@bufbuild/protobuf";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { sha256Hex } from "../../src/core/bytes.ts";
import {
  accountPrompt,
  commonPrefixLength,
  estimateTokens,
} from "../../src/testing/emulator/conversation/prompt-cache.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import {
  driveTurn,
  type HostState,
  newHostState,
  requestContext,
  type TurnOutcome,
} from "./support/host.ts";
import type { RunRecord } from "../../src/testing/mod.ts";

async function conversation(
  harness: Harness,
  texts: string[],
  perTurn: (
    index: number,
  ) => { conversationId?: string; context?: ReturnType<typeof requestContext> } = () => ({}),
): Promise<RunRecord[]> {
  const state: HostState = newHostState();
  const conversationId = crypto.randomUUID();
  let previous: TurnOutcome | undefined;
  for (const [index, text] of texts.entries()) {
    const checkpoint = previous?.checkpoints.at(-1);
    previous = await driveTurn(harness.target("sse"), state, {
      text,
      conversationId,
      ...(checkpoint ? { checkpoint } : {}),
      ...perTurn(index),
    });
    assert.ok(previous.turnEnded);
  }
  return harness.emulator.runs().slice(-texts.length);
}

describe("emulated prompt cache", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("estimates tokens as ceil(bytes / 4) and reads whole tokens of the common prefix", () => {
    assert.equal(estimateTokens(0), 0);
    assert.equal(estimateTokens(1), 1);
    assert.equal(estimateTokens(8), 2);
    assert.equal(estimateTokens(9), 3);
    const previous = new TextEncoder().encode("abcdefghij");
    const prompt = new TextEncoder().encode("abcdefghijklmnop");
    assert.equal(commonPrefixLength(prompt, previous), 10);
    assert.deepEqual(accountPrompt(prompt, previous, 10), {
      promptTokens: 4,
      cacheRead: 2,
      cacheWrite: 2,
      uncached: 0,
      idealCacheRead: 2,
    });
    assert.deepEqual(accountPrompt(prompt, undefined, 0), {
      promptTokens: 4,
      cacheRead: 0,
      cacheWrite: 4,
      uncached: 0,
      idealCacheRead: 0,
    });
    assert.deepEqual(accountPrompt(prompt, previous, 10, 100), {
      promptTokens: 4,
      cacheRead: 0,
      cacheWrite: 0,
      uncached: 4,
      idealCacheRead: 0,
    });
  });

  it("reads the ideal amount when a client continues warm with a byte-identical request context", async () => {
    const runs = await conversation(harness, ["one", "::shell echo two", "three"]);
    assert.equal(runs[0]?.idealCacheRead, 0);
    for (const run of runs.slice(1)) {
      assert.equal(run.continuity, "warm");
      assert.ok(run.idealCacheRead > 0);
      assert.equal(run.counters.cacheRead, run.idealCacheRead);
    }
    for (const run of runs) {
      assert.equal(run.counters.input, run.counters.cacheRead + run.counters.cacheWrite);
      assert.equal(
        run.counters.input,
        run.modelCalls.reduce((sum, call) => sum + call.promptTokens, 0),
      );
    }
  });

  it("loses cache reads when the request context bytes change between turns", async () => {
    const runs = await conversation(harness, ["one", "two"], (index) => ({
      context: requestContext((context) => {
        if (context.env !== undefined) context.env.timeZone = index === 0 ? "UTC" : "Europe/Paris";
      }),
    }));
    const second = runs[1];
    assert.ok(second);
    assert.notEqual(runs[0]?.requestContextSha256, second.requestContextSha256);
    assert.ok(
      second.counters.cacheRead < second.idealCacheRead / 2,
      `read ${second.counters.cacheRead} of ideal ${second.idealCacheRead}`,
    );
  });

  it("reads nothing on the first call when the conversation id changes, though the ideal is not zero", async () => {
    const runs = await conversation(
      harness,
      ["one", "two"],
      () => ({ conversationId: crypto.randomUUID() }),
    );
    const second = runs[1];
    assert.equal(second?.continuity, "cold");
    assert.equal(second?.modelCalls[0]?.cacheRead, 0);
    assert.ok((second?.idealCacheRead ?? 0) > 0);
  });

  it("hashes the request context the client answered with", async () => {
    const context = requestContext();
    await driveTurn(harness.target("sse"), newHostState(), { text: "hash", context });
    const run = harness.emulator.runs().at(-1);
    assert.equal(
      run?.requestContextSha256,
      await sha256Hex(toBinary(RequestContextSchema, context)),
    );
    assert.equal(run?.requestContextBytes, toBinary(RequestContextSchema, context).length);
  });

  it("remembers a bounded number of conversations (least recently used forgotten)", async () => {
    const small = await startHarness({ conversationLimit: 2 });
    try {
      const state = newHostState();
      const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      const checkpoints: Uint8Array[] = [];
      for (const conversationId of ids) {
        const outcome = await driveTurn(small.target("sse"), state, { text: "hi", conversationId });
        checkpoints.push(outcome.checkpoints.at(-1) ?? new Uint8Array());
      }
      assert.equal(small.emulator.stats().conversations, 2);
      await driveTurn(small.target("sse"), state, {
        text: "again",
        conversationId: ids[0] ?? "",
        checkpoint: checkpoints[0] ?? new Uint8Array(),
      });
      const evicted = small.emulator.runs().at(-1);
      assert.equal(evicted?.continuity, "cold");
      assert.equal(evicted?.counters.cacheRead, 0);
      assert.equal(
        small.emulator.violations().length,
        1,
        "its checkpoint is no longer recognised either",
      );
    } finally {
      await small.emulator.close();
    }
  });
});
