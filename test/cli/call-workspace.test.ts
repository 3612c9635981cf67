/**
 * The CLI backend serving several projects from one provider: each call's `--workspace`
 * and process directory come from the call (`providerOptions.cursor.workspace`), else the
 * `cli.workspace` setting, else the current directory when the call starts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { generateText } from "ai";
import { createCursor } from "../../node.ts";
import { installFakeCursorAgent } from "../../src/testing/adapters/fake-cursor-agent/install.ts";

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
