/**
 * The resume cache file and the conversation snapshot files get the same checks as the
 * debug log and the model cache (test/adapters/file-writers.test.ts): owner-only on
 * create and on re-create after deletion, replaced atomically with no temporary left,
 * and never torn with two real processes writing at once. The file runs itself as the
 * writer process (`STORE_WRITER_ROLE`), on whichever runtime runs the tests.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createResumeCacheFile } from "../../src/adapters/node/files/resume-store.ts";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";

const ROLE = process.env.STORE_WRITER_ROLE;
const WRITES = 40;
const PADDING = 200_000;
const CHILD_TIMEOUT_MS = 120_000;
const posix = process.platform !== "win32";

if (ROLE === undefined) defineTests();
else await runWriter();

function defineTests(): void {
  describe("the resume cache file", () => {
    it("is 0600 in a 0700 folder when created and re-created after deletion, no temporary left", {
      skip: !posix,
    }, async () => {
      await withTempDir(async (dir) => {
        const path = join(dir, "cache", "cursor-agent-resume.json");
        const file = createResumeCacheFile({ path });
        await file.write('{"v":1}');
        assert.equal(modeOf(path), 0o600, "created");
        assert.equal(modeOf(join(dir, "cache")), 0o700, "its folder");
        unlinkSync(path);
        await file.write('{"v":2}');
        assert.equal(modeOf(path), 0o600, "re-created after deletion");
        assert.deepEqual(await file.read(), { status: "found", text: '{"v":2}' });
        assert.deepEqual(readdirSync(join(dir, "cache")), ["cursor-agent-resume.json"]);
      });
    });

    it("two writer processes never leave a torn document, and readers never see one", async () => {
      await withTempDir(async (dir) => {
        const path = join(dir, "cursor-agent-resume.json");
        const control = join(dir, "control");
        mkdirSync(control);
        const reports = await Promise.all(["a", "b"].map((id) => runChild(path, id, control)));
        rmSync(control, { recursive: true });
        for (const report of reports) {
          assert.equal(report.badReads, 0, "every read parsed");
          assert.equal(report.reads, WRITES, "every read found the file");
        }
        const final = JSON.parse(readFileSync(path, "utf8")) as { writer: string; pad: string };
        assert.ok(["a", "b"].includes(final.writer));
        assert.equal(final.pad.length, PADDING);
        assert.deepEqual(readdirSync(dir), ["cursor-agent-resume.json"], "no temporary left");
        if (posix) assert.equal(modeOf(path), 0o600);
      });
    });
  });

  describe("a conversation snapshot file", () => {
    it("is 0600 when created, re-created after deletion and replaced, no temporary left", {
      skip: !posix,
    }, async () => {
      await withTempDir(async (dir) => {
        const store = createSnapshotFileStore({ directory: join(dir, "snapshots") });
        await store.write("ses_1", new Uint8Array([1, 2, 3]));
        const [name] = readdirSync(store.directory);
        assert.ok(name, "one snapshot file");
        // sha256("ses_1"), as earlier versions named it: their snapshots are still found.
        assert.equal(name, "46bf2fa87b4820eabd28fa94f4fa05e629c2c41e.snap");
        const path = join(store.directory, name);
        assert.equal(modeOf(path), 0o600, "created");
        assert.equal(modeOf(store.directory), 0o700, "its folder");
        const before = statSync(path).ino;
        await store.write("ses_1", new Uint8Array([4, 5]));
        assert.notEqual(statSync(path).ino, before, "replaced by a rename, not rewritten");
        assert.equal(modeOf(path), 0o600, "replaced");
        unlinkSync(path);
        await store.write("ses_1", new Uint8Array([6]));
        assert.equal(modeOf(path), 0o600, "re-created after deletion");
        const read = await store.read("ses_1");
        assert.ok(read.status === "found");
        assert.deepEqual([...read.bytes], [6]);
        assert.deepEqual(readdirSync(store.directory), [name], "no temporary left");
      });
    });
  });
}

/** What a writer process reports on stdout. */
interface WriterReport {
  readonly reads: number;
  readonly badReads: number;
}

async function runWriter(): Promise<void> {
  const file = createResumeCacheFile({ path: process.env.STORE_WRITER_PATH ?? "" });
  const id = process.env.STORE_WRITER_ID ?? "?";
  await startTogether(process.env.STORE_WRITER_DIR ?? "", id);
  let reads = 0;
  let badReads = 0;
  for (let seq = 0; seq < WRITES; seq++) {
    await file.write(JSON.stringify({ writer: id, seq, pad: "p".repeat(PADDING) }));
    const read = await file.read();
    if (read.status !== "found") continue;
    reads++;
    try {
      JSON.parse(read.text);
    } catch {
      badReads++;
    }
  }
  process.stdout.write(`${JSON.stringify({ reads, badReads })}\n`);
}

/** Both writers start together: each says it is ready, then waits for the other. */
async function startTogether(dir: string, id: string): Promise<void> {
  writeFileSync(join(dir, `ready-${id}`), "");
  const deadline = Date.now() + CHILD_TIMEOUT_MS;
  while (readdirSync(dir).filter((name) => name.startsWith("ready-")).length < 2) {
    if (Date.now() > deadline) throw new Error("the other writer never started");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Runs this file as a writer on the current runtime; resolves its report. */
function runChild(path: string, id: string, control: string): Promise<WriterReport> {
  const self = fileURLToPath(import.meta.url);
  const versions = process.versions as Record<string, string | undefined>;
  const args = versions.deno ? ["run", "-A", self] : [self];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: {
        ...process.env,
        STORE_WRITER_ROLE: "resume",
        STORE_WRITER_ID: id,
        STORE_WRITER_PATH: path,
        STORE_WRITER_DIR: control,
      },
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
      if (code !== 0) reject(new Error(`writer ${id} ended ${code ?? signal}: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as WriterReport);
    });
  });
}

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

async function withTempDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "store-files-"));
  try {
    await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
