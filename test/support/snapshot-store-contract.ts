/**
 * What every versioned snapshot store must do, as one function the store tests call
 * with their own store: whole values round-trip, every write gets a new version, a
 * write continuing from an older version loses, and writers racing from one version
 * produce exactly one winner and no lost update.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import type { ConversationSnapshotStore } from "../../src/snapshot/store.ts";
import { seededRandom } from "./random.ts";

/** Bytes of every value 0–255 in a random order: 700 KB, above Deno KV's 64 KiB values. */
function randomBytes(length: number): Uint8Array {
  const random = seededRandom(length);
  return Uint8Array.from({ length }, () => Math.floor(random() * 256));
}

/** How a test obtains stores: `second` shares `first`'s data through another handle. */
export interface StorePair {
  readonly first: ConversationSnapshotStore;
  readonly second: ConversationSnapshotStore;
}

/** Defines the contract's tests; `pair` is called once per test. */
export function defineSnapshotStoreContract(pair: () => Promise<StorePair> | StorePair): void {
  it("round-trips whole binary values and reports missing keys", async () => {
    const { first, second } = await pair();
    const key = `https://api2.cursor.sh#ses_${crypto.randomUUID()}`;
    assert.deepEqual(await first.read(key), { status: "missing" });
    assert.equal(await first.version?.(key), undefined);
    const bytes = randomBytes(700_000);
    const written = await first.write(key, bytes, { ifVersion: null });
    assert.equal(written?.status, "written");
    const read = await second.read(key);
    assert.equal(read.status, "found");
    if (read.status !== "found" || written?.status !== "written") return;
    assert.deepEqual(read.bytes, bytes);
    assert.equal(read.version, written.version);
    assert.equal(await second.version?.(key), written.version);
    await second.remove(key);
    assert.deepEqual(await first.read(key), { status: "missing" });
  });

  it("refuses a write continuing from an older version and keeps the newer value", async () => {
    const { first, second } = await pair();
    const key = `ses_${crypto.randomUUID()}`;
    const v1 = await first.write(key, new Uint8Array([1]), { ifVersion: null });
    assert.equal(v1?.status, "written");
    const base = v1?.status === "written" ? v1.version ?? null : null;
    assert.notEqual(base, null, "a versioned store names the version it wrote");
    const v2 = await second.write(key, new Uint8Array([2]), { ifVersion: base });
    assert.equal(v2?.status, "written");
    assert.notEqual(v2?.status === "written" ? v2.version : undefined, base);
    assert.deepEqual(await first.write(key, new Uint8Array([3]), { ifVersion: base }), {
      status: "conflict",
    });
    assert.deepEqual(await first.write(key, new Uint8Array([4]), { ifVersion: null }), {
      status: "conflict",
    });
    const read = await first.read(key);
    assert.equal(read.status, "found");
    assert.deepEqual(read.status === "found" ? [...read.bytes] : [], [2]);
  });

  it("loses no update when two writers increment one value concurrently", async () => {
    const { first, second } = await pair();
    const key = `ses_${crypto.randomUUID()}`;
    const increments = async (store: ConversationSnapshotStore, times: number) => {
      let won = 0;
      let conflicts = 0;
      while (won < times) {
        const read = await store.read(key);
        const current = read.status === "found" ? new DataView(read.bytes.buffer).getUint32(0) : 0;
        const next = new Uint8Array(4);
        new DataView(next.buffer).setUint32(0, current + 1);
        const ifVersion = read.status === "found" ? read.version ?? null : null;
        const result = await store.write(key, next, { ifVersion });
        if (result?.status === "conflict") conflicts++;
        else won++;
      }
      return conflicts;
    };
    const [a, b] = await Promise.all([increments(first, 25), increments(second, 25)]);
    const read = await first.read(key);
    assert.equal(read.status, "found");
    const total = read.status === "found" ? new DataView(read.bytes.buffer).getUint32(0) : 0;
    assert.equal(total, 50, `every increment counted (${a + b} conflicts retried)`);
  });
}
