import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { type ModelMessage, streamText } from "ai";
import { createCursorProvider } from "../../src/provider/cursor-provider.ts";
import { createNodeGitRunner } from "../../src/adapters/node/process/git-runner.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../src/gen/agent/v1/request_context_pb.ts";
import { discoverGit, type GitOutcome, type GitRunner } from "../../src/agent-run/git-facts.ts";
import { createWorkspaceGit } from "../../src/provider/direct/config/workspace-git.ts";
import { directiveScenario } from "../../src/testing/mod.ts";
import { withEmulator } from "../support/emulator.ts";

/** A git that answers from a table; a `null` answer never comes (the runner's limit passes). */
function fakeGit(answers: Record<string, string | null>): GitRunner & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    run(args) {
      const command = args.join(" ");
      calls.push(command);
      const answer = answers[command];
      const outcome: GitOutcome = answer === undefined
        ? { kind: "failed", exitCode: 128 }
        : answer === null
        ? { kind: "timed-out" }
        : { kind: "ok", stdout: answer };
      return Promise.resolve(outcome);
    },
  };
}

const REPO = {
  "rev-parse --show-toplevel": "/ws\n",
  "status --porcelain -b": "## main...origin/main\n M src/a.ts\n?? notes.md\n",
  "remote get-url origin": "https://example.com/acme/app.git\n",
};

function git(cwd: string, ...args: string[]): void {
  const run = spawnSync("git", args, { cwd, encoding: "utf8", timeout: 10_000 });
  assert.equal(run.status, 0, run.stderr);
}

describe("git facts", () => {
  it("reads branch, status and origin of a repository", async () => {
    const { facts } = await discoverGit(fakeGit(REPO), "/ws/sub", () => 0);
    assert.deepEqual(facts, {
      repos: [{
        path: "/ws",
        branch: "main",
        status: " M src/a.ts\n?? notes.md",
        remoteUrl: "https://example.com/acme/app.git",
      }],
      repoInfoComplete: true,
      statusComplete: true,
    });
  });

  it("never sends credentials a remote URL carries", async () => {
    const { facts } = await discoverGit(
      fakeGit({
        ...REPO,
        "remote get-url origin": "https://me:ghp_secret123@github.com/a/b.git\n",
      }),
      "/ws",
      () => 0,
    );
    assert.equal(facts.repos[0]?.remoteUrl, "https://github.com/a/b.git");
  });

  it("outside a repository there are no repos, and that is complete", async () => {
    const { facts, timedOut } = await discoverGit(fakeGit({}), "/tmp/x", () => 0);
    assert.deepEqual(facts, { repos: [], repoInfoComplete: true, statusComplete: true });
    assert.deepEqual(timedOut, []);
  });

  it("a timed-out status sends the repository with an empty, incomplete status and logs the timeout", async () => {
    const slow = fakeGit({ ...REPO, "status --porcelain -b": null });
    const { logger, lines } = createMemoryLogger();
    const workspace = createWorkspaceGit({ git: slow, now: () => 1_000 });
    const facts = await workspace.facts(logger, "/ws");
    assert.equal(facts?.statusComplete, false);
    assert.equal(facts?.repos[0]?.status, "");
    assert.equal(facts?.repos[0]?.branch, "");
    assert.deepEqual(lines, [
      "git: `status --porcelain -b` timed out after 5000ms",
      "git: discovery elapsedMs=0 statusMs=0 statusComplete=false repos=1",
    ]);
  });

  it("a second build within 30 s reuses the first discovery; a later one discovers again", async () => {
    const counting = fakeGit(REPO);
    let clock = 10_000;
    const { logger, lines } = createMemoryLogger();
    const workspace = createWorkspaceGit({ git: counting, now: () => clock });
    const first = await workspace.facts(logger, "/ws");
    clock += 12_345;
    assert.equal(await workspace.facts(logger, "/ws"), first);
    assert.equal(lines.at(-1), "workspace facts: reused ageMs=12345");
    assert.equal(counting.calls.length, 3);
    clock += 30_000;
    await workspace.facts(logger, "/ws");
    assert.equal(counting.calls.length, 6);
    assert.match(
      lines.at(-1) ?? "",
      /^git: discovery elapsedMs=\d+ statusMs=\d+ statusComplete=true/,
    );
  });

  it("the web core has no git, and its line says so", async () => {
    const { logger, lines } = createMemoryLogger();
    const facts = await createWorkspaceGit({ git: undefined, now: Date.now })
      .facts(logger, "/ws");
    assert.equal(facts, undefined);
    assert.match(lines[0] ?? "", /^git: unavailable in this runtime/);
  });
});

