/**
 * Two provider instances sharing one real Deno KV database (a SQLite file in a temporary
 * folder, opened once per instance): turns alternating between the instances and two
 * turns finishing at once continue from the newest snapshot, never from an instance's
 * stale checkpoint. Deno only (`*.deno.test.ts`): not applicable on Node and Bun.
 */
import { after, describe } from "node:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDenoKvSnapshotStore,
  type KvLike,
} from "../../src/adapters/deno/snapshot-kv-store.ts";
import { defineSharedStoreScenarios } from "../support/shared-store-scenarios.ts";

/** The part of the Deno namespace this file needs (tests are type-checked without it). */
interface DenoKvRuntime {
  openKv(path?: string): Promise<KvLike & { close(): void }>;
}
const deno = (globalThis as { Deno?: DenoKvRuntime }).Deno;
if (deno === undefined) throw new Error("This file runs on Deno only (run with --unstable-kv)");
if (typeof deno.openKv !== "function") throw new Error("Deno KV needs --unstable-kv");

describe("two provider instances sharing a real Deno KV database", () => {
  const path = join(mkdtempSync(join(tmpdir(), "cursor-kv-instances-")), "snapshots.sqlite3");
  const opened: { close(): void }[] = [];
  after(() => {
    for (const kv of opened) kv.close();
  });
  defineSharedStoreScenarios(async (prefix) => {
    const kv = await deno.openKv(path);
    opened.push(kv);
    return createDenoKvSnapshotStore({ kv, prefix: [prefix] });
  });
});
