import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { base64Encode } from "@bufbuild/protobuf/wire";
import {
  MAX_POLL_ATTEMPTS,
  pollBrowserLogin,
  pollDelayMs,
  startBrowserLogin,
} from "../../src/auth/browser-login.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { EMULATOR_ORIGIN, emulatorWithFetch, scriptedFetch } from "./support/emulator-fetch.ts";

const noSleep = () => Promise.resolve();

describe("browser login: start", () => {
  it("builds the login URL with a challenge that is the SHA-256 of the verifier", async () => {
    const login = await startBrowserLogin({
      websiteURL: "https://cursor.example/",
      randomBytes: (n) => new Uint8Array(n).fill(7),
      generateId: () => "11111111-2222-4333-8444-555555555555",
    });
    const url = new URL(login.url);
    assert.equal(url.origin + url.pathname, "https://cursor.example/loginDeepControl");
    assert.equal(url.searchParams.get("uuid"), "11111111-2222-4333-8444-555555555555");
    assert.equal(url.searchParams.get("mode"), "login");
    assert.equal(url.searchParams.get("redirectTarget"), "cli");
    assert.equal(url.searchParams.get("challenge"), login.challenge);
    assert.equal(login.verifier, base64Encode(new Uint8Array(32).fill(7), "url"));
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(login.verifier));
    assert.equal(login.challenge, base64Encode(new Uint8Array(digest), "url"));
    assert.doesNotMatch(login.verifier + login.challenge, /[+/=]/);
  });

  it("uses fresh randomness for every login", async () => {
    const [a, b] = await Promise.all([startBrowserLogin(), startBrowserLogin()]);
    assert.notEqual(a.verifier, b.verifier);
    assert.notEqual(a.uuid, b.uuid);
  });
});

describe("browser login: poll schedule", () => {
  it("backs off by 1.2x from 1 s up to 10 s", () => {
    assert.deepEqual([0, 1, 2, 3].map(pollDelayMs), [1000, 1200, 1440, 1728]);
    assert.equal(pollDelayMs(12), 8916);
    assert.equal(pollDelayMs(13), 10_000);
    assert.equal(pollDelayMs(149), 10_000);
  });

  it("gives up after 150 attempts, about 23.6 minutes of waiting", () => {
    let total = 0;
    for (let i = 0; i < MAX_POLL_ATTEMPTS; i++) total += pollDelayMs(i);
    assert.equal(MAX_POLL_ATTEMPTS, 150);
    assert.ok(total > 23 * 60_000 && total < 24 * 60_000, `total ${total} ms`);
  });
});

describe("browser login: poll", () => {
  it("returns the tokens once the emulator sees the visit and approves", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    try {
      const login = await startBrowserLogin({ websiteURL: EMULATOR_ORIGIN });
      const visit = await fetch(login.url);
      assert.equal(visit.status, 200);
      await visit.body?.cancel();
      const waits: number[] = [];
      const tokens = await pollBrowserLogin(login, {
        apiBaseURL: EMULATOR_ORIGIN,
        fetch,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
      });
      assert.match(tokens.accessToken, /^ey/);
      assert.match(tokens.refreshToken, /^ey/);
      assert.deepEqual(waits, [1000, 1200], "the first poll is pending, the second approved");
      assert.deepEqual(emulator.violations(), []);
    } finally {
      await emulator.close();
    }
  });

  it("keeps polling while the login is pending and times out after the attempt limit", async () => {
    const { emulator, fetch, requests } = await emulatorWithFetch({
      auth: { autoApproveAfterPolls: false },
    });
    try {
      const login = await startBrowserLogin({ websiteURL: EMULATOR_ORIGIN });
      await (await fetch(login.url)).body?.cancel();
      await assert.rejects(
        pollBrowserLogin(login, {
          apiBaseURL: EMULATOR_ORIGIN,
          fetch,
          sleep: noSleep,
          maxAttempts: 5,
        }),
        (error: unknown) =>
          error instanceof CursorError && error.code === "timeout" &&
          /not approved after 5 checks/.test(error.message),
      );
      assert.equal(requests.filter((r) => r === "GET /auth/poll").length, 5);
    } finally {
      await emulator.close();
    }
  });

  it("stops at once when Cursor refuses the sign-in (a verifier that does not match)", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    try {
      const login = await startBrowserLogin({ websiteURL: EMULATOR_ORIGIN });
      await (await fetch(login.url)).body?.cancel();
      await assert.rejects(
        pollBrowserLogin({ uuid: login.uuid, verifier: "not-the-verifier" }, {
          apiBaseURL: EMULATOR_ORIGIN,
          fetch,
          sleep: noSleep,
        }),
        (error: unknown) =>
          error instanceof CursorError && error.code === "permission_denied" &&
          /refused the sign-in: PKCE verifier/.test(error.message),
      );
    } finally {
      await emulator.close();
    }
  });

  it("fails after three failed polls in a row, and a pending answer resets the count", async () => {
    const failing = () => new Response("oops", { status: 502 });
    const pending = () => new Response("{}", { status: 404 });
    const ok = () => Response.json({ accessToken: "a", refreshToken: "r" });
    const recovering = scriptedFetch([failing, failing, pending, failing, failing, ok]);
    const tokens = await pollBrowserLogin({ uuid: "u", verifier: "v" }, {
      apiBaseURL: "https://api.example",
      fetch: recovering.fetch,
      sleep: noSleep,
    });
    assert.deepEqual(tokens, { accessToken: "a", refreshToken: "r" });

    const broken = scriptedFetch([failing]);
    await assert.rejects(
      pollBrowserLogin({ uuid: "u", verifier: "v" }, {
        apiBaseURL: "https://api.example",
        fetch: broken.fetch,
        sleep: noSleep,
      }),
      (error: unknown) =>
        error instanceof CursorError && error.code === "unavailable" &&
        /3 failed polls in a row/.test(error.message),
    );
    assert.equal(broken.requests.length, 3);
  });

  it("counts an approval without tokens and network failures as errors", async () => {
    const noTokens = () => Response.json({ accessToken: "" });
    const { fetch } = scriptedFetch([noTokens, new TypeError("fetch failed"), noTokens]);
    await assert.rejects(
      pollBrowserLogin({ uuid: "u", verifier: "v" }, {
        apiBaseURL: "https://api.example",
        fetch,
        sleep: noSleep,
      }),
      /failed polls in a row/,
    );
  });

  it("sends the uuid and verifier on a GET without credentials", async () => {
    const { fetch, requests } = scriptedFetch([Response.json({ accessToken: "a" })]);
    await pollBrowserLogin({ uuid: "the uuid", verifier: "the-verifier" }, {
      apiBaseURL: "https://api.example/",
      fetch,
      sleep: noSleep,
    });
    const request = requests[0];
    assert.ok(request);
    assert.equal(request.method, "GET");
    const url = new URL(request.url);
    assert.equal(url.pathname, "/auth/poll");
    assert.equal(url.searchParams.get("uuid"), "the uuid");
    assert.equal(url.searchParams.get("verifier"), "the-verifier");
    assert.equal(request.headers.get("authorization"), null);
  });

  it("stops with canceled when the signal aborts", async () => {
    const controller = new AbortController();
    const { fetch } = scriptedFetch([new Response("{}", { status: 404 })]);
    const polling = pollBrowserLogin({ uuid: "u", verifier: "v" }, {
      apiBaseURL: "https://api.example",
      fetch,
      signal: controller.signal,
    });
    controller.abort();
    await assert.rejects(
      polling,
      (error: unknown) => error instanceof CursorError && error.code === "canceled",
    );
  });
});
