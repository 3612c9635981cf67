/**
 * Signing in with a Cursor API key through the real `opencode auth login`, typed into a
 * real pseudo-terminal: OpenCode asks for the key exactly once (the plugin adds no prompt
 * of its own), stores it in auth.json, and the next chat exchanges that stored key with
 * the emulator and answers.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type CommandResult, openCodeBinary, runOpenCode } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";
import { plainText, startInTerminal } from "./support/terminal.ts";

const KEY = "crsr_e2e_typed_key_0123456789";
const METHOD = "Cursor API key (crsr_…)";

describe("opencode auth login → Cursor API key, typed in a terminal (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let screen = "";
  let login: { code: number | null; timedOut: boolean };

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    const terminal = startInTerminal(
      openCodeBinary(),
      ["auth", "login", "-p", "cursor", "-m", METHOD],
      { cwd: sandbox.project, env: sandbox.env, timeoutMs: 45_000 },
    );
    try {
      await terminal.waitFor(/Enter your API key/, 40_000);
      terminal.type(KEY);
      await terminal.waitFor(/crsr_e2e_typed/, 5_000).catch(() => undefined);
      terminal.type("\r");
      login = await terminal.exited();
    } finally {
      screen = terminal.screen();
      terminal.kill();
    }
  });

  after(async () => {
    await emulator?.close();
    await sandbox?.remove();
  });

  it("asks for the key exactly once and finishes", () => {
    const text = plainText(screen);
    assert.equal(login.timedOut, false, text);
    assert.equal(login.code, 0, text);
    // A prompt shows as "◆  <question>" while it waits and "◇  <question>" once answered.
    const asked = [...text.matchAll(/◆ +([^\n]+)/g)].map((match) => match[1]?.trim());
    assert.deepEqual(asked, ["Enter your API key"], text);
    assert.equal(text.match(/◇ +Enter your API key/g)?.length, 1, text);
    assert.doesNotMatch(text, /Paste your Cursor API key/);
    assert.ok(!text.includes(KEY), "the typed key is masked on screen");
    assert.match(text, /└ +Done/);
  });

  it("stores the key as an api entry for cursor", async () => {
    const auth = await sandbox.readAuth();
    assert.deepEqual(auth.cursor, { type: "api", key: KEY });
  });

  it("chats against the emulator with the stored key", async () => {
    const result: CommandResult = await runOpenCode(
      sandbox,
      ["run", "--model", "cursor/composer-1", "--format", "json", "--title", "api key"],
      { stdin: "::text answered with the typed key", timeoutMs: 60_000 },
    );
    const output = result.stdout + result.stderr;
    assert.equal(result.timedOut, false, output);
    assert.equal(result.code, 0, output);
    const texts = result.stdout.split("\n").flatMap((line) => {
      if (!line.startsWith("{")) return [];
      const event = JSON.parse(line) as { type: string; part?: { text?: string } };
      return event.type === "text" ? [event.part?.text ?? ""] : [];
    });
    assert.equal(texts.join(""), "answered with the typed key", output);
    assert.ok(
      emulator.auth.events().some((event) => event.kind === "exchange" && event.ok),
      "the stored key was exchanged",
    );
    assert.equal(emulator.runs().at(-1)?.status, "ok");
  });
});
