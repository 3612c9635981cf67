import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jwtExpiryMs, shouldRenew } from "../../src/auth/jwt.ts";
import {
  createTokenSource,
  RENEWAL_RETRY_AFTER_MS,
  type RenewedCredentials,
} from "../../src/auth/token-source.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { createCredentialRedactor } from "../../src/auth/credential-redactor.ts";
import {
  EMULATOR_ORIGIN,
  emulatorWithFetch,
  fakeJwt,
  manualClock,
  scriptedFetch,
} from "./support/emulator-fetch.ts";

const MINUTE = 60_000;

describe("shouldRenew", () => {
  it("renews five minutes before expiry, or at half the life of a short-lived token", () => {
    const long = fakeJwt({ iat: 0, exp: 3600 });
    assert.equal(shouldRenew(long, 3600_000 - 6 * MINUTE), false);
    assert.equal(shouldRenew(long, 3600_000 - 4 * MINUTE), true);
    const short = fakeJwt({ iat: 100, exp: 110 });
    assert.equal(shouldRenew(short, 104_000), false);
    assert.equal(shouldRenew(short, 106_000), true);
  });

  it("renews a token without an expiry unless the host stated one", () => {
    assert.equal(shouldRenew("opaque", 0), true);
    assert.equal(shouldRenew("opaque", 0, 60 * MINUTE), false);
  });
});

