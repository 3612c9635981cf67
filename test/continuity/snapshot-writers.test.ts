/**
 * Two real processes writing one session's snapshot into a shared folder: every read
 * decodes (never a torn file) and no temporary file is left behind. The file runs
 * itself as the writer process (`SNAPSHOT_WRITER_ID`), on whichever runtime runs it.
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
import { decodeSnapshot, encodeSnapshot, snapshotMessage } from "../../src/snapshot/codec.ts";

const WRITER = process.env.SNAPSHOT_WRITER_ID;
const ROUNDS = 40;
const CHILD_TIMEOUT_MS = 60_000;

interface WriterReport {
  id: string;
  decoded: number;
  torn: number;
}

if (WRITER === undefined) defineTests();
else console.log(JSON.stringify(await write(process.env.SNAPSHOT_DIR ?? "", WRITER)));

/** The writer process: writes and reads back the shared session's snapshot. */
async function write(directory: string, id: string): Promise<WriterReport> {
  const store = createSnapshotFileStore({ directory });
  let decoded = 0;
  let torn = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const filler = crypto.getRandomValues(new Uint8Array(2000 + ((i * 7919) % 30000)));
    await store.write(
      "ses_shared",
      await encodeSnapshot(snapshotMessage({
        sessionKey: "ses_shared",
        conversationId: `${id}-${i}`,
        checkpoint: filler,
      })),
    );
    const read = await store.read("ses_shared");
    if (read.status !== "found") continue;
    if ((await decodeSnapshot(read.bytes)).ok) decoded++;
    else torn++;
  }
  return { id, decoded, torn };
}

function defineTests(): void {
  describe("snapshot files with two writer processes", () => {
    it("never hands out a torn snapshot while two processes write the same session", async () => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-snapshot-writers-"));
      const reports = await Promise.all(["a", "b"].map((id) => runWriter(directory, id)));
      for (const report of reports) {
        assert.equal(report.torn, 0, `writer ${report.id} read a torn snapshot`);
        assert.ok(report.decoded > 0);
      }
      const last = await createSnapshotFileStore({ directory }).read("ses_shared");
      assert.equal(last.status, "found");
      if (last.status === "found") assert.ok((await decodeSnapshot(last.bytes)).ok);
      assert.deepEqual(readdirSync(directory).filter((f) => f.endsWith(".tmp")), []);
    });
  });
}

/** Runs this file as a writer on the current runtime, under a time limit. */
function runWriter(directory: string, id: string): Promise<WriterReport> {
  const self = fileURLToPath(import.meta.url);
  const versions = process.versions as Record<string, string | undefined>;
  const args = versions.deno ? ["run", "-A", self] : [self];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, SNAPSHOT_DIR: directory, SNAPSHOT_WRITER_ID: id },
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
      else reject(new Error(`writer ${id} ended ${code ?? signal}: ${stderr}`));
    });
  });
}
