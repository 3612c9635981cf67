/**
 * The Durable Object snapshot store in real workerd (miniflare): the store runs in a
 * Worker, the object in its Durable Object. The store contract through two Workers (two
 * isolates) on both storage backends, racing writers, the 24 h lifetime (the object's
 * clock, its alarm), namespacing, the size bounds of the client and of the object,
 * corrupt stored values and a binding to the wrong class.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createDurableObjectSnapshotStore } from "../../../src/adapters/cloudflare/snapshot-durable-object-store.ts";
import { defineSnapshotStoreContract } from "../../support/snapshot-store-contract.ts";
import { startStoreHarness, type StoreHarness } from "../../support/workerd/store-harness.ts";
import { seededRandom } from "../../support/random.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a test object says of its storage. */
interface ObjectStorage {
  readonly keys: string[];
  readonly alarm: number | null;
  readonly now: number;
}

/** Rejects with the store's error: this code, exactly this message. */
function storeError(code: string, message: string | RegExp) {
  return (error: Error & { code?: string }) => {
    assert.equal(error.code, code);
    if (typeof message === "string") assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  };
}

describe("Durable Object snapshot store (real workerd)", () => {
  let harness: StoreHarness;
  before(async () => {
    harness = await startStoreHarness();
  });
  after(async () => {
    await harness?.close();
  });
  const storage = async (name: string) =>
    await harness.object("CLOCKED", name, "/test/storage") as ObjectStorage;

  describe("contract, SQLite-backed objects", () => {
    defineSnapshotStoreContract(() => ({
      first: harness.store("store", "SNAPSHOTS"),
      second: harness.store("peer", "SNAPSHOTS"),
    }));
  });

  describe("contract, KV-backed objects (128 KiB values)", () => {
    defineSnapshotStoreContract(() => ({
      first: harness.store("store", "SNAPSHOTS_KV"),
      second: harness.store("peer", "SNAPSHOTS_KV"),
    }));
  });

  it("lets exactly one of two writers continuing from one version win, every round", async () => {
    const a = harness.store("store", "SNAPSHOTS");
    const b = harness.store("peer", "SNAPSHOTS");
    const key = `ses_race_${crypto.randomUUID()}`;
    const first = await a.write(key, new Uint8Array([0]), { ifVersion: null });
    let base = first.status === "written" ? first.version ?? null : null;
    for (let round = 1; round <= 15; round++) {
      const [fromA, fromB] = await Promise.all([
        a.write(key, new Uint8Array([round, 1]), { ifVersion: base }),
        b.write(key, new Uint8Array([round, 2]), { ifVersion: base }),
      ]);
      const outcomes = [fromA.status, fromB.status].sort();
      assert.deepEqual(outcomes, ["conflict", "written"], `round ${round}`);
      const winner = fromA.status === "written" ? fromA : fromB;
      const read = await b.read(key);
      assert.equal(read.status, "found");
      if (read.status !== "found" || winner.status !== "written") return;
      assert.deepEqual([...read.bytes], [round, fromA.status === "written" ? 1 : 2]);
      assert.equal(read.version, winner.version);
      base = winner.version ?? null;
    }
  });

  it("stores a 16 MiB snapshot whole (more chunks than one storage call takes)", async () => {
    const store = harness.store("store", "SNAPSHOTS_KV");
    const random = seededRandom(16);
    const bytes = Uint8Array.from({ length: 16 * 1024 * 1024 }, () => random() * 256);
    const written = await store.write("ses_16mib", bytes, { ifVersion: null });
    assert.equal(written.status, "written");
    const read = await harness.store("peer", "SNAPSHOTS_KV").read("ses_16mib");
    assert.equal(read.status, "found");
    assert.ok(read.status === "found" && Buffer.from(read.bytes).equals(Buffer.from(bytes)));
    await assert.rejects(
      store.write("ses_16mib", new Uint8Array(16 * 1024 * 1024 + 1)),
      storeError(
        "invalid_argument",
        `A snapshot of ${16 * 1024 * 1024 + 1} bytes exceeds the store's bound of ${
          16 * 1024 * 1024
        } bytes`,
      ),
    );
  });

  it("files each conversation in the object named after the prefix and the key", async () => {
    const app1 = harness.store("store", "CLOCKED", { prefix: "app1:snap:" });
    await app1.write("ses_ns", new Uint8Array([1, 2]));
    const named = await storage("app1:snap:ses_ns");
    assert.equal(named.keys.length, 2, JSON.stringify(named));
    assert.ok(named.keys.includes("head"));
    assert.deepEqual((await storage("app2:snap:ses_ns")).keys, []);
    const app2 = harness.store("peer", "CLOCKED", { prefix: "app2:snap:" });
    assert.deepEqual(await app2.read("ses_ns"), { status: "missing" }, "prefixes never mix");
    assert.equal(await app2.version("ses_ns"), undefined);
    await app1.remove("ses_ns");
    const removed = await storage("app1:snap:ses_ns");
    assert.deepEqual([removed.keys, removed.alarm], [[], null], "removed with its alarm");
  });

  it("expires a value 24 h after its last write, on the object's clock", async () => {
    const store = harness.store("store", "CLOCKED");
    const name = "cursor-snapshot:ses_ttl";
    const written = await store.write("ses_ttl", new Uint8Array([7]), { ifVersion: null });
    const before = await storage(name);
    assert.ok(before.alarm !== null && Math.abs(before.alarm - (before.now + DAY_MS)) < 60_000);
    await harness.object("CLOCKED", name, "/test/clock", String(DAY_MS - 60_000));
    assert.equal((await store.read("ses_ttl")).status, "found", "a minute before the expiry");
    await harness.object("CLOCKED", name, "/test/clock", String(DAY_MS + 60_000));
    assert.equal(await store.version("ses_ttl"), undefined);
    assert.deepEqual(await store.read("ses_ttl"), { status: "missing" });
    assert.deepEqual((await storage(name)).keys, [], "the read past the expiry deleted it");
    // Nothing newer exists: a writer continuing from the expired version may write.
    const base = written.status === "written" ? written.version ?? null : null;
    const again = await store.write("ses_ttl", new Uint8Array([8]), { ifVersion: base });
    assert.equal(again.status, "written");
  });

  it("renews the expiry with each write and lets the alarm delete the value", async () => {
    const store = harness.store("store", "CLOCKED");
    const name = "cursor-snapshot:ses_alarm";
    await store.write("ses_alarm", new Uint8Array(300_000));
    const long = await storage(name);
    assert.ok(long.alarm !== null && long.alarm - long.now > DAY_MS - 60_000);
    await harness.store("store", "CLOCKED", { ttlMs: 400 }).write("ses_alarm", new Uint8Array(5));
    const short = await storage(name);
    assert.ok(short.alarm !== null && short.alarm - short.now <= 400, JSON.stringify(short));
    assert.equal(short.keys.length, 2, "the replaced value's chunks are gone");
    const deadline = Date.now() + 15_000;
    let left = short.keys;
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = (await storage(name)).keys;
    }
    assert.deepEqual(left, [], "the alarm deleted the expired value");
    assert.deepEqual(await store.read("ses_alarm"), { status: "missing" });
  });

  it("refuses a snapshot above the client's bound, keeping the old value", async () => {
    const store = harness.store("store", "SNAPSHOTS", { maxValueBytes: 1024 });
    await store.write("ses_big", new Uint8Array(10));
    await assert.rejects(
      store.write("ses_big", new Uint8Array(2048)),
      storeError(
        "invalid_argument",
        "A snapshot of 2048 bytes exceeds the store's bound of 1024 bytes",
      ),
    );
    const read = await store.read("ses_big");
    assert.equal(read.status === "found" ? read.bytes.length : -1, 10);
  });

  it("says how to fix a client bound above the object's, keeping the old value", async () => {
    const store = harness.store("store", "SMALL");
    await store.write("ses_small", new Uint8Array(1024));
    await assert.rejects(
      store.write("ses_small", new Uint8Array(2048)),
      storeError(
        "invalid_argument",
        "A snapshot of 2048 bytes exceeds the snapshot Durable Object's bound of 1024 bytes: lower the store's maxValueBytes to at most 1024, or raise maxValueBytes in a subclass of CursorSnapshotObject",
      ),
    );
    const read = await store.read("ses_small");
    assert.equal(read.status === "found" ? read.bytes.length : -1, 1024);
  });

  it("refuses corrupt or unknown stored values without failing; they can be replaced", async () => {
    const store = harness.store("store", "CLOCKED");
    const put = (key: string, entries: Record<string, unknown>) =>
      harness.object("CLOCKED", `cursor-snapshot:${key}`, "/test/put", JSON.stringify(entries));
    const replaced = async (key: string) => {
      const read = await store.read(key);
      assert.deepEqual(read.status === "found" ? [...read.bytes] : read, [1, 2, 3], key);
      assert.equal((await storage(`cursor-snapshot:${key}`)).keys.length, 2, key);
    };
    // A head the object cannot use holds no version: a write continuing from none replaces it.
    const unusableHeads: [string, Record<string, unknown>, string][] = [
      ["garbage", { head: "not a head" }, "unreadable-head"],
      ["future", { head: { format: 2, version: "v" } }, "unknown-format-2"],
      ["huge", { head: head({ size: 2 ** 40, chunks: 1 }) }, "size-above-bound"],
      ["miscounted", { head: head({ size: 10, chunks: 3 }) }, "size-mismatch"],
    ];
    for (const [key, entries, reason] of unusableHeads) {
      await put(key, entries);
      assert.deepEqual(await store.read(key), { status: "refused", reason }, key);
      assert.equal(await store.version(key), undefined, key);
      const written = await store.write(key, new Uint8Array([1, 2, 3]), { ifVersion: null });
      assert.equal(written.status, "written", key);
      await replaced(key);
    }
    // A sound head whose bytes are damaged: refused on read; the reader removes it (as the
    // core does with a refused snapshot) and the next write starts afresh.
    const damagedBytes: [string, Record<string, unknown>, string][] = [
      ["chunkless", { head: head({ size: 10, chunks: 1 }) }, "missing-chunk"],
      [
        "short",
        { head: head({ size: 10, chunks: 1 }), "chunk:g1:0": { bytes: 4 } },
        "size-mismatch",
      ],
    ];
    for (const [key, entries, reason] of damagedBytes) {
      await put(key, entries);
      assert.deepEqual(await store.read(key), { status: "refused", reason }, key);
      await store.remove(key);
      assert.equal(await store.version(key), undefined, key);
      const written = await store.write(key, new Uint8Array([1, 2, 3]), { ifVersion: null });
      assert.equal(written.status, "written", key);
      await replaced(key);
    }
  });

  it("fails with advice when the binding is not the snapshot class", async () => {
    await assert.rejects(
      harness.store("store", "WRONG").read("ses_1"),
      storeError(
        "config",
        "The Durable Object namespace given to the snapshot store answered without the snapshot protocol (HTTP 200): bind it to the class CursorSnapshotObject of the ./stores/cloudflare entry",
      ),
    );
  });
});

