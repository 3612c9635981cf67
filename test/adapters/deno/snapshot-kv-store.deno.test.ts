/**
 * The Deno KV snapshot store on a real Deno KV database (a SQLite file in a temporary
 * folder, opened twice as two instances would): the store contract, chunking past Deno
 * KV's 64 KiB values, expiry and the size bound. Deno only (`*.deno.test.ts`): the test
 * runner reports it as not applicable on Node and Bun and runs Deno with `--unstable-kv`.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDenoKvSnapshotStore,
  type KvLike,
} from "../../../src/adapters/deno/snapshot-kv-store.ts";
import { defineSnapshotStoreContract } from "../../support/snapshot-store-contract.ts";

/** The part of the Deno namespace this file needs (tests are type-checked without it). */
interface DenoKvRuntime {
  openKv(path?: string): Promise<KvLike & { close(): void }>;
}
const deno = (globalThis as { Deno?: DenoKvRuntime }).Deno;
if (deno === undefined) throw new Error("This file runs on Deno only (run with --unstable-kv)");
if (typeof deno.openKv !== "function") throw new Error("Deno KV needs --unstable-kv");

describe("Deno KV snapshot store (real Deno KV)", () => {
  const opened: { close(): void }[] = [];
  const open = async (path: string) => {
    const kv = await deno.openKv(path);
    opened.push(kv);
    return kv;
  };
  after(() => {
    for (const kv of opened) kv.close();
  });

  defineSnapshotStoreContract(async () => {
    const path = join(mkdtempSync(join(tmpdir(), "cursor-kv-")), "snapshots.sqlite3");
    return {
      first: createDenoKvSnapshotStore({ kv: await open(path) }),
      second: createDenoKvSnapshotStore({ kv: await open(path) }),
    };
  });

  it("stores a snapshot as chunks under a namespaced head, and removes the old chunks", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "cursor-kv-")), "snapshots.sqlite3");
    const kv = await open(path);
    const store = createDenoKvSnapshotStore({ kv, prefix: ["app1"] });
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    await store.write("ses_chunks", big, { ifVersion: null });
    const count = async () => {
      let entries = 0;
      const all = (kv as unknown as {
        list(selector: { prefix: unknown[] }): AsyncIterable<{ key: unknown[] }>;
      }).list({ prefix: [] });
      for await (const entry of all) {
        assert.equal(entry.key[0], "app1", "every key is under the prefix");
        entries++;
      }
      return entries;
    };
    assert.equal(await count(), 1 + 4, "one head and four 60 KiB chunks");
    const read = await store.read("ses_chunks");
    await store.write("ses_chunks", new Uint8Array([1]), {
      ifVersion: read.status === "found" ? read.version ?? null : null,
    });
    assert.equal(await count(), 1 + 1, "the replaced value's chunks are gone");
    await store.remove("ses_chunks");
    assert.equal(await count(), 0);
  });

  it("refuses a snapshot above the size bound with a clear error", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "cursor-kv-")), "snapshots.sqlite3");
    const store = createDenoKvSnapshotStore({ kv: await open(path), maxValueBytes: 1024 });
    await assert.rejects(
      store.write("ses_big", new Uint8Array(2048)),
      (error: Error & { code?: string }) =>
        error.code === "invalid_argument" &&
        error.message === "A snapshot of 2048 bytes exceeds the store's bound of 1024 bytes",
    );
    assert.deepEqual(await store.read("ses_big"), { status: "missing" });
  });
});
