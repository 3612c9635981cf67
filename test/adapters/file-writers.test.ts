/**
 * Every file the project writes (the debug log, the model cache): owner-only on create
 * and re-create, replaced atomically, and never torn or unbounded with two real
 * processes writing at once. The file runs itself as the writer process
 * (`FILE_WRITER_ROLE`), on whichever runtime runs the tests.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createFileDebugLogger } from "../../src/adapters/node/files/debug-log-file.ts";
import { createModelCacheFile } from "../../src/adapters/node/files/model-cache-file.ts";

const ROLE = process.env.FILE_WRITER_ROLE;
const LOG_CAP = 16 * 1024;
const LOG_LINES = 1500;
const CACHE_WRITES = 60;
const CHILD_TIMEOUT_MS = 120_000;
const posix = process.platform !== "win32";
const WHOLE_LOG_LINE =
  /^\S+ (debug: process header pid=\d+ .*|debug: size-cap truncate previousBytes=\d+ capBytes=\d+|writer=([ab]) seq=(\d+) x{40,} end=\2-\3)$/;
const CACHE_PADDING = 200_000;

if (ROLE === undefined) defineTests();
else await runWriter(ROLE);

function defineTests(): void {
  describe("the debug log file", () => {
    it("is 0600 when created, re-created after deletion, and re-created after rotation", {
      skip: !posix,
    }, () => {
      withTempDir((dir) => {
        const path = join(dir, "logs", "debug.log");
        const logger = createFileDebugLogger({
          env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: path },
          announce: () => {},
        });
        logger.line("first");
        assert.equal(modeOf(path), 0o600, "created");
        unlinkSync(path);
        logger.line("after deletion");
        assert.equal(modeOf(path), 0o600, "re-created after deletion");
        assert.match(readFileSync(path, "utf8"), /after deletion\n$/);
        renameSync(path, `${path}.1`);
        logger.line("after rotation");
        assert.equal(modeOf(path), 0o600, "re-created after rotation");
        assert.equal(modeOf(join(dir, "logs")), 0o700, "its folder is owner-only");
      });
    });

    it("narrows an existing log that others could read back to 0600", { skip: !posix }, () => {
      withTempDir((dir) => {
        const path = join(dir, "debug.log");
        writeFileSync(path, "old\n", { mode: 0o644 });
        createFileDebugLogger({
          env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: path },
          announce: () => {},
        }).line("new");
        assert.equal(modeOf(path), 0o600);
      });
    });

    it("caps the file on disk, not per process, and never tears a line with two writer processes", async () => {
      await withTempDirAsync(async (dir) => {
        const path = join(dir, "shared.log");
        const reports = await runWriters("log", dir, { FILE_WRITER_PATH: path });
        const longest = Math.max(...reports.map((r) => r.longestLine));
        // Two processes can both pass the cap check at once: at most one line each over it.
        const bound = LOG_CAP + 2 * longest;
        for (const report of reports) {
          assert.ok(report.largest <= bound, `the file reached ${report.largest} > ${bound} bytes`);
        }
        const text = readFileSync(path, "utf8");
        assert.ok(text.length <= bound, `final size ${text.length} > ${bound}`);
        assert.ok(text.endsWith("\n"), "ends with a whole line");
        const lines = text.slice(0, -1).split("\n");
        const torn = lines.filter((line) => !WHOLE_LOG_LINE.test(line));
        assert.deepEqual(torn, [], "every line is whole");
        assert.match(text, /debug: size-cap truncate previousBytes=\d+ capBytes=16384/);
        if (posix) assert.equal(modeOf(path), 0o600);
      });
    });
  });

  describe("the model cache file", () => {
    it("is 0600 when created and re-created, replaced in its own folder, no temporary left", {
      skip: !posix,
    }, async () => {
      await withTempDirAsync(async (dir) => {
        const path = join(dir, "opencode", "cursor-models.json");
        const store = createModelCacheFile({ path });
        await store.write('{"v":1}');
        assert.equal(modeOf(path), 0o600);
        assert.equal(modeOf(join(dir, "opencode")), 0o700);
        const inode = statSync(path).ino;
        await store.write('{"v":2}');
        assert.notEqual(statSync(path).ino, inode, "replaced by a rename, not rewritten in place");
        assert.equal(await store.read(), '{"v":2}');
        unlinkSync(path);
        await store.write('{"v":3}');
        assert.equal(modeOf(path), 0o600, "re-created");
        assert.deepEqual(readdirSync(join(dir, "opencode")), ["cursor-models.json"]);
      });
    });

    it("a failed replace leaves no temporary behind", async () => {
      await withTempDirAsync(async (dir) => {
        const occupied = join(dir, "cursor-models.json");
        mkdirSync(occupied);
        await assert.rejects(createModelCacheFile({ path: occupied }).write("{}"));
        assert.deepEqual(readdirSync(dir), ["cursor-models.json"]);
        assert.ok(statSync(occupied).isDirectory(), "the rename target is untouched");
      });
    });

    it("two writer processes never leave a torn document, and readers never see one", async () => {
      await withTempDirAsync(async (dir) => {
        const path = join(dir, "cursor-models.json");
        const reports = await runWriters("cache", dir, { FILE_WRITER_PATH: path });
        for (const report of reports) assert.equal(report.badReads, 0, "every read parsed");
        const final = JSON.parse(readFileSync(path, "utf8")) as { writer: string; padding: string };
        assert.ok(["a", "b"].includes(final.writer));
        assert.equal(final.padding.length, CACHE_PADDING);
        assert.deepEqual(readdirSync(dir), ["cursor-models.json"], "no temporary left");
        if (posix) assert.equal(modeOf(path), 0o600);
      });
    });
  });
}

/** What a writer process reports on stdout. */
interface WriterReport {
  readonly largest: number;
  readonly longestLine: number;
  readonly badReads: number;
}

