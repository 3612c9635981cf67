/**
 * docs/opencode.md, "OpenCode against the emulator", followed the way a newcomer would:
 * start `npm run emulator`, copy the OpenCode set-up it prints (the opencode.json and the
 * `export` line) into a fresh project, sign in with the API-key method and the example
 * key it prints, typed into a real terminal, and run the chat command it prints. The
 * answer must come from that emulator (its request log shows the Run).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { builtPackage } from "./support/package-build.ts";
import { openCodeBinary, runOpenCode, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";
import { plainText, startInTerminal } from "./support/terminal.ts";

/** What `npm run emulator` printed for OpenCode. */
interface PrintedSetup {
  readonly config: Record<string, unknown>;
  readonly env: Record<string, string>;
  readonly methodHint: string;
  readonly exampleKey: string;
  readonly chatArgs: string[];
}

/** Reads the printed set-up: the indented JSON of step 1, the export line, steps 3 and 4. */
function parsePrintedSetup(stdout: string): PrintedSetup {
  const lines = stdout.split("\n");
  const start = lines.findIndex((line) => /^\s+1\. Put this in opencode\.json/.test(line));
  const end = lines.findIndex((line) => /^\s+2\. In that project's shell/.test(line));
  assert.ok(start >= 0 && end > start, `no opencode.json snippet in:\n${stdout}`);
  const config = JSON.parse(lines.slice(start + 1, end).join("\n")) as Record<string, unknown>;
  const exportLine = lines.find((line) => /^\s+export /.test(line));
  assert.ok(exportLine, `no export line in:\n${stdout}`);
  const env = Object.fromEntries(
    exportLine.trim().replace(/^export /, "").split(/\s+/).map((pair) => {
      const at = pair.indexOf("=");
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  const login = lines.find((line) => /^\s+3\. opencode auth login/.test(line)) ?? "";
  const methodHint = login.match(/→ "cursor" → "([^"]+)"/)?.[1];
  const exampleKey = login.match(/crsr_\w+/)?.[0];
  assert.ok(methodHint && exampleKey, `no sign-in step in:\n${stdout}`);
  const chat = lines.find((line) => /^\s+4\. opencode run /.test(line)) ?? "";
  const chatMatch = chat.match(/opencode run (.*?) "([^"]*)"\s*$/);
  assert.ok(chatMatch, `no chat step in:\n${stdout}`);
  const chatArgs = ["run", ...(chatMatch[1] ?? "").split(/\s+/), chatMatch[2] ?? ""];
  return { config, env, methodHint, exampleKey, chatArgs };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

describe('docs/opencode.md "OpenCode against the emulator", step by step', () => {
  let emulator: ChildProcess;
  let emulatorOutput = "";
  let emulatorLimit: ReturnType<typeof setTimeout>;
  let setup: PrintedSetup;
  let sandbox: Sandbox;

  before(async () => {
    builtPackage();
    emulator = spawn("npm", ["run", "emulator"], {
      cwd: process.cwd(),
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    emulatorLimit = setTimeout(() => killGroup(emulator), 3 * 60_000);
    const ready = new Promise<void>((resolve, reject) => {
      const append = (chunk: Uint8Array) => {
        emulatorOutput += new TextDecoder().decode(chunk);
        if (emulatorOutput.includes("emulator: ready")) resolve();
      };
      emulator.stdout?.on("data", append);
      emulator.stderr?.on("data", append);
      emulator.on("close", () => reject(new Error(`the emulator ended:\n${emulatorOutput}`)));
    });
    await within(ready, 60_000, "npm run emulator");
    setup = parsePrintedSetup(emulatorOutput);
    sandbox = await createSandbox();
    // Only what the docs set: the sandbox's own loopback allowance is not part of them.
    delete sandbox.env.CURSOR_ALLOW_LOOPBACK;
    await sandbox.writeProjectConfig(setup.config);
  });

  after(async () => {
    clearTimeout(emulatorLimit);
    if (emulator !== undefined) killGroup(emulator);
    await sandbox?.remove();
  });

  it("prints a set-up that points this checkout's built files at itself", () => {
    const url = emulatorOutput.match(/^emulator: url=(\S+)$/m)?.[1];
    assert.ok(url);
    const provider = (setup.config.provider as Record<string, Record<string, unknown>>).cursor;
    assert.deepEqual(provider?.options, { apiBaseURL: url, allowLoopback: true });
    assert.equal(setup.env.CURSOR_API_BASE_URL, url);
    assert.equal(provider?.npm, builtPackage().provider);
    assert.deepEqual(setup.config.plugin, [builtPackage().plugin]);
  });

  it("signs in with the example key through opencode auth login", async () => {
    const terminal = startInTerminal(
      openCodeBinary(),
      ["auth", "login", "-p", "cursor", "-m", "Cursor API key (crsr_…)"],
      { cwd: sandbox.project, env: { ...sandbox.env, ...setup.env }, timeoutMs: 45_000 },
    );
    try {
      assert.match("Cursor API key (crsr_…)", new RegExp(`^${setup.methodHint}`));
      await terminal.waitFor(/Enter your API key/, 40_000);
      terminal.type(setup.exampleKey);
      await terminal.waitFor(/▪{8}/, 5_000).catch(() => undefined);
      terminal.type("\r");
      const exit = await terminal.exited();
      assert.equal(exit.code, 0, plainText(terminal.screen()));
    } finally {
      terminal.kill();
    }
    assert.deepEqual((await sandbox.readAuth()).cursor, { type: "api", key: setup.exampleKey });
  });

  it("chats with the printed command, answered by the emulator", async () => {
    const before = emulatorOutput.length;
    const result = await runOpenCode(sandbox, setup.chatArgs, {
      env: setup.env,
      timeoutMs: 60_000,
    });
    const output = result.stdout + result.stderr;
    assert.equal(result.timedOut, false, output);
    assert.equal(result.code, 0, output);
    assert.match(result.stdout, /Emulator reply \(turn 1\)\. You said: "Hello"/, output);
    const served = emulatorOutput.slice(before);
    assert.match(served, /(RunSSE|\/Run) 200/, served);
  });
});
