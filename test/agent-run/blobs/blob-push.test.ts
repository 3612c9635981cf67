import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { bytesToHex, sha256 } from "../../../src/core/bytes.ts";
import { createMemoryBlobStore } from "../../../src/agent-run/blobs/blob-store.ts";
import {
  MAX_PUSH_BYTES,
  noteRun,
  planBlobPush,
  PROBE_EVERY,
  serverBlobKnowledge,
} from "../../../src/agent-run/blobs/blob-push.ts";

/** A store holding `sizes.length` blobs and a checkpoint-like message referencing them all. */
async function checkpointWithBlobs(sizes: readonly number[]) {
  const blobs = createMemoryBlobStore();
  const fields: number[] = [];
  for (const [index, size] of sizes.entries()) {
    const data = new Uint8Array(size).fill(index + 1);
    const id = await sha256(data);
    blobs.set(bytesToHex(id), data);
    fields.push(0x0a, 32, ...id);
  }
  return { blobs, checkpoint: new Uint8Array(fields) };
}

describe("pushing blobs up front", () => {
  it("pushes nothing while the server holds the conversation", async () => {
    const { blobs, checkpoint } = await checkpointWithBlobs([10, 20]);
    const knowledge = serverBlobKnowledge();
    for (let turn = 0; turn < 5; turn++) {
      assert.deepEqual(planBlobPush(knowledge, checkpoint, blobs), []);
      noteRun(knowledge, { kvGets: 0 }, false);
    }
    assert.equal(knowledge.belief, "holds");
  });

  it("pushes once after a restore, then trusts a Run without GETs", async () => {
    const { blobs, checkpoint } = await checkpointWithBlobs([10, 20]);
    const knowledge = serverBlobKnowledge("unknown");
    const pushed = planBlobPush(knowledge, checkpoint, blobs);
    assert.equal(pushed.length, 2);
    for (const blob of pushed) {
      assert.equal(bytesToHex(await sha256(blob.value)), bytesToHex(blob.id));
    }
    noteRun(knowledge, { kvGets: 0 }, true);
    assert.deepEqual(planBlobPush(knowledge, checkpoint, blobs), []);
    assert.equal(knowledge.belief, "holds");
  });

  it("pushes after a Run with GETs, probing every few turns, and stops once the server holds", async () => {
    const { blobs, checkpoint } = await checkpointWithBlobs([10]);
    const knowledge = serverBlobKnowledge();
    noteRun(knowledge, { kvGets: 3 }, false);
    const decisions: boolean[] = [];
    for (let turn = 0; turn < PROBE_EVERY * 2; turn++) {
      const push = planBlobPush(knowledge, checkpoint, blobs).length > 0;
      decisions.push(push);
      // A server that never keeps anything: GETs whenever nothing was pushed.
      noteRun(knowledge, { kvGets: push ? 0 : 3 }, push);
    }
    assert.equal(decisions.filter((push) => !push).length, 2, decisions.join(","));
    assert.equal(decisions[PROBE_EVERY - 1], false);
    // The server keeps things again: the next probe sees no GET and pushing stops.
    for (let turn = 0; turn < PROBE_EVERY; turn++) {
      const push = planBlobPush(knowledge, checkpoint, blobs).length > 0;
      noteRun(knowledge, { kvGets: 0 }, push);
    }
    assert.deepEqual(planBlobPush(knowledge, checkpoint, blobs), []);
    assert.equal(knowledge.belief, "holds");
  });

  it("keeps a push within its byte bound", async () => {
    const big = MAX_PUSH_BYTES / 2 + 1;
    const { blobs, checkpoint } = await checkpointWithBlobs([big, big, 100]);
    const pushed = planBlobPush(serverBlobKnowledge("unknown"), checkpoint, blobs);
    const bytes = pushed.reduce((sum, blob) => sum + blob.value.length, 0);
    assert.ok(bytes <= MAX_PUSH_BYTES);
    assert.equal(pushed.length, 2, "one large blob and the small one; the rest is left to GETs");
  });
});