async function runWriter(role: string): Promise<void> {
  const path = process.env.FILE_WRITER_PATH ?? "";
  const id = process.env.FILE_WRITER_ID ?? "?";
  await waitForGo(process.env.FILE_WRITER_DIR ?? "", id);
  let largest = 0;
  let longestLine = 0;
  let badReads = 0;
  if (role === "log") {
    const logger = createFileDebugLogger({
      env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: path },
      announce: () => {},
      sizeCapBytes: LOG_CAP,
    });
    for (let seq = 0; seq < LOG_LINES; seq++) {
      const text = `writer=${id} seq=${seq} ${"x".repeat(40 + (seq % 7) * 13)} end=${id}-${seq}`;
      longestLine = Math.max(longestLine, text.length + 30);
      logger.line(text);
      largest = Math.max(largest, sizeOf(path));
    }
  } else {
    const store = createModelCacheFile({ path });
    for (let seq = 0; seq < CACHE_WRITES; seq++) {
      await store.write(JSON.stringify({ writer: id, seq, padding: "p".repeat(CACHE_PADDING) }));
      try {
        JSON.parse((await store.read()) ?? "");
      } catch {
        badReads++;
      }
    }
  }
  process.stdout.write(`${JSON.stringify({ largest, longestLine, badReads })}\n`);
}

/** Both writers start together: each says it is ready, then waits for the go file. */
async function waitForGo(dir: string, id: string): Promise<void> {
  writeFileSync(join(dir, `ready-${id}`), "");
  const deadline = Date.now() + CHILD_TIMEOUT_MS;
  while (!existsSync(join(dir, "go")) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  rmSync(join(dir, `ready-${id}`), { force: true });
}

async function runWriters(
  role: string,
  dir: string,
  env: Record<string, string>,
): Promise<WriterReport[]> {
  const control = mkdtempSync(join(tmpdir(), "writers-control-"));
  try {
    const children = ["a", "b"].map((id) =>
      runChild({
        ...env,
        FILE_WRITER_ROLE: role,
        FILE_WRITER_ID: id,
        FILE_WRITER_DIR: control,
      })
    );
    const deadline = Date.now() + CHILD_TIMEOUT_MS;
    while (readdirSync(control).length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    writeFileSync(join(control, "go"), "");
    const outputs = await Promise.all(children);
    assert.ok(existsSync(dir));
    return outputs.map((output) =>
      JSON.parse(output.trim().split("\n").at(-1) ?? "") as WriterReport
    );
  } finally {
    rmSync(control, { recursive: true, force: true });
  }
}

/** Runs this file as a writer on the current runtime; resolves its stdout. */
function runChild(env: Record<string, string>): Promise<string> {
  const self = fileURLToPath(import.meta.url);
  const versions = process.versions as Record<string, string | undefined>;
  const args = versions.deno ? ["run", "-A", self] : [self];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
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
      if (code === 0) resolve(stdout);
      else reject(new Error(`writer ${env.FILE_WRITER_ID} ended ${code ?? signal}: ${stderr}`));
    });
  });
}

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function withTempDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "file-writers-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withTempDirAsync(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "file-writers-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
