import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, generateText } from "ai";
import { createCursor } from "../../node.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { exchangeApiKey } from "../../src/auth/api-key-exchange.ts";
import { refreshSession } from "../../src/auth/refresh.ts";
import { pollBrowserLogin, startBrowserLogin } from "../../src/auth/browser-login.ts";
import { resolvePluginSettings } from "../../plugin/settings.ts";
import { apiKeyMethod } from "../../plugin/auth/auth-methods.ts";
import { parseStoredCredentials, tokenSourceFor } from "../../plugin/auth/credentials.ts";
import { withEmulator } from "../support/emulator.ts";
import { recordingFetch, requestContains } from "./support/recording-fetch.ts";

const KEY = "crsr_hardening_key_0123456789";
const quiet = { maxRetries: 0 } as const;

function isConfigError(pattern: RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof CursorError, `a CursorError, got ${String(error)}`);
    assert.equal(error.code, "config");
    assert.match(error.message, pattern);
    return true;
  };
}

/** The CursorError behind a model call failure. */
function cursorCause(error: unknown): CursorError {
  assert.ok(APICallError.isInstance(error), `an APICallError, got ${String(error)}`);
  assert.ok(error.cause instanceof CursorError, "caused by a CursorError");
  return error.cause;
}

describe("Cursor origins are https, or loopback http only when allowed", () => {
  const refused: Array<[string, { apiBaseURL?: string; env?: Record<string, string> }]> = [
    ["plain http to another host", { apiBaseURL: "http://api.example" }],
    ["plain http from CURSOR_API_BASE_URL", { env: { CURSOR_API_BASE_URL: "http://api.example" } }],
    ["plain http on loopback without the allowance", { apiBaseURL: "http://127.0.0.1:9" }],
    ["another scheme", { apiBaseURL: "ftp://api2.cursor.sh" }],
    ["loopback allowed but another host", {
      apiBaseURL: "http://api.example",
      env: { CURSOR_ALLOW_LOOPBACK: "1" },
    }],
  ];
  for (const [name, settings] of refused) {
    it(`refuses ${name} before anything is sent`, () => {
      const recorder = recordingFetch();
      assert.throws(
        () => createCursor({ apiKey: KEY, fetch: recorder.fetch, env: {}, ...settings }),
        isConfigError(/allowLoopback.*CURSOR_ALLOW_LOOPBACK/),
      );
      assert.deepEqual(recorder.requests, []);
    });
  }

  it("refuses credentials in the URL", () => {
    assert.throws(
      () => createCursor({ apiKey: KEY, apiBaseURL: "https://user:pw@api2.cursor.sh", env: {} }),
      isConfigError(/credentials in the URL/),
    );
  });

  it("checks the URL in every auth call, so a key or token never goes out over plain http", async () => {
    const recorder = recordingFetch();
    const http = { apiBaseURL: "http://api.example", fetch: recorder.fetch };
    await assert.rejects(exchangeApiKey(KEY, http), isConfigError(/https is required/));
    await assert.rejects(refreshSession("refresh-token-1", http), isConfigError(/https/));
    await assert.rejects(
      pollBrowserLogin({ uuid: "u", verifier: "v" }, { ...http, sleep: () => Promise.resolve() }),
      isConfigError(/https/),
    );
    await assert.rejects(
      startBrowserLogin({ websiteURL: "http://cursor.example" }),
      isConfigError(/Invalid Cursor website URL "http:\/\/cursor\.example"/),
    );
    assert.deepEqual(recorder.requests, []);
  });

  for (const value of ["1", "true", "TRUE"]) {
    it(`CURSOR_ALLOW_LOOPBACK=${value} lets a loopback emulator stand in`, async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = createCursor({
          apiKey: KEY,
          apiBaseURL: emulator.url,
          env: { CURSOR_ALLOW_LOOPBACK: value },
        });
        const result = await generateText({ model: cursor("gpt-5"), prompt: "hi", ...quiet });
        assert.match(result.text, /You said: "hi"/);
      });
      assert.equal(
        resolvePluginSettings({ env: { CURSOR_ALLOW_LOOPBACK: value } }).allowLoopback,
        true,
      );
    });
  }

  it("an explicit allowLoopback: false wins over the environment", () => {
    assert.throws(
      () =>
        createCursor({
          apiKey: KEY,
          apiBaseURL: "http://127.0.0.1:9",
          allowLoopback: false,
          env: { CURSOR_ALLOW_LOOPBACK: "1" },
        }),
      isConfigError(/allowLoopback/),
    );
    assert.equal(resolvePluginSettings({ env: {} }).allowLoopback, false);
  });
});