describe("createTokenSource", () => {
  it("keeps the fixed token and getter forms", async () => {
    const base = { apiBaseURL: EMULATOR_ORIGIN, fetch, now: Date.now };
    assert.equal(await createTokenSource({ ...base, accessToken: "t" }).accessToken(), "t");
    assert.equal(await createTokenSource({ ...base, accessToken: () => "g" }).accessToken(), "g");
    await assert.rejects(
      createTokenSource(base).accessToken(),
      (error: unknown) => error instanceof CursorError && error.code === "unauthenticated",
    );
  });

  it("exchanges an API key once and re-exchanges it before expiry", async () => {
    const { emulator, fetch, requests } = await emulatorWithFetch();
    const clock = manualClock();
    try {
      const source = createTokenSource({
        apiKey: "crsr_testkey123",
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        now: clock.now,
      });
      const first = await source.accessToken();
      assert.equal(await source.accessToken(), first);
      assert.equal(requests.length, 1);
      clock.advance(58 * MINUTE);
      const second = await source.accessToken();
      assert.notEqual(second, first);
      assert.deepEqual(requests, [
        "POST /auth/exchange_user_api_key",
        "POST /auth/exchange_user_api_key",
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("renews a browser login through its refresh token and reports the new credentials", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    const clock = manualClock();
    try {
      const session = await emulator.auth.issueTokens();
      const renewed: RenewedCredentials[] = [];
      const source = createTokenSource({
        accessToken: session.accessToken,
        refreshToken: session.refreshToken,
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        now: clock.now,
        onRenewed: (credentials) => void renewed.push(credentials),
      });
      assert.equal(await source.accessToken(), session.accessToken);
      assert.equal(renewed.length, 0);
      clock.advance(57 * MINUTE);
      const [a, b] = await Promise.all([source.accessToken(), source.accessToken()]);
      assert.equal(a, b, "concurrent callers share one renewal");
      assert.notEqual(a, session.accessToken);
      assert.deepEqual(emulator.auth.refreshVariants(), ["oauth-token"]);
      assert.equal(renewed.length, 1);
      assert.equal(renewed[0]?.accessToken, a);
      assert.equal(renewed[0]?.via, "refresh");
      assert.equal(renewed[0]?.expiresAt, jwtExpiryMs(a));
      assert.ok(renewed[0]?.refreshToken);
    } finally {
      await emulator.close();
    }
  });

  it("says to sign in again when Cursor ended the session", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    try {
      const session = await emulator.auth.issueTokens();
      emulator.auth.revokeAll();
      const source = createTokenSource({
        accessToken: fakeJwt({ exp: 1 }),
        refreshToken: session.refreshToken,
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        now: Date.now,
      });
      await assert.rejects(
        source.accessToken(),
        (error: unknown) =>
          error instanceof CursorError && error.code === "unauthenticated" &&
          /sign in to Cursor again/.test(error.message),
      );
    } finally {
      await emulator.close();
    }
  });

  it("keeps a still-valid token when a renewal fails for a transient reason", async () => {
    const clock = manualClock(0);
    const token = fakeJwt({ iat: 0, exp: 3600 });
    const { fetch } = scriptedFetch([new TypeError("fetch failed")]);
    const source = createTokenSource({
      accessToken: token,
      refreshToken: "r",
      apiBaseURL: "https://api.example",
      fetch,
      now: clock.now,
    });
    clock.set(3598_000);
    assert.equal(await source.accessToken(), token);
    clock.set(3601_000);
    await assert.rejects(
      source.accessToken(),
      (error: unknown) => error instanceof CursorError && error.retryable,
    );
  });

  it("does not try a renewal Cursor just failed to answer again for a few seconds", async () => {
    const clock = manualClock(3601_000);
    const token = fakeJwt({ iat: 0, exp: 3600 }); // expired
    const { fetch, requests } = scriptedFetch([
      new TypeError("fetch failed"),
      Response.json({ accessToken: "fresh" }),
    ]);
    const source = createTokenSource({
      accessToken: token,
      refreshToken: "r",
      apiBaseURL: "https://api.example",
      fetch,
      now: clock.now,
    });
    const transient = (error: unknown) =>
      error instanceof CursorError && error.retryable && /right now/.test(error.message);
    await assert.rejects(source.accessToken(), transient);
    assert.equal(requests.length, 1, "one shape: the origin did not answer");
    // The host retries the turn two seconds later: the same error at once, no new wait.
    clock.advance(2_000);
    await assert.rejects(source.accessToken(), transient);
    assert.equal(requests.length, 1);
    clock.advance(RENEWAL_RETRY_AFTER_MS);
    assert.equal(await source.accessToken(), "fresh", "tried again once the pause is over");
    assert.equal(requests.length, 2);
  });

  it("uses the host's stated expiry for a token that carries none", async () => {
    const clock = manualClock(0);
    const { fetch, requests } = scriptedFetch([Response.json({ accessToken: "fresh" })]);
    const source = createTokenSource({
      accessToken: "opaque",
      refreshToken: "r",
      expiresAt: 60 * MINUTE,
      apiBaseURL: "https://api.example",
      fetch,
      now: clock.now,
    });
    assert.equal(await source.accessToken(), "opaque");
    assert.equal(requests.length, 0);
    clock.set(58 * MINUTE);
    assert.equal(await source.accessToken(), "fresh");
  });

  it("renews on demand and ignores a failing onRenewed", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    try {
      const session = await emulator.auth.issueTokens();
      const source = createTokenSource({
        accessToken: session.accessToken,
        refreshToken: session.refreshToken,
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        now: Date.now,
        onRenewed: () => Promise.reject(new Error("disk full")),
      });
      const renewed = await source.renew?.();
      assert.ok(renewed);
      assert.notEqual(renewed, session.accessToken);
      assert.equal(await source.accessToken(), renewed);
    } finally {
      await emulator.close();
    }
  });

  it("replaces a refused token with one re-exchange, shared by every caller that saw it", async () => {
    const { emulator, fetch, requests } = await emulatorWithFetch();
    try {
      const redactor = createCredentialRedactor();
      const source = createTokenSource({
        apiKey: "crsr_testkey123",
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        now: Date.now,
        redactor,
      });
      const refused = await source.accessToken();
      const [a, b] = await Promise.all([source.rejected?.(refused), source.rejected?.(refused)]);
      assert.ok(a !== undefined && a !== refused);
      assert.equal(b, a);
      assert.equal(await source.rejected?.(refused), a, "a late caller gets the new token");
      assert.equal(requests.length, 2, "one exchange at start, one after the refusal");
      assert.equal(redactor.redact(`${refused} ${a}`), "[redacted] [redacted]");
      assert.equal(redactor.redact("crsr_testkey123"), "[redacted]");
    } finally {
      await emulator.close();
    }
  });

  it("never sends a malformed API key, nor uses it as a bearer token", async () => {
    const { emulator, fetch, requests } = await emulatorWithFetch();
    try {
      for (const apiKey of ["crsr_test\nkey123", "not-a-cursor-key-123"]) {
        const source = createTokenSource({
          apiKey,
          apiBaseURL: EMULATOR_ORIGIN,
          fetch,
          now: Date.now,
        });
        await assert.rejects(
          source.accessToken(),
          (error: unknown) => error instanceof CursorError && error.code === "config",
        );
      }
      assert.deepEqual(requests, []);
      const padded = createTokenSource({
        apiKey: "\t crsr_testkey123 \n",
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        now: Date.now,
      });
      assert.match(await padded.accessToken(), /^eyJ/);
    } finally {
      await emulator.close();
    }
  });
});
