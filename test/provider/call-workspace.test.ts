/**
 * One provider serving several projects (an OpenCode server with many directories): every
 * call acts in the workspace it names (`providerOptions.cursor.workspace`), else the
 * `workspace` setting, else the current directory at call time.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { createCursor } from "../../node.ts";
import { callWorkspace } from "../../src/provider/call-workspace.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { directiveScenario } from "../../src/testing/mod.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../src/gen/agent/v1/request_context_pb.ts";
import { withEmulator } from "../support/emulator.ts";

/** A git repository on its own branch, removed by the caller. */
function project(branch: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `cursor-ws-${branch}-`)));
  spawnSync("git", ["init", "-q", "-b", branch], { cwd: dir, timeout: 10_000 });
  return dir;
}

/** Host tools that record where they were asked to act and really act there. */
function recordingTools(calls: { tool: string; path: string }[]) {
  return {
    bash: tool({
      description: "Run a shell command",
      inputSchema: jsonSchema<{ command: string; workdir?: string; description?: string }>({
        type: "object",
        properties: {
          command: { type: "string" },
          workdir: { type: "string" },
          description: { type: "string" },
        },
        required: ["command"],
      }),
      execute: ({ command, workdir }) => {
        calls.push({ tool: "bash", path: workdir ?? "" });
        const run = spawnSync("sh", ["-c", command], { cwd: workdir, encoding: "utf8" });
        return run.stdout + run.stderr;
      },
    }),
    write: tool({
      description: "Write a file",
      inputSchema: jsonSchema<{ filePath: string; content: string }>({
        type: "object",
        properties: { filePath: { type: "string" }, content: { type: "string" } },
        required: ["filePath", "content"],
      }),
      execute: ({ filePath, content }) => {
        calls.push({ tool: "write", path: filePath });
        writeFileSync(filePath, content);
        return "Wrote file successfully.";
      },
    }),
    read: tool({
      description: "Read a file",
      inputSchema: jsonSchema<{ filePath: string }>({
        type: "object",
        properties: { filePath: { type: "string" } },
        required: ["filePath"],
      }),
      execute: ({ filePath }) => {
        calls.push({ tool: "read", path: filePath });
        return existsSync(filePath) ? readFileSync(filePath, "utf8") : "File not found";
      },
    }),
  };
}