describe("the API key", () => {
  it("is trimmed, and never leaves the process except to the exchange endpoint", async () => {
    await withEmulator({}, async (emulator) => {
      const recorder = recordingFetch();
      const cursor = createCursor({
        apiKey: ` \t${KEY}\n`,
        apiBaseURL: emulator.url,
        allowLoopback: true,
        fetch: recorder.fetch,
        env: {},
      });
      const result = await generateText({ model: cursor("gpt-5"), prompt: "hi", ...quiet });
      assert.match(result.text, /You said: "hi"/);
      const paths = new Set(recorder.requests.map((r) => r.path));
      for (const path of ["/agent.v1.AgentService/RunSSE", "/aiserver.v1.BidiService/BidiAppend"]) {
        assert.ok(paths.has(path), `${path} was called (saw ${[...paths].join(", ")})`);
      }
      const carrying = recorder.requests.filter((r) => requestContains(r, KEY));
      assert.deepEqual(
        carrying.map((r) => `${r.method} ${r.path}`),
        ["POST /auth/exchange_user_api_key"],
      );
      for (const request of recorder.requests) {
        if (request.headers.authorization === undefined) continue;
        if (request.path === "/auth/exchange_user_api_key") continue;
        assert.match(request.headers.authorization, /^Bearer eyJ/, `${request.path} sends a JWT`);
      }
    });
  });

  const malformed: Array<[string, string, RegExp]> = [
    ["an inner newline", `${KEY.slice(0, 10)}\n${KEY.slice(10)}`, /a line break at position 11/],
    ["an inner tab", `${KEY.slice(0, 10)}\t${KEY.slice(10)}`, /a tab/],
    ["an inner space", `${KEY.slice(0, 10)} ${KEY.slice(10)}`, /a space/],
    ["no crsr_ prefix", "sk-hardening-0123456789", /starts with "crsr_"/],
  ];
  for (const [name, key, pattern] of malformed) {
    it(`with ${name} fails with a clear config error and sends nothing`, async () => {
      const recorder = recordingFetch();
      const cursor = createCursor({
        apiKey: key,
        apiBaseURL: "https://api2.cursor.sh",
        agentBaseURL: "https://agent.api5.cursor.sh",
        fetch: recorder.fetch,
        env: {},
      });
      const error = await generateText({ model: cursor("gpt-5"), prompt: "hi", ...quiet })
        .then(() => undefined, (reason: unknown) => reason);
      const cause = cursorCause(error);
      assert.equal(cause.code, "config");
      assert.match(cause.message, /^Invalid Cursor API key/);
      assert.match(cause.message, pattern);
      assert.ok(!cause.message.includes(key.trim()), "the key is not repeated");
      assert.deepEqual(recorder.requests, []);
    });
  }
});

