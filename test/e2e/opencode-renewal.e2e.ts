/**
 * A browser login whose access token expires between two turns of one OpenCode session:
 * the plugin's loader renews it through the refresh token before the second turn, saves
 * the renewed login back to auth.json through OpenCode's client, and the person sees
 * two ordinary answers.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

/** Access tokens of this test live 8 s (renewed in their last 4 s). */
const TOKEN_LIFETIME_MS = 8_000;

describe("an expired token renewed mid-session (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;
  let seeded: { accessToken: string; refreshToken: string };

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    emulator.auth.setTokenLifetime(TOKEN_LIFETIME_MS);
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    seeded = await emulator.auth.issueTokens();
    await sandbox.writeAuth({
      cursor: {
        type: "oauth",
        access: seeded.accessToken,
        refresh: seeded.refreshToken,
        expires: Date.now() + TOKEN_LIFETIME_MS,
      },
    });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("answers both turns, renewing the expired token in between and saving it", async () => {
    const session = await newSession(server.client);
    const first = await prompt(server.client, session, "::text before expiry");
    assert.equal(first.text, "before expiry", JSON.stringify(first.error));

    // Every token issued so far (the seeded one and any renewal during the first turn)
    // is past its expiry after this wait; the emulator rejects expired tokens.
    await new Promise((resolve) => setTimeout(resolve, TOKEN_LIFETIME_MS + 1_000));
    assert.ok(
      await emulator.auth.checkBearer(`Bearer ${seeded.accessToken}`),
      "the seeded token has expired",
    );
    const renewalsBefore = emulator.auth.refreshVariants().length;

    const second = await prompt(server.client, session, "::text after expiry");
    assert.equal(second.error, undefined, JSON.stringify(second.error));
    assert.equal(second.text, "after expiry");
    const renewals = emulator.auth.refreshVariants();
    assert.ok(renewals.length > renewalsBefore, "the token was renewed for the second turn");
    assert.equal(renewals.at(-1), "oauth-token");
    assert.equal(emulator.runs().at(-1)?.status, "ok");

    const saved = (await sandbox.readAuth()).cursor as {
      type: string;
      access: string;
      expires: number;
    };
    assert.equal(saved.type, "oauth");
    assert.notEqual(saved.access, seeded.accessToken, "the renewed login was saved back");
    assert.ok(saved.expires > Date.now() - TOKEN_LIFETIME_MS);
  });
});
