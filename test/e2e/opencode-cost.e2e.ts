/**
 * Session cost in the real `opencode serve` (1.18.33) against the emulator: a priced
 * model's steps cost what the provider's billing ledger charged (carried as
 * `providerMetadata.copilot.totalNanoAiu`), an unpriced one (Auto) costs nothing, and the
 * context meter still reads occupancy-shaped usage.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { AssistantMessage } from "@opencode-ai/sdk";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

describe("session cost through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_cost_key" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  async function assistantMessages(session: string): Promise<AssistantMessage[]> {
    const messages = await within(
      server.client.session.messages({ path: { id: session } }),
      15_000,
      "session.messages",
    );
    return (messages.data ?? []).flatMap((m) =>
      m.info.role === "assistant" ? [m.info as AssistantMessage] : []
    );
  }

  it("a priced model's session costs exactly what the ledger billed", async () => {
    const session = await newSession(server.client);
    const answer = await prompt(server.client, session, "Run it.\n::shell echo cost\n::text done");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const cost = (await assistantMessages(session)).reduce((sum, m) => sum + m.cost, 0);
    assert.ok(cost > 0, `session cost ${cost}`);
    const log = await sandbox.readDebugLog();
    const billed = log.split("\n").filter((l) =>
      l.includes("billing: step=") && l.includes(`sessionKey=${session} `)
    ).map((l) => Number(/sessionBilledUsd=([\d.]+)/.exec(l)?.[1]));
    assert.ok(billed.length >= 2, "a billing: line per finish");
    assert.ok(Math.abs((billed.at(-1) ?? 0) - cost) < 1e-6, `${billed.at(-1)} vs ${cost}`);
    assert.match(
      log,
      new RegExp(`turn usage validation: sessionKey=${session} status=ok .*usage=occupancy`),
    );
  });

  it("an unpriced model (Auto) costs nothing", async () => {
    const session = await newSession(server.client);
    const answer = await prompt(server.client, session, "::text free", "default");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const messages = await assistantMessages(session);
    assert.ok(messages.length > 0);
    assert.equal(messages.reduce((sum, m) => sum + m.cost, 0), 0);
    const log = await sandbox.readDebugLog();
    assert.match(
      log,
      new RegExp(`billing: step=turn-end sessionKey=${session} .*pricing=unpriced`),
    );
  });
});
