/** Binary discovery and the Node process runner. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { findCursorAgent } from "../../src/adapters/node/process/find-cursor-agent.ts";
import {
  createNodeProcessRunner,
  windowsCommandLine,
} from "../../src/adapters/node/process/process-runner.ts";
import { isAlive, waitFor } from "./helpers.ts";

describe("finding cursor-agent", () => {
  it("prefers an explicit path, then cursor-agent on PATH, then agent on PATH", () => {
    const exists = (paths: string[]) => (path: string) => paths.includes(path);
    const env = { PATH: "/a:/b", HOME: "/home/me" };
    assert.equal(
      findCursorAgent({
        explicitPath: "/opt/ca",
        env,
        platform: "linux",
        isExecutable: () => false,
      }),
      "/opt/ca",
    );
    assert.equal(
      findCursorAgent({
        env,
        platform: "linux",
        isExecutable: exists(["/a/agent", "/b/cursor-agent"]),
      }),
      "/b/cursor-agent",
    );
    assert.equal(
      findCursorAgent({ env, platform: "linux", isExecutable: exists(["/b/agent"]) }),
      "/b/agent",
    );
  });

  it("falls back to the installer's locations", () => {
    const env = { PATH: "/usr/bin", HOME: "/home/me" };
    const only = (path: string) => (candidate: string) => candidate === path;
    assert.equal(
      findCursorAgent({
        env,
        platform: "linux",
        isExecutable: only("/home/me/.local/bin/cursor-agent"),
      }),
      "/home/me/.local/bin/cursor-agent",
    );
    assert.equal(
      findCursorAgent({
        env,
        platform: "darwin",
        isExecutable: only("/home/me/.cursor/bin/agent"),
      }),
      "/home/me/.cursor/bin/agent",
    );
    assert.equal(findCursorAgent({ env, platform: "linux", isExecutable: () => false }), undefined);
  });

  it("finds the Windows .cmd shims through PATHEXT and under LOCALAPPDATA", () => {
    const env = {
      Path: "C:\\tools",
      PATHEXT: ".EXE;.CMD",
      LOCALAPPDATA: "C:\\Users\\me\\AppData\\Local",
    };
    assert.equal(
      findCursorAgent({
        env,
        platform: "win32",
        isExecutable: (path) => path === "C:\\tools\\cursor-agent.cmd",
      }),
      "C:\\tools\\cursor-agent.cmd",
    );
    assert.equal(
      findCursorAgent({
        env,
        platform: "win32",
        isExecutable: (path) => path === "C:\\Users\\me\\AppData\\Local\\cursor-agent\\agent.cmd",
      }),
      "C:\\Users\\me\\AppData\\Local\\cursor-agent\\agent.cmd",
    );
  });

  it(
    "checks real files: executable bit required on POSIX",
    { skip: process.platform === "win32" },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "find-ca-"));
      try {
        await mkdir(join(dir, "bin"));
        await writeFile(join(dir, "bin", "cursor-agent"), "#!/bin/sh\n");
        assert.equal(
          findCursorAgent({ env: { PATH: join(dir, "bin"), HOME: dir } }),
          undefined,
          "not executable",
        );
        await chmod(join(dir, "bin", "cursor-agent"), 0o755);
        assert.equal(
          findCursorAgent({ env: { PATH: join(dir, "bin"), HOME: dir } }),
          join(dir, "bin", "cursor-agent"),
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});

describe("windows command line", () => {
  it("quotes every argument and refuses what cmd.exe would expand", () => {
    assert.equal(
      windowsCommandLine(["C:\\Program Files\\cursor-agent.cmd", "--workspace", "C:\\my dir\\"]),
      '"C:\\Program Files\\cursor-agent.cmd" "--workspace" "C:\\my dir\\\\"',
    );
    assert.throws(() => windowsCommandLine(["a", "100%"]), /holds a quote, %, !/);
    assert.throws(() => windowsCommandLine(["a", 'say "hi"']), /holds a quote/);
  });
});

describe("node process runner", { skip: process.platform === "win32" }, () => {
  const env = { PATH: process.env["PATH"] ?? "" };

  it("writes stdin, closes it, and streams stdout and stderr", async () => {
    const runner = createNodeProcessRunner();
    const child = runner.spawn(["/bin/sh", "-c", "cat; echo done >&2"], {
      env,
      stdin: "prompt text",
    });
    const [out, err, exit] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    assert.deepEqual([out, err, exit], ["prompt text", "done\n", { code: 0, signal: null }]);
  });

  it("never goes through a shell: metacharacters stay literal arguments", async () => {
    const runner = createNodeProcessRunner();
    const child = runner.spawn(["/bin/echo", "$(echo pwned)", "a;b"], { env, stdin: "" });
    assert.equal(await new Response(child.stdout).text(), "$(echo pwned) a;b\n");
  });

  it("rejects `exited` when the program does not exist", async () => {
    const runner = createNodeProcessRunner();
    const child = runner.spawn(["/nonexistent/cursor-agent"], { env, stdin: "" });
    await assert.rejects(
      child.exited,
      (error: unknown) => (error as { code?: string }).code === "ENOENT",
    );
  });

  it("kills the whole process group on abort", async () => {
    const runner = createNodeProcessRunner({ killGraceMs: 200 });
    const controller = new AbortController();
    const child = runner.spawn(["/bin/sh", "-c", "sleep 30 & echo $!; wait"], {
      env,
      stdin: "",
      signal: controller.signal,
    });
    const reader = child.stdout.getReader();
    const first = await reader.read();
    const grandchild = Number(new TextDecoder().decode(first.value).trim());
    controller.abort();
    const exit = await child.exited;
    assert.equal(exit.signal, "SIGTERM");
    assert.ok(
      await waitFor(() => !isAlive(grandchild), 2000),
      "the background child died with its group",
    );
  });
});