describe("a revoked access token with an API key configured", () => {
  it("is replaced by one re-exchange of the key, and the call succeeds", async () => {
    await withEmulator({}, async (emulator) => {
      const recorder = recordingFetch();
      const cursor = createCursor({
        apiKey: KEY,
        apiBaseURL: emulator.url,
        allowLoopback: true,
        fetch: recorder.fetch,
        env: {},
      });
      await generateText({ model: cursor("gpt-5"), prompt: "first", ...quiet });
      const runs = recorder.requests.filter((r) => r.path.endsWith("/RunSSE"));
      const first = runs[0]?.headers.authorization?.replace(/^Bearer /, "") ?? "";
      assert.ok(await emulator.auth.revoke(first), "the emulator revoked the token");

      const result = await generateText({ model: cursor("gpt-5"), prompt: "second", ...quiet });
      assert.match(result.text, /You said: "second"/);
      const exchanges = recorder.requests.filter((r) => r.path === "/auth/exchange_user_api_key");
      assert.equal(exchanges.length, 2, "one exchange at start, one after the refusal");
      const last = recorder.requests.filter((r) => r.path.endsWith("/RunSSE")).at(-1);
      assert.notEqual(last?.headers.authorization, `Bearer ${first}`);
    });
  });

  it("fails with the sign-in advice when the key no longer works either", async () => {
    await withEmulator({}, async (emulator) => {
      let keyRevoked = false;
      const recorder = recordingFetch(
        undefined,
        (request) =>
          keyRevoked && request.path === "/auth/exchange_user_api_key"
            ? Response.json({ code: "unauthenticated", message: "API key revoked" }, {
              status: 401,
            })
            : undefined,
      );
      const cursor = createCursor({
        apiKey: KEY,
        apiBaseURL: emulator.url,
        allowLoopback: true,
        fetch: recorder.fetch,
        env: {},
      });
      await generateText({ model: cursor("gpt-5"), prompt: "first", ...quiet });
      emulator.auth.revokeAll();
      keyRevoked = true;
      const error = await generateText({ model: cursor("gpt-5"), prompt: "second", ...quiet })
        .then(() => undefined, (reason: unknown) => reason);
      assert.ok(APICallError.isInstance(error), `an APICallError, got ${String(error)}`);
      assert.match(error.message, /Sign in to Cursor again/);
      assert.equal(cursorCause(error).code, "unauthenticated");
      const exchanges = recorder.requests.filter((r) => r.path === "/auth/exchange_user_api_key");
      assert.ok(exchanges.length >= 2 && exchanges.length <= 3, `${exchanges.length} exchanges`);
    });
  });
});

describe("the OpenCode API-key sign-in", () => {
  // OpenCode 1.18.33 asks every `api` method for the key itself ("Enter your API key"),
  // after the method's own prompts, and never passes that answer to `authorize`: a
  // method with a prompt of its own asks twice.
  it("asks for the key once: the method brings no prompt and no authorize step", () => {
    const method = apiKeyMethod();
    assert.equal(method.type, "api");
    assert.ok(!("prompts" in method), "no prompt of its own");
    assert.ok(!("authorize" in method), "nothing that would need the key OpenCode asked for");
  });

  const settingsFor = (apiBaseURL: string, env: Record<string, string>) =>
    resolvePluginSettings({ env: { CURSOR_API_BASE_URL: apiBaseURL, ...env } });

  it("refuses to send a stored key over plain http, and says how to allow a local emulator", async () => {
    const recorder = recordingFetch();
    const settings = settingsFor("http://api.example", {});
    const credentials = parseStoredCredentials({ type: "api", key: KEY });
    assert.ok(credentials);
    const source = tokenSourceFor(credentials, {
      ...settings,
      fetch: recorder.fetch,
      now: Date.now,
    });
    const error = await source.accessToken().then(() => undefined, (reason: unknown) => reason);
    assert.match(String(error), /https is required.*CURSOR_ALLOW_LOOPBACK/);
    assert.deepEqual(recorder.requests, []);
  });

  it("trims a stored key and exchanges it with a loopback emulator under CURSOR_ALLOW_LOOPBACK=1", async () => {
    await withEmulator({}, async (emulator) => {
      const recorder = recordingFetch();
      const settings = settingsFor(emulator.url, { CURSOR_ALLOW_LOOPBACK: "1" });
      const credentials = parseStoredCredentials({ type: "api", key: `  ${KEY}\n` });
      assert.ok(credentials);
      const source = tokenSourceFor(credentials, {
        ...settings,
        fetch: recorder.fetch,
        now: Date.now,
      });
      assert.ok((await source.accessToken()).length > 0);
      assert.deepEqual(recorder.requests.map((r) => r.path), ["/auth/exchange_user_api_key"]);
    });
  });
});
