/**
 * Continuity through the real `opencode serve` (OpenCode 1.18.33) against the emulator:
 * a turn, OpenCode stopped and started again, the next turn of the same session warm
 * from the provider's restart snapshot; then the session compacted through OpenCode's
 * summarize API, one rebase on the summary, and warm turns in the same conversation
 * group afterwards.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

function field(line: string | undefined, name: string): string | undefined {
  return line?.match(new RegExp(`(?:^| )${name}=(\\S+)`))?.[1];
}

describe("continuity through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer | undefined;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_continuity_key" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("stays warm across an OpenCode restart, then rebases once after compaction", async () => {
    if (server === undefined) throw new Error("OpenCode did not start");
    const session = await newSession(server.client);
    const first = await prompt(server.client, session, "::text first turn");
    assert.equal(first.text, "first turn", JSON.stringify(first.error));
    const firstRun = emulator.runs().at(-1);

    await server.stop();
    server = await startServer(sandbox);
    const second = await prompt(server.client, session, "::text after the restart");
    assert.equal(second.text, "after the restart", JSON.stringify(second.error));
    const secondRun = emulator.runs().at(-1);
    assert.equal(secondRun?.continuity, "warm");
    assert.equal(secondRun?.conversationId, firstRun?.conversationId);
    assert.ok(
      (secondRun?.counters.cacheRead ?? 0) > 0,
      `cacheRead ${secondRun?.counters.cacheRead}`,
    );
    let log = await sandbox.readDebugLog();
    assert.match(log, new RegExp(`conversation persistence: restored sessionKey=${session} `));
    assert.match(log, new RegExp(`cache diagnosis: sessionKey=${session} .*continuity=warm`));

    const summarized = await within(
      server.client.session.summarize({
        path: { id: session },
        body: { providerID: "cursor", modelID: "composer-1" },
      }),
      60_000,
      "summarize",
    );
    assert.equal(summarized.error, undefined, JSON.stringify(summarized.error));
    log = await sandbox.readDebugLog();
    assert.match(log, new RegExp(`compaction=true sessionKey=${session} `));

    const third = await prompt(server.client, session, "::text after compaction");
    assert.equal(third.text, "after compaction", JSON.stringify(third.error));
    const fourth = await prompt(server.client, session, "::text warm again");
    assert.equal(fourth.text, "warm again", JSON.stringify(fourth.error));
    log = await sandbox.readDebugLog();
    const resets = log.split("\n").filter((l) =>
      l.includes("conversation reset:") && l.includes(`sessionKey=${session} `)
    );
    assert.equal(resets.length, 1, resets.join("\n"));
    assert.match(resets[0] ?? "", /reason=post-compaction-rebase/);
    assert.equal(field(resets[0], "conversationGroupId"), firstRun?.conversationId);
    const [rebased, warm] = emulator.runs().slice(-2);
    assert.equal(rebased?.continuity, "cold");
    assert.notEqual(rebased?.conversationId, firstRun?.conversationId);
    assert.equal(warm?.continuity, "warm");
    assert.equal(warm?.conversationId, rebased?.conversationId);
    const diagnoses = log.split("\n").filter((l) =>
      l.includes(`cache diagnosis: sessionKey=${session} `)
    );
    assert.equal(field(diagnoses.at(-1), "conversationGroupId"), firstRun?.conversationId);
  });
});