describe("Durable Object snapshot store options", () => {
  const namespace = {
    idFromName: (name: string) => name,
    get: () => ({ fetch: () => Promise.reject(new Error("not reached")) }),
  };
  it("rejects a lifetime or bound that is not a positive whole number", () => {
    assert.throws(
      () => createDurableObjectSnapshotStore(namespace, { ttlMs: 0 }),
      storeError(
        "config",
        'The snapshot store\'s ttlMs must be a whole number of milliseconds from 1 to 31622400000, not "0"',
      ),
    );
    assert.throws(
      () => createDurableObjectSnapshotStore(namespace, { maxValueBytes: 1.5 }),
      storeError(
        "config",
        'The snapshot store\'s maxValueBytes must be a whole number of bytes above 0, not "1.5"',
      ),
    );
  });

  it("reports an unreachable object as unavailable", async () => {
    await assert.rejects(
      createDurableObjectSnapshotStore(namespace).read("ses_1"),
      storeError(
        "unavailable",
        "The snapshot Durable Object could not be reached (read): not reached",
      ),
    );
  });
});

/** A head entry as the object writes it, with chosen sizes. */
function head(fields: { size: number; chunks: number }): Record<string, unknown> {
  return {
    format: 1,
    version: crypto.randomUUID(),
    generation: "g1",
    expiresAtMs: Date.now() + DAY_MS,
    ...fields,
  };
}
