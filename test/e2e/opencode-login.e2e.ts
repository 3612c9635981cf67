/**
 * Signing in with the real `opencode auth login`: the browser login (PKCE URL printed,
 * a browser opened through `BROWSER`, the emulator approving, the poll finishing) stores
 * an OAuth entry in auth.json and fills the model cache.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { jwtExpiryMs } from "../../src/auth/jwt.ts";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { writeFakeBrowser } from "./support/fake-browser.ts";
import { builtPackage } from "./support/package-build.ts";
import { type CommandResult, runOpenCode } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

describe("opencode auth login → Cursor browser login (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let result: CommandResult;
  let visits: string;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({
      CURSOR_API_BASE_URL: emulator.url,
      CURSOR_WEBSITE_URL: emulator.url,
    });
    const browser = await writeFakeBrowser(sandbox.root);
    visits = browser.visits;
    await sandbox.writeProjectConfig({ plugin: [built.plugin] });
    result = await runOpenCode(
      sandbox,
      ["auth", "login", "-p", "cursor", "-m", "Cursor account (browser login)"],
      { timeoutMs: 60_000, env: { BROWSER: browser.command } },
    );
  });

  after(async () => {
    await emulator?.close();
    await sandbox?.remove();
  });

  it("prints the login URL and finishes once the emulator approves", async () => {
    const output = result.stdout + result.stderr;
    assert.equal(result.timedOut, false, output);
    assert.equal(result.code, 0, output);
    const printed = output.match(/http:\/\/127\.0\.0\.1:\d+\/loginDeepControl\?\S+/)?.[0];
    assert.ok(printed, `no login URL in:\n${output}`);
    const visited = (await readFile(visits, "utf8")).trim();
    assert.equal(visited, printed, "the browser opened the printed URL");
    const events = emulator.auth.events();
    assert.ok(events.some((event) => event.kind === "login-visit"), "the login page was visited");
    assert.ok(
      events.some((event) => event.kind === "poll" && event.ok),
      "a poll returned the tokens",
    );
    assert.deepEqual(emulator.violations(), []);
  });

  it("stores the browser login in auth.json", async () => {
    const auth = await sandbox.readAuth();
    const entry = auth.cursor as { type: string; access: string; refresh: string; expires: number };
    assert.equal(entry.type, "oauth");
    assert.equal(await emulator.auth.checkBearer(`Bearer ${entry.access}`), undefined);
    assert.ok(entry.refresh.length > 20);
    assert.equal(entry.expires, jwtExpiryMs(entry.access));
  });

  it("fills the model cache right after the login", async () => {
    const cache = JSON.parse(await readFile(sandbox.modelCache, "utf8"));
    assert.equal(cache.models.length, 6);
  });
});
