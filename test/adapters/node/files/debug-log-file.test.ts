import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileDebugLogger } from "../../../../src/adapters/node/files/debug-log-file.ts";
import { resolveDebugLogSettings } from "../../../../src/core/debug-settings.ts";

function tempFile(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "debug-log-"));
  return {
    path: join(dir, "nested", "debug.log"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe("debug log file", () => {
  it("is off unless CURSOR_PROVIDER_DEBUG is 1 or true", () => {
    for (const value of [undefined, "0", "no", "yes"]) {
      const settings = resolveDebugLogSettings({ CURSOR_PROVIDER_DEBUG: value }, {
        pid: 1,
        uid: 2,
        tmpDir: "/t",
      });
      assert.equal(settings.enabled, false, String(value));
    }
    assert.equal(
      resolveDebugLogSettings({ CURSOR_PROVIDER_DEBUG: "TRUE" }, { pid: 1, uid: 2, tmpDir: "/t/" })
        .path,
      "/t/cursor-provider-logs-2/debug-1.log",
    );
  });

  it("announces the path, writes a process header, then lines", () => {
    const { path, cleanup } = tempFile();
    try {
      const announced: string[] = [];
      const logger = createFileDebugLogger({
        env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: path },
        announce: (line) => announced.push(line),
      });
      logger.line("outbound Run: model=composer-2");
      assert.deepEqual(announced, [`[cursor-provider] CURSOR_PROVIDER_DEBUG logging to ${path}`]);
      const lines = readFileSync(path, "utf8").trim().split("\n");
      assert.match(lines[0] ?? "", /debug: process header pid=\d+ /);
      assert.doesNotMatch(lines[0] ?? "", /reinit=append/);
      assert.match(lines[1] ?? "", /^\d{4}-\d\d-\d\dT.* outbound Run: model=composer-2$/);
    } finally {
      cleanup();
    }
  });

  it("appends a reinit header instead of wiping an existing file", () => {
    const { path, cleanup } = tempFile();
    try {
      const env = { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: path };
      createFileDebugLogger({ env, announce: () => {} }).line("first");
      createFileDebugLogger({ env, announce: () => {} }).line("second");
      const text = readFileSync(path, "utf8");
      assert.match(text, /first/);
      assert.match(text, /reinit=append/);
      assert.match(text, /second/);
    } finally {
      cleanup();
    }
  });

  it("truncates at the size cap and says so", () => {
    const { path, cleanup } = tempFile();
    try {
      const logger = createFileDebugLogger({
        env: { CURSOR_PROVIDER_DEBUG: "true", CURSOR_PROVIDER_DEBUG_FILE: path },
        announce: () => {},
        sizeCapBytes: 400,
      });
      for (let i = 0; i < 20; i++) logger.line(`line ${i} ${"x".repeat(40)}`);
      const text = readFileSync(path, "utf8");
      assert.ok(text.length < 800, `file stayed bounded (${text.length} bytes)`);
      assert.match(text, /debug: size-cap truncate/);
      assert.match(text, /line 19 /);
    } finally {
      cleanup();
    }
  });

  it("never writes tokens or keys", () => {
    const { path, cleanup } = tempFile();
    try {
      const logger = createFileDebugLogger({
        env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: path },
        announce: () => {},
      });
      logger.line("auth header Bearer eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjF9.sig key crsr_secret123");
      const text = readFileSync(path, "utf8");
      assert.doesNotMatch(text, /eyJhbGci|crsr_secret123/);
    } finally {
      cleanup();
    }
  });
});