describe("the workspace of each call", () => {
  it("two projects served at once see their own root, git facts, shell directory and files", async () => {
    const alpha = project("alpha-branch");
    const beta = project("beta-branch");
    const contexts: RequestContext[] = [];
    try {
      await withEmulator({
        scenario: (context) => {
          contexts.push(fromBinary(RequestContextSchema, context.requestContextBytes));
          return directiveScenario(context);
        },
      }, async (emulator) => {
        const cursor = createCursor({
          apiKey: "crsr_test_key_0123456789",
          apiBaseURL: emulator.url,
          allowLoopback: true,
          env: {},
          conversationSnapshots: false,
          imageStaging: false,
        });
        const turn = (dir: string, session: string, calls: { tool: string; path: string }[]) =>
          streamText({
            model: cursor("gpt-5"),
            prompt: "::shell pwd\n::write notes.txt written here",
            tools: recordingTools(calls),
            stopWhen: stepCountIs(6),
            providerOptions: { cursor: { sessionId: session, workspace: dir } },
          }).text;
        const alphaCalls: { tool: string; path: string }[] = [];
        const betaCalls: { tool: string; path: string }[] = [];
        const [alphaText, betaText] = await Promise.all([
          turn(alpha, "ses_alpha", alphaCalls),
          turn(beta, "ses_beta", betaCalls),
        ]);
        assert.match(alphaText, new RegExp(alpha));
        assert.match(betaText, new RegExp(beta));
        assert.deepEqual(alphaCalls.filter((c) => c.tool === "bash"), [{
          tool: "bash",
          path: alpha,
        }]);
        assert.deepEqual(betaCalls.filter((c) => c.tool === "bash"), [{
          tool: "bash",
          path: beta,
        }]);
        assert.ok(alphaCalls.every((c) => c.path.startsWith(alpha)), JSON.stringify(alphaCalls));
        assert.ok(betaCalls.every((c) => c.path.startsWith(beta)), JSON.stringify(betaCalls));
        assert.equal(readFileSync(join(alpha, "notes.txt"), "utf8"), "written here");
        assert.equal(readFileSync(join(beta, "notes.txt"), "utf8"), "written here");
        const byRoot = new Map(contexts.map((c) => [c.env?.workspacePaths[0], c]));
        assert.deepEqual([...byRoot.keys()].sort(), [alpha, beta].sort());
        assert.equal(byRoot.get(alpha)?.env?.processWorkingDirectory, alpha);
        assert.equal(byRoot.get(alpha)?.gitRepos[0]?.branchName, "alpha-branch");
        assert.equal(byRoot.get(beta)?.gitRepos[0]?.branchName, "beta-branch");
        assert.equal(byRoot.get(beta)?.gitRepos[0]?.path, beta);
        const conversations = new Set(emulator.runs().map((run) => run.conversationId));
        assert.equal(conversations.size, 2, "one Cursor conversation per project");
        assert.deepEqual(emulator.violations(), []);
      });
    } finally {
      rmSync(alpha, { recursive: true, force: true });
      rmSync(beta, { recursive: true, force: true });
    }
  });

  it("a call naming no workspace takes the setting, else the current directory at call time", async () => {
    const contexts: RequestContext[] = [];
    await withEmulator({
      scenario: (context) => {
        contexts.push(fromBinary(RequestContextSchema, context.requestContextBytes));
        return directiveScenario(context);
      },
    }, async (emulator) => {
      const base = {
        apiKey: "crsr_test_key_0123456789",
        apiBaseURL: emulator.url,
        allowLoopback: true,
        env: {},
        conversationSnapshots: false as const,
      };
      const configured = createCursor({ ...base, workspace: { workspaceRoot: "/srv/app" } });
      await streamText({ model: configured("gpt-5"), prompt: "::text a" }).text;
      assert.equal(contexts.at(-1)?.env?.workspacePaths[0], "/srv/app");
      await streamText({
        model: configured("gpt-5"),
        prompt: "::text b",
        providerOptions: { cursor: { workspace: "/srv/other/" } },
      }).text;
      assert.equal(contexts.at(-1)?.env?.workspacePaths[0], "/srv/other");
      const plain = createCursor(base);
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "cursor-ws-cwd-")));
      const before = process.cwd();
      try {
        await streamText({ model: plain("gpt-5"), prompt: "::text c" }).text;
        assert.equal(contexts.at(-1)?.env?.workspacePaths[0], before);
        process.chdir(dir);
        await streamText({ model: plain("gpt-5"), prompt: "::text d" }).text;
        assert.equal(contexts.at(-1)?.env?.workspacePaths[0], dir, "read at call time");
      } finally {
        process.chdir(before);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it("refuses a workspace that is not an absolute path, before anything is sent", async () => {
    for (const bad of ["relative/dir", "", 42, "/tmp/a\u0000b", "C:"]) {
      assert.throws(
        () => callWorkspace({ cursor: { workspace: bad } }, "cursor"),
        (error: unknown) =>
          error instanceof CursorError && error.code === "invalid_argument" &&
          /workspace must be an absolute directory path, got /.test(error.message),
      );
    }
    assert.equal(callWorkspace({ cursor: { workspace: "C:\\repo\\" } }, "cursor"), "C:\\repo");
    assert.equal(callWorkspace({ cursor: { workspace: "/" } }, "cursor"), "/");
    await withEmulator({}, async (emulator) => {
      const cursor = createCursor({
        apiKey: "crsr_test_key_0123456789",
        apiBaseURL: emulator.url,
        allowLoopback: true,
        env: {},
        conversationSnapshots: false,
      });
      await assert.rejects(
        async () =>
          await cursor("gpt-5").doStream({
            prompt: [{ role: "user", content: [{ type: "text", text: "::text never" }] }],
            providerOptions: { cursor: { workspace: "my-project" } },
          }),
        /workspace must be an absolute directory path, got "my-project"/,
      );
      assert.equal(emulator.runs().length, 0);
    });
  });
});
