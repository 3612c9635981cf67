import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { sha256 } from "../../src/core/bytes.ts";
import { connectErrorFromJson } from "../../src/protocol/end-stream.ts";
import { decodeErrorDetail } from "../../src/protocol/error-detail.ts";
import { type Harness, startHarness } from "./support/harness.ts";
import { driveTurn, newHostState, requestContext, runRequestBytes } from "./support/host.ts";
import { openHttp2Run, openSseRun, postAppend } from "./support/minimal-client.ts";

const MODELS = "/aiserver.v1.AiService/AvailableModels";

async function rpc(url: string, path: string, token?: string): Promise<Response> {
  return await fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: "{}",
  });
}

async function refusal(response: Response): Promise<string | undefined> {
  assert.equal(response.status, 401);
  const error = connectErrorFromJson(await response.json(), decodeErrorDetail, 401);
  assert.equal(error.code, "unauthenticated");
  return error.detail?.error;
}

function claims(token: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(base64Decode(token.split(".")[1] ?? "")));
}

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64Encode(crypto.getRandomValues(new Uint8Array(32)), "url");
  return { verifier, challenge: base64Encode(await sha256(verifier), "url") };
}

describe("auth", () => {
  let clock = Date.now();
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ now: () => clock });
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("logs in through the browser flow: login page, 404 while pending, then tokens", async () => {
    const { verifier, challenge } = await pkce();
    const uuid = crypto.randomUUID();
    const page = await fetch(
      `${harness.emulator.url}/loginDeepControl?challenge=${challenge}&uuid=${uuid}&mode=login&redirectTarget=cli`,
    );
    assert.equal(page.status, 200);
    await page.text();
    const poll = () => fetch(`${harness.emulator.url}/auth/poll?uuid=${uuid}&verifier=${verifier}`);
    const pending = await poll();
    assert.equal(pending.status, 404);
    await pending.text();
    const done = await poll();
    assert.equal(done.status, 200);
    const tokens = await done.json();
    assert.equal(typeof tokens.accessToken, "string");
    assert.equal(typeof tokens.refreshToken, "string");
    const models = await rpc(harness.emulator.url, MODELS, tokens.accessToken);
    assert.equal(models.status, 200);
    await models.text();
  });

  it("waits for approval when auto-approval is off, and verifies the PKCE challenge", async () => {
    const manual = await startHarness({ auth: { autoApproveAfterPolls: false } });
    try {
      const { verifier, challenge } = await pkce();
      const uuid = crypto.randomUUID();
      manual.emulator.auth.visitLogin(
        `https://cursor.com/loginDeepControl?challenge=${challenge}&uuid=${uuid}`,
      );
      for (let i = 0; i < 3; i++) {
        const pending = await fetch(
          `${manual.emulator.url}/auth/poll?uuid=${uuid}&verifier=${verifier}`,
        );
        assert.equal(pending.status, 404);
        await pending.text();
      }
      assert.equal(manual.emulator.auth.approveLogin(uuid), true);
      const wrong = await fetch(
        `${manual.emulator.url}/auth/poll?uuid=${uuid}&verifier=not-the-verifier`,
      );
      assert.equal(wrong.status, 403);
      await wrong.text();
      assert.deepEqual(manual.emulator.violations().map((violation) => violation.rule), [
        "pkce-mismatch",
      ]);
      const right = await fetch(
        `${manual.emulator.url}/auth/poll?uuid=${uuid}&verifier=${verifier}`,
      );
      assert.equal(right.status, 200);
      await right.json();
      const unknown = await fetch(
        `${manual.emulator.url}/auth/poll?uuid=${crypto.randomUUID()}&verifier=x`,
      );
      assert.equal(unknown.status, 404);
      await unknown.text();
    } finally {
      await manual.emulator.close();
    }
  });

  it("exchanges crsr_ API keys (header or body) and refuses bad ones", async () => {
    const exchange = (init: RequestInit) =>
      fetch(`${harness.emulator.url}/auth/exchange_user_api_key`, { method: "POST", ...init });
    const viaHeader = await exchange({
      headers: {
        "content-type": "application/json",
        authorization: "Bearer crsr_0123456789abcdef",
      },
      body: "{}",
    });
    assert.equal(viaHeader.status, 200);
    const tokens = await viaHeader.json();
    assert.equal(claims(tokens.accessToken).type, "api_key_token");
    const viaBody = await exchange({
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiKey: "crsr_0123456789abcdef" }),
    });
    assert.equal(viaBody.status, 200);
    await viaBody.json();
    const bad = await exchange({ headers: { authorization: "Bearer crsr_x" }, body: "{}" });
    assert.equal(await refusal(bad), "ERROR_BAD_USER_API_KEY");
  });

  it("accepts every documented refresh variant and records which one was used", async () => {
    const { refreshToken } = await harness.emulator.auth.issueTokens();
    const post = (path: string, init: RequestInit) =>
      fetch(`${harness.emulator.url}${path}`, { method: "POST", ...init });
    const json = { "content-type": "application/json" };
    const a = await post("/auth/token", { headers: json, body: JSON.stringify({ refreshToken }) });
    assert.equal(typeof (await a.json()).accessToken, "string");
    const b = await post("/auth/exchange_user_api_key", {
      headers: { ...json, authorization: `Bearer ${refreshToken}` },
      body: "{}",
    });
    assert.equal(typeof (await b.json()).accessToken, "string");
    const c = await post("/auth/refresh", {
      headers: { ...json, authorization: `Bearer ${refreshToken}` },
      body: "{}",
    });
    assert.equal(typeof (await c.json()).accessToken, "string");
    const d = await post("/oauth/token", {
      headers: json,
      body: JSON.stringify({
        grant_type: "refresh_token",
        client_id: "KbZUR41cY7W6zRSdpSUJ7I7mLYBKOCmB",
        refresh_token: refreshToken,
      }),
    });
    const oauth = await d.json();
    assert.equal(typeof oauth.access_token, "string");
    assert.equal(oauth.shouldLogout, false);
    assert.deepEqual(harness.emulator.auth.refreshVariants().slice(-4), [
      "auth-token",
      "re-exchange",
      "auth-refresh",
      "oauth-token",
    ]);
    const refused = await post("/auth/token", {
      headers: json,
      body: JSON.stringify({ refreshToken: "nope" }),
    });
    assert.equal(await refusal(refused), "ERROR_NOT_LOGGED_IN");
    const logout = await post("/oauth/token", {
      headers: json,
      body: JSON.stringify({ grant_type: "refresh_token", refresh_token: "nope" }),
    });
    assert.equal((await logout.json()).shouldLogout, true);
  });

  it("issues JWTs whose exp follows the configured lifetime, signed or unsigned", async () => {
    harness.emulator.auth.setTokenLifetime(90_000);
    const { accessToken } = await harness.emulator.auth.issueTokens();
    const payload = claims(accessToken);
    assert.equal(Number(payload.exp) - Number(payload.iat), 90);
    assert.equal(
      JSON.parse(new TextDecoder().decode(base64Decode(accessToken.split(".")[0] ?? ""))).alg,
      "HS256",
    );
    harness.emulator.auth.setTokenLifetime(60 * 60 * 1000);
    const unsigned = await startHarness({ auth: { signing: "none" } });
    try {
      assert.ok(unsigned.token.endsWith("."));
      const models = await rpc(unsigned.emulator.url, MODELS, unsigned.token);
      assert.equal(models.status, 200);
      await models.text();
    } finally {
      await unsigned.emulator.close();
    }
  });

  it("answers 401 with ErrorDetails for a missing, bad, expired or revoked token on every RPC", async () => {
    const url = harness.emulator.url;
    for (
      const path of [
        MODELS,
        "/aiserver.v1.ServerConfigService/GetServerConfig",
        "/agent.v1.AgentService/GetUsableModels",
      ]
    ) {
      assert.equal(await refusal(await rpc(url, path)), "ERROR_NOT_LOGGED_IN", path);
    }
    const tampered = `${harness.token.slice(0, -2)}xx`;
    assert.equal(await refusal(await rpc(url, MODELS, tampered)), "ERROR_AUTH_TOKEN_NOT_FOUND");
    const { refreshToken } = await harness.emulator.auth.issueTokens();
    assert.equal(await refusal(await rpc(url, MODELS, refreshToken)), "ERROR_AUTH_TOKEN_NOT_FOUND");
    assert.equal(
      await refusal(await rpc(url, MODELS, "crsr_0123456789abcdef")),
      "ERROR_AUTH_TOKEN_NOT_FOUND",
    );

    harness.emulator.auth.setTokenLifetime(1000);
    const { accessToken: shortLived } = await harness.emulator.auth.issueTokens();
    harness.emulator.auth.setTokenLifetime(60 * 60 * 1000);
    const fresh = await rpc(url, MODELS, shortLived);
    assert.equal(fresh.status, 200);
    await fresh.text();
    clock += 2000;
    assert.equal(await refusal(await rpc(url, MODELS, shortLived)), "ERROR_AUTH_TOKEN_EXPIRED");

    const { accessToken: revoked } = await harness.emulator.auth.issueTokens();
    assert.equal(await harness.emulator.auth.revoke(revoked), true);
    assert.equal(await refusal(await rpc(url, MODELS, revoked)), "ERROR_NOT_LOGGED_IN");
  });

  it("refuses unauthenticated RunSSE, BidiAppend and HTTP/2 Run", async () => {
    const target = { ...harness.target("sse"), token: "bad" };
    const sse = openSseRun(target);
    assert.equal(await sse.status, 401);
    sse.close();
    const append = await postAppend(
      target,
      crypto.randomUUID(),
      0,
      runRequestBytes({ text: "x" }, requestContext()),
      "hex",
    );
    assert.equal(append.status, 401);
    const h2 = openHttp2Run({ ...harness.target("http2"), token: "bad" });
    assert.equal(await h2.status, 401);
    h2.close();
    harness.emulator.auth.revokeAll();
    clock += 2000;
    const revoked = openSseRun(harness.target("sse"));
    assert.equal(await revoked.status, 401, "revokeAll ends every session");
    revoked.close();
    const { accessToken } = await harness.emulator.auth.issueTokens();
    const ok = await driveTurn({ ...harness.target("sse"), token: accessToken }, newHostState(), {
      text: "hi",
    });
    assert.ok(ok.turnEnded);
  });

  it("needs no token when auth is not required", async () => {
    const open = await startHarness({ auth: { required: false } });
    try {
      const models = await rpc(open.emulator.url, MODELS);
      assert.equal(models.status, 200);
      await models.text();
    } finally {
      await open.emulator.close();
    }
  });
});
