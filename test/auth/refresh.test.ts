import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CURSOR_OAUTH_CLIENT_ID, refreshSession } from "../../src/auth/refresh.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { EMULATOR_ORIGIN, emulatorWithFetch, scriptedFetch } from "./support/emulator-fetch.ts";

const API = "https://api.example";
const missing = () => new Response("not here", { status: 404 });

describe("refreshSession", () => {
  it("renews through /oauth/token first, with the IDE client id, against the emulator", async () => {
    const { emulator, fetch, requests } = await emulatorWithFetch();
    try {
      const session = await emulator.auth.issueTokens();
      const renewed = await refreshSession(session.refreshToken, {
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
      });
      assert.equal(renewed.variant, "oauth-token");
      assert.notEqual(renewed.accessToken, session.accessToken);
      assert.equal(await emulator.auth.checkBearer(`Bearer ${renewed.accessToken}`), undefined);
      assert.deepEqual(emulator.auth.refreshVariants(), ["oauth-token"]);
      assert.deepEqual(requests, ["POST /oauth/token"]);
    } finally {
      await emulator.close();
    }
  });

  it("tries D, then A, then B, and keeps the old refresh token when none comes back", async () => {
    const { fetch, requests } = scriptedFetch([
      missing,
      missing,
      () => Response.json({ accessToken: "from-B" }),
    ]);
    const renewed = await refreshSession("refresh-1", { apiBaseURL: API, fetch });
    assert.deepEqual(renewed, {
      accessToken: "from-B",
      refreshToken: "refresh-1",
      variant: "re-exchange",
    });
    assert.deepEqual(requests.map((r) => new URL(r.url).pathname), [
      "/oauth/token",
      "/auth/token",
      "/auth/exchange_user_api_key",
    ]);
    const [d, a, b] = requests;
    assert.deepEqual(await d?.json(), {
      grant_type: "refresh_token",
      client_id: CURSOR_OAUTH_CLIENT_ID,
      refresh_token: "refresh-1",
    });
    assert.deepEqual(await a?.json(), { refreshToken: "refresh-1" });
    assert.equal(b?.headers.get("authorization"), "Bearer refresh-1");
  });

  it("takes a rotated refresh token when the answer has one", async () => {
    const { fetch } = scriptedFetch([
      () => Response.json({ access_token: "new", refresh_token: "rotated", shouldLogout: false }),
    ]);
    const renewed = await refreshSession("old", { apiBaseURL: API, fetch });
    assert.equal(renewed.refreshToken, "rotated");
  });

  it("treats shouldLogout as a session Cursor ended", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    try {
      const session = await emulator.auth.issueTokens();
      emulator.auth.revokeAll();
      await assert.rejects(
        refreshSession(session.refreshToken, { apiBaseURL: EMULATOR_ORIGIN, fetch }),
        (error: unknown) =>
          error instanceof CursorError && error.code === "unauthenticated" &&
          /ended the session: sign in to Cursor again/.test(error.message),
      );
    } finally {
      await emulator.close();
    }
  });

  it("stops at a 401 or 403 without trying the remaining shapes", async () => {
    for (const status of [401, 403]) {
      const { fetch, requests } = scriptedFetch([
        missing,
        () => new Response("{}", { status }),
        () => Response.json({ accessToken: "never" }),
      ]);
      await assert.rejects(
        refreshSession("r", { apiBaseURL: API, fetch }),
        (error: unknown) =>
          error instanceof CursorError && error.code === "unauthenticated" &&
          error.httpStatus === status,
      );
      assert.equal(requests.length, 2);
    }
  });

  it("treats an OAuth invalid_grant as an ended session", async () => {
    const { fetch } = scriptedFetch([
      () => Response.json({ error: "invalid_grant" }, { status: 400 }),
    ]);
    await assert.rejects(
      refreshSession("r", { apiBaseURL: API, fetch }),
      /sign in to Cursor again/,
    );
  });

  it("reports a retryable failure when Cursor could not be reached", async () => {
    const { fetch } = scriptedFetch([
      new TypeError("fetch failed"),
      () => new Response("busy", { status: 503 }),
      missing,
    ]);
    await assert.rejects(
      refreshSession("r", { apiBaseURL: API, fetch }),
      (error: unknown) =>
        error instanceof CursorError && error.code === "unavailable" && error.retryable &&
        /right now/.test(error.message),
    );
  });

  it("stops at the first shape that gets no answer: one deadline, not one per shape", async () => {
    const requests: string[] = [];
    // An endpoint that never answers and ignores the abort.
    const fetch: typeof globalThis.fetch = (input) => {
      requests.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      return new Promise<Response>(() => {});
    };
    await assert.rejects(
      refreshSession("r", { apiBaseURL: API, fetch, timeoutMs: 50 }),
      (error: unknown) =>
        error instanceof CursorError && error.code === "unavailable" && error.retryable &&
        /right now: \/oauth\/token did not answer within 50 ms/.test(error.message),
    );
    assert.deepEqual(requests, ["/oauth/token"], "the other shapes were not tried");
  });

  it("asks for a new sign-in when no shape is accepted", async () => {
    const { fetch } = scriptedFetch([missing]);
    await assert.rejects(
      refreshSession("r", { apiBaseURL: API, fetch }),
      (error: unknown) => error instanceof CursorError && error.code === "unauthenticated",
    );
  });

  it("never puts the refresh token in an error message", async () => {
    const secret = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2VjcmV0";
    const { fetch } = scriptedFetch([() => new Response(secret, { status: 401 })]);
    await assert.rejects(refreshSession(secret, { apiBaseURL: API, fetch }), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.ok(!error.message.includes(secret));
      return true;
    });
  });
});
