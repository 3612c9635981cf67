/**
 * One provider serving several projects (an OpenCode server with many directories): every
 * call acts in the workspace it names (`providerOptions.cursor.workspace`), else the
 * `workspace` setting, else the current directory at call time. The CLI backend likewise
 * takes each call's `--workspace` and process directory from the call, else the
 * `cli.workspace` setting, else the current directory when the call starts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fromBinary } from "@bufbuild/protobuf";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { createCursor } from "../../../node.ts";
import { callWorkspace } from "../../../src/provider/model-call/call-workspace.ts";
import { CursorError } from "../../../src/core/cursor-error.ts";
import { directiveScenario } from "../../../src/testing/mod.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../../src/gen/agent/v1/request_context_pb.ts";
import { installFakeCursorAgent } from "../../../src/testing/adapters/fake-cursor-agent/install.ts";
import { withEmulator } from "../../support/emulator.ts";

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

interface StartRecord {
  readonly event: string;
  readonly argv: string[];
  readonly cwd: string;
  readonly chatId: string | null;
}

async function starts(file: string): Promise<StartRecord[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
    .filter((entry: StartRecord) => entry.event === "start");
}

function workspaceArg(argv: readonly string[]): string | undefined {
  const index = argv.indexOf("--workspace");
  return index < 0 ? undefined : argv[index + 1];
}

describe("the CLI backend's workspace per call", () => {
  it("runs concurrent calls of two projects each in its own directory and resumes each one's chat", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "cursor-cli-ws-")));
    try {
      const alpha = join(dir, "alpha");
      const beta = join(dir, "beta");
      mkdirSync(alpha);
      mkdirSync(beta);
      const fake = await installFakeCursorAgent(join(dir, "bin"));
      const recordFile = join(dir, "record.jsonl");
      const cursor = createCursor({
        backend: "cli",
        cli: { binaryPath: fake.binaryPath, sessionResume: true },
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          FAKE_CURSOR_AGENT_STATE_DIR: join(dir, "state"),
          FAKE_CURSOR_AGENT_RECORD: recordFile,
        },
      });
      const ask = (workspace: string, text: string) =>
        generateText({
          model: cursor("auto"),
          prompt: text,
          maxRetries: 0,
          providerOptions: { cursor: { workspace } },
        });
      // The same first message in both projects: only the workspace tells the chats apart.
      const [alphaFirst] = await Promise.all([ask(alpha, "Hello"), ask(beta, "Hello")]);
      const recorded = await starts(recordFile);
      assert.equal(recorded.length, 2);
      for (const start of recorded) {
        const workspace = workspaceArg(start.argv);
        assert.ok(workspace === alpha || workspace === beta, start.argv.join(" "));
        assert.equal(start.cwd, workspace, "the process runs in the call's workspace");
      }
      assert.deepEqual(recorded.map((s) => workspaceArg(s.argv)).sort(), [alpha, beta].sort());
      const alphaChat = recorded.find((s) => s.cwd === alpha)?.chatId;
      const betaChat = recorded.find((s) => s.cwd === beta)?.chatId;
      assert.ok(alphaChat && betaChat && alphaChat !== betaChat, `${alphaChat} ${betaChat}`);
      await generateText({
        model: cursor("auto"),
        messages: [
          { role: "user", content: "Hello" },
          { role: "assistant", content: alphaFirst.text },
          { role: "user", content: "And again" },
        ],
        maxRetries: 0,
        providerOptions: { cursor: { workspace: alpha } },
      });
      const resumed = (await starts(recordFile)).at(-1);
      assert.equal(resumed?.cwd, alpha);
      const resumeIndex = resumed?.argv.indexOf("--resume") ?? -1;
      assert.equal(resumed?.argv[resumeIndex + 1], alphaChat, "alpha's own chat resumed");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a call naming no workspace takes the current directory when it starts", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "cursor-cli-cwd-")));
    const before = process.cwd();
    try {
      const later = join(dir, "later");
      mkdirSync(later);
      const fake = await installFakeCursorAgent(join(dir, "bin"));
      const recordFile = join(dir, "record.jsonl");
      const cursor = createCursor({
        backend: "cli",
        cli: { binaryPath: fake.binaryPath },
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          FAKE_CURSOR_AGENT_STATE_DIR: join(dir, "state"),
          FAKE_CURSOR_AGENT_RECORD: recordFile,
        },
      });
      process.chdir(later);
      await generateText({ model: cursor("auto"), prompt: "Hi", maxRetries: 0 });
      const [start] = await starts(recordFile);
      assert.equal(workspaceArg(start?.argv ?? []), later);
      assert.equal(start?.cwd, later);
    } finally {
      process.chdir(before);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
