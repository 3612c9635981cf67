/**
 * Versioned writes of the memory and file snapshot stores: the store contract, and two
 * real processes incrementing one counter in a shared snapshot folder through
 * conditional writes, which must lose no update (the file runs itself as the
 * incrementing process, `SNAPSHOT_INCREMENTER_ID`, on whichever runtime runs it).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import { createMemorySnapshotStore } from "../../src/snapshot/store.ts";
import { defineSnapshotStoreContract } from "../support/snapshot-store-contract.ts";

const INCREMENTER = process.env.SNAPSHOT_INCREMENTER_ID;
const ROUNDS = 30;
const CHILD_TIMEOUT_MS = 60_000;

if (INCREMENTER === undefined) defineTests();
else console.log(JSON.stringify(await increment(process.env.SNAPSHOT_DIR ?? "")));

/** The child: increments the shared counter ROUNDS times, retrying each lost race. */
async function increment(directory: string): Promise<{ conflicts: number }> {
  const store = createSnapshotFileStore({ directory });
  let conflicts = 0;
  for (let won = 0; won < ROUNDS;) {
    const read = await store.read("ses_counter");
    const current = read.status === "found" ? new DataView(read.bytes.buffer).getUint32(0) : 0;
    const next = new Uint8Array(4);
    new DataView(next.buffer).setUint32(0, current + 1);
    const ifVersion = read.status === "found" ? read.version ?? null : null;
    const result = await store.write("ses_counter", next, { ifVersion });
    if (result.status === "conflict") conflicts++;
    else won++;
  }
  return { conflicts };
}

function defineTests(): void {
  describe("memory snapshot store: versioned writes", () => {
    defineSnapshotStoreContract(() => {
      const store = createMemorySnapshotStore();
      return { first: store, second: store };
    });
  });

  describe("snapshot file store: versioned writes", () => {
    defineSnapshotStoreContract(() => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-snapshot-cas-"));
      return {
        first: createSnapshotFileStore({ directory }),
        second: createSnapshotFileStore({ directory }),
      };
    });

    it("loses no update when two processes increment one snapshot at once", async () => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-snapshot-cas-"));
      const reports = await Promise.all(["a", "b"].map((id) => runIncrementer(directory, id)));
      const read = await createSnapshotFileStore({ directory }).read("ses_counter");
      assert.equal(read.status, "found");
      const total = read.status === "found" ? new DataView(read.bytes.buffer).getUint32(0) : 0;
      const conflicts = reports.reduce((sum, report) => sum + report.conflicts, 0);
      assert.equal(total, 2 * ROUNDS, `every increment counted (${conflicts} races retried)`);
      assert.deepEqual(
        readdirSync(directory).filter((f) => f.endsWith(".tmp") || f.endsWith(".lock")),
        [],
        "no temporary or lock file is left behind",
      );
    });
  });
}

/** Runs this file as an incrementer on the current runtime, under a time limit. */
function runIncrementer(directory: string, id: string): Promise<{ conflicts: number }> {
  const self = fileURLToPath(import.meta.url);
  const versions = process.versions as Record<string, string | undefined>;
  const args = versions.deno ? ["run", "-A", self] : [self];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, SNAPSHOT_DIR: directory, SNAPSHOT_INCREMENTER_ID: id },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}"));
      else reject(new Error(`incrementer ${id} ended ${code ?? signal}: ${stderr}`));
    });
  });
}
