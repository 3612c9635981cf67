/**
 * Targeted edits through the real `opencode serve` (OpenCode 1.18.33) against the
 * emulator's native edit (`::edit`: Cursor reads the file, then writes its whole changed
 * text). A CRLF file, a CRLF file with a byte order mark and a mixed-ending file, each
 * edited by a GPT model (OpenCode offers it `apply_patch`) and a Claude model (`edit`):
 * git sees exactly the one changed line and every other byte stays as it was.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

const BOM = "\uFEFF";
const FILES: Record<string, [before: string, after: string]> = {
  crlf: [
    "line one\r\nline two\r\nline three\r\nline four\r\n",
    "line one\r\nline TWO\r\nline three\r\nline four\r\n",
  ],
  bom: [
    `${BOM}line one\r\nline two\r\nline three\r\nline four\r\n`,
    `${BOM}line one\r\nline TWO\r\nline three\r\nline four\r\n`,
  ],
  mixed: [
    "line one\r\nline two\nline three\r\nline four\n",
    "line one\r\nline TWO\nline three\r\nline four\n",
  ],
};
const MODELS: Record<string, string> = { "gpt-5": "apply_patch", "claude-4.5-sonnet": "edit" };

describe("targeted edits keep line endings through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;
  const git = (...args: string[]) => {
    const run = spawnSync("git", args, { cwd: sandbox.project, encoding: "utf8", timeout: 20_000 });
    assert.equal(run.status, 0, `git ${args.join(" ")}: ${run.stderr}`);
    return run.stdout;
  };

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_edit_key" } });
    git("init", "-q");
    git("config", "core.autocrlf", "false");
    git("config", "user.email", "e2e@example.invalid");
    git("config", "user.name", "e2e");
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  for (const [model, tool] of Object.entries(MODELS)) {
    for (const [kind, [original, expected]] of Object.entries(FILES)) {
      it(`${model} (${tool}): a ${kind} file changes only the edited line`, async () => {
        const name = `${kind}-${tool}.txt`;
        const file = join(sandbox.project, name);
        await writeFile(file, original);
        git("add", "-A");
        git("commit", "-q", "-m", `add ${name}`);
        const session = await newSession(server.client);
        const answer = await prompt(
          server.client,
          session,
          `Fix the second line.\n::edit ${name} line two => line TWO`,
          model,
        );
        assert.equal(answer.error, undefined, JSON.stringify(answer.error));
        const bytes = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFile(file));
        assert.equal(JSON.stringify(bytes), JSON.stringify(expected));
        assert.equal(git("diff", "--numstat", "--", name).trim(), `1\t1\t${name}`);
        const tools = (await sessionParts(server.client, session)).flatMap((part) =>
          part.type === "tool" && part.state.status === "completed" ? [part.tool] : []
        );
        assert.ok(tools.includes(tool), tools.join());
        git("add", "-A");
        git("commit", "-q", "-m", `edit ${name}`);
      });
    }
  }
});