describe("Node git runner", () => {
  it("kills a git that outlives its time limit, whatever it started", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-slow-git-"));
    try {
      const slowGit = join(dir, "git");
      // A child that keeps the output pipe open: only a process-group kill ends it.
      writeFileSync(slowGit, "#!/bin/sh\nsleep 30\necho never\n");
      chmodSync(slowGit, 0o755);
      const runner = createNodeGitRunner({ gitPath: slowGit });
      const outcome = await runner.run(["status", "--porcelain", "-b"], {
        cwd: dir,
        timeoutMs: 200,
      });
      assert.deepEqual(outcome, { kind: "timed-out" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a real repository", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-git-"));
    try {
      git(dir, "init", "-q", "-b", "trunk");
      writeFileSync(join(dir, "a.txt"), "a\n");
      const { facts } = await discoverGit(createNodeGitRunner(), dir, Date.now);
      assert.equal(facts.repos[0]?.branch, "trunk");
      assert.equal(facts.repos[0]?.status, "?? a.txt");
      assert.equal(facts.statusComplete, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("git facts and the prompt cache", () => {
  it("two warm turns with a file edit between them send byte-identical request contexts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-git-ws-"));
    const contexts: RequestContext[] = [];
    try {
      git(dir, "init", "-q", "-b", "main");
      writeFileSync(join(dir, "a.txt"), "first\n");
      git(dir, "add", "a.txt");
      git(dir, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "one");
      let offsetMs = 0;
      await withEmulator({
        scenario: (context) => {
          contexts.push(fromBinary(RequestContextSchema, context.requestContextBytes));
          return directiveScenario(context);
        },
      }, async (emulator) => {
        const { logger, lines } = createMemoryLogger();
        const cursor = createCursorProvider({
          apiKey: "crsr_test_key_0123456789",
          apiBaseURL: emulator.url,
          allowLoopback: true,
          env: {},
          conversationSnapshots: false,
          debug: logger,
          now: () => Date.now() + offsetMs,
          workspace: { workspaceRoot: dir },
        }, { git: () => createNodeGitRunner() });
        const messages: ModelMessage[] = [];
        const turn = async (text: string, sessionId: string) => {
          messages.push({ role: "user", content: text });
          const result = streamText({
            model: cursor("gpt-5"),
            messages,
            providerOptions: { cursor: { sessionId } },
          });
          await result.text;
          messages.push(...(await result.response).messages);
        };
        await turn("Turn 1", "ses_git");
        writeFileSync(join(dir, "a.txt"), "edited\n");
        writeFileSync(join(dir, "b.txt"), "new\n");
        offsetMs = 31_000;
        await turn("Turn 2", "ses_git");
        offsetMs = 62_000;
        await turn("Turn 3", "ses_git");
        const runs = emulator.runs();
        assert.equal(runs.length, 3);
        assert.deepEqual(runs.map((r) => r.continuity), ["cold", "warm", "warm"]);
        const hashes = new Set(runs.map((r) => r.requestContextSha256));
        assert.equal(hashes.size, 1, "the request context bytes never changed");
        assert.equal(contexts[0]?.gitRepos[0]?.branchName, "main");
        assert.equal(contexts[0]?.gitRepos[0]?.status, "", "clean when the conversation began");
        assert.equal(contexts[0]?.gitStatusInfoComplete, true);
        assert.equal(
          lines.filter((l) => l.startsWith("git: discovery")).length,
          1,
          "warm turns run no git",
        );
        // A new conversation builds its context from the current status; one more within 30 s
        // takes that discovery.
        messages.length = 0;
        await turn("Second chat", "ses_other");
        assert.equal(contexts.at(-1)?.gitRepos[0]?.status, " M a.txt\n?? b.txt");
        messages.length = 0;
        await turn("Third chat", "ses_third");
        assert.equal(contexts.at(-1)?.gitRepos[0]?.status, " M a.txt\n?? b.txt");
        assert.match(lines.join("\n"), /workspace facts: reused ageMs=\d+/);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a Run whose git status timed out is sent the repository with an empty, incomplete status", async () => {
    const contexts: RequestContext[] = [];
    await withEmulator({
      scenario: (context) => {
        contexts.push(fromBinary(RequestContextSchema, context.requestContextBytes));
        return directiveScenario(context);
      },
    }, async (emulator) => {
      const { logger, lines } = createMemoryLogger();
      const cursor = createCursorProvider({
        apiKey: "crsr_test_key_0123456789",
        apiBaseURL: emulator.url,
        allowLoopback: true,
        env: {},
        conversationSnapshots: false,
        debug: logger,
        workspace: { workspaceRoot: "/ws" },
      }, { git: () => fakeGit({ ...REPO, "status --porcelain -b": null }) });
      await streamText({ model: cursor("gpt-5"), prompt: "Hi" }).text;
      const sent = contexts[0];
      assert.equal(sent?.gitRepos[0]?.path, "/ws");
      assert.equal(sent?.gitRepos[0]?.status, "");
      assert.equal(sent?.gitRepoInfoComplete, true);
      // Incomplete: the flag stays off the wire (only `true` is sent).
      assert.equal(sent?.gitStatusInfoComplete, undefined);
      assert.ok(lines.includes("git: `status --porcelain -b` timed out after 5000ms"));
    });
  });
});
