/**
 * Stop, then type, through the real `opencode serve` against the emulator: a turn aborted
 * mid-stream and a turn aborted while its shell tool runs. The next message gets a clean
 * answer (nothing of the interrupted one streams again) and the emulator's record of what
 * the model saw holds the interrupted request, the partial answer and the tool that ran.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

/** Polls until `check` holds (every 100 ms, at most `timeoutMs`). */
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends a prompt without waiting for the answer (as the TUI does). */
async function send(server: OpenCodeServer, session: string, text: string): Promise<void> {
  await within(
    server.client.session.promptAsync({
      path: { id: session },
      body: {
        model: { providerID: "cursor", modelID: "composer-1" },
        parts: [{ type: "text", text }],
      },
    }),
    15_000,
    "prompt_async",
  );
}

/** Stops the session's turn (the TUI's Esc) and waits until it is idle. */
async function stop(server: OpenCodeServer, session: string): Promise<void> {
  await within(server.client.session.abort({ path: { id: session } }), 15_000, "abort");
  await until(
    async () => {
      const status = await within(server.client.session.status(), 15_000, "status");
      const all = (status.data ?? {}) as Record<string, { type?: string }>;
      return all[session] === undefined || all[session]?.type === "idle";
    },
    30_000,
    "an idle session",
  );
}

/** What the model saw on the latest model call. */
function modelContext(emulator: CursorEmulator): string {
  const calls = emulator.runs().at(-1)?.modelCalls ?? [];
  return (calls.at(-1)?.context ?? []).join("\n");
}

describe("stop, then type (real OpenCode)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_recovery_key" } });
    server = await startServer(sandbox);
    // One whole turn first, so OpenCode has loaded the provider and its model before any
    // turn is stopped: in 1.18.33 a Stop during the server's very first model load leaves
    // every later prompt failing with "All fibers interrupted without error" (getModel).
    const warm = await prompt(server.client, await newSession(server.client), "::text Ready.");
    assert.equal(warm.error, undefined, JSON.stringify(warm.error));
  });

  /** The failure with the server's error lines and the provider's debug log. */
  async function explain(error: unknown): Promise<string> {
    const errors = server.output().split("\n").filter((l) => /ERROR|error/.test(l)).slice(-15);
    const log = (await sandbox.readDebugLog()).split("\n").slice(-30);
    return [JSON.stringify(error), ...errors, "--- debug log ---", ...log].join("\n");
  }

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("keeps an answer stopped mid-stream in Cursor's context and never streams it again", async () => {
    const session = await newSession(server.client);
    const asked = "Write the report\n::text First half.\n::sleep 20s\n::text Second half.";
    await send(server, session, asked);
    await until(
      async () =>
        (await sessionParts(server.client, session)).some((part) =>
          part.type === "text" && part.text.includes("First half.")
        ),
      30_000,
      "the first half",
    );
    await stop(server, session);
    const next = await prompt(server.client, session, "::text Continuing now.");
    assert.equal(next.error, undefined, await explain(next.error));
    assert.equal(next.text, "Continuing now.");
    const context = modelContext(emulator);
    assert.match(context, /Write the report/);
    assert.match(context, /First half\./);
    assert.doesNotMatch(context, /^assistant: .*Second half/m);
  });

  it("keeps a tool stopped while it runs (and its edit) in Cursor's context", async () => {
    const session = await newSession(server.client);
    const file = join(sandbox.project, "stopped.txt");
    const asked = "Make the edit\n::shell echo edited > stopped.txt; sleep 20";
    await send(server, session, asked);
    await until(() => existsSync(file), 30_000, "the edit").catch(async (error) => {
      throw new Error(`${error}\n${await explain(undefined)}`);
    });
    await stop(server, session);
    const next = await prompt(server.client, session, "::text Carrying on.");
    assert.equal(next.error, undefined, await explain(next.error));
    assert.equal(next.text, "Carrying on.");
    const context = modelContext(emulator);
    assert.match(context, /Make the edit/, "the interrupted request");
    assert.match(context, /echo edited > stopped\.txt/, "the tool that ran");
    const log = await sandbox.readDebugLog();
    assert.match(log, /fresh turn: cancelled \d+ pending exec\(s\)|conversation reset: reason=/);
  });
});
