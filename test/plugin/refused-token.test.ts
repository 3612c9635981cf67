import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, generateText } from "ai";
import { createCursor } from "../../node.ts";
import {
  accessTokenGetter,
  parseStoredCredentials,
  tokenSourceFor,
} from "../../plugin/auth/credentials.ts";
import { withEmulator } from "../support/emulator.ts";
import { recordingFetch } from "../hardening/support/recording-fetch.ts";

const KEY = "crsr_plugin_stored_key_0123";
const quiet = { maxRetries: 0 } as const;

describe("a stored API-key login handed to the provider", () => {
  it("replaces a revoked access token with one re-exchange of the stored key", async () => {
    await withEmulator({}, async (emulator) => {
      const recorder = recordingFetch();
      const credentials = parseStoredCredentials({ type: "api", key: KEY });
      assert.ok(credentials);
      const tokens = tokenSourceFor(credentials, {
        apiBaseURL: emulator.url,
        allowLoopback: true,
        fetch: recorder.fetch,
        now: Date.now,
      });
      const cursor = createCursor({
        accessToken: accessTokenGetter(tokens),
        apiBaseURL: emulator.url,
        allowLoopback: true,
        fetch: recorder.fetch,
        env: {},
      });
      await generateText({ model: cursor("gpt-5"), prompt: "first", ...quiet });
      const first = await tokens.accessToken();
      assert.ok(await emulator.auth.revoke(first));
      const result = await generateText({ model: cursor("gpt-5"), prompt: "second", ...quiet });
      assert.match(result.text, /You said: "second"/);
      const exchanges = recorder.requests.filter((r) => r.path === "/auth/exchange_user_api_key");
      assert.equal(exchanges.length, 2);
    });
  });

  it("a login that cannot renew ends with the sign-in advice, without a retry", async () => {
    await withEmulator({}, async (emulator) => {
      const session = await emulator.auth.issueTokens();
      const credentials = parseStoredCredentials({ type: "api", key: session.accessToken });
      assert.ok(credentials?.kind === "token");
      const tokens = tokenSourceFor(credentials, {
        apiBaseURL: emulator.url,
        allowLoopback: true,
        fetch,
        now: Date.now,
      });
      const getter = accessTokenGetter(tokens);
      assert.equal(getter.rejected, undefined, "nothing to renew with");
      await emulator.auth.revoke(session.accessToken);
      const cursor = createCursor({
        accessToken: getter,
        apiBaseURL: emulator.url,
        allowLoopback: true,
        env: {},
      });
      const error = await generateText({ model: cursor("gpt-5"), prompt: "hi", ...quiet })
        .then(() => undefined, (reason: unknown) => reason);
      assert.ok(APICallError.isInstance(error));
      assert.match(error.message, /Sign in to Cursor again/);
    });
  });
});
