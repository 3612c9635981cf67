import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fromBinary } from "@bufbuild/protobuf";
import { GetUsableModelsResponseSchema } from "../../src/gen/agent/v1/agent_service_pb.ts";
import { type Harness, startHarness } from "./support/harness.ts";

const KEY = "crsr_emulatortestkey123";

describe("REST /v1/models and /v1/me (Cursor's client, raw API key)", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });
  const get = (path: string, authorization?: string, method = "GET") =>
    fetch(`${harness.emulator.url}${path}`, {
      method,
      headers: authorization === undefined ? {} : { authorization },
    });

  it("refuses a missing, invalid or JWT bearer with 401 JSON", async () => {
    for (const auth of [undefined, "Bearer crsr_x", `Bearer ${harness.token}`]) {
      const response = await get("/v1/models", auth);
      assert.equal(response.status, 401);
      const body = await response.json() as { error: { code: string; message: string } };
      assert.equal(typeof body.error.code, "string");
      assert.equal(typeof body.error.message, "string");
    }
    assert.equal((await get("/v1/me")).status, 401);
  });

  it("answers other methods with 405", async () => {
    const response = await get("/v1/models", `Bearer ${KEY}`, "POST");
    assert.equal(response.status, 405);
    await response.body?.cancel();
  });

  it("lists the catalogue, agreeing with GetUsableModels, with default/auto resolvable", async () => {
    const response = await get("/v1/models", `Bearer ${KEY}`);
    assert.equal(response.status, 200);
    const body = await response.json() as {
      items: {
        id: string;
        displayName: string;
        aliases?: string[];
        parameters?: { id: string; values: { value: string }[] }[];
        variants?: { params: { id: string; value: string }[]; displayName: string }[];
      }[];
    };
    const usable = await fetch(`${harness.emulator.url}/agent.v1.AgentService/GetUsableModels`, {
      method: "POST",
      headers: { "content-type": "application/proto", authorization: `Bearer ${harness.token}` },
      body: new Uint8Array(0),
    });
    const models = fromBinary(
      GetUsableModelsResponseSchema,
      new Uint8Array(await usable.arrayBuffer()),
    );
    assert.deepEqual(body.items.map((item) => item.id), models.models.map((m) => m.modelId));
    assert.deepEqual(
      body.items.map((item) => item.displayName),
      models.models.map((m) => m.displayName),
    );
    const auto = body.items.find((item) => item.id === "default");
    assert.ok(auto?.aliases?.includes("auto"));
    const sonnet = body.items.find((item) => item.id === "claude-4.5-sonnet");
    assert.ok(sonnet?.parameters?.some((p) => p.id === "context"));
    assert.ok(sonnet?.variants?.some((v) => v.params.some((p) => p.value === "1m")));
  });

  it("answers /v1/me for the key's account", async () => {
    const response = await get("/v1/me", `Bearer ${KEY}`);
    assert.equal(response.status, 200);
    const me = await response.json() as Record<string, unknown>;
    assert.equal(typeof me.apiKeyName, "string");
    assert.equal(typeof me.userId, "number");
    assert.equal(typeof me.userEmail, "string");
    assert.ok(!Number.isNaN(Date.parse(String(me.createdAt))));
    const again = await (await get("/v1/me", `Bearer ${KEY}`)).json() as Record<string, unknown>;
    assert.equal(again.createdAt, me.createdAt);
  });
});

describe("Dashboard and Analytics calls Cursor's client makes", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });
  const post = (path: string, body: Uint8Array | string, type = "application/proto", jwt = true) =>
    fetch(`${harness.emulator.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": type,
        ...(jwt ? { authorization: `Bearer ${harness.token}` } : {}),
      },
      body: body as BodyInit,
    });

  it("answers the team calls and TrackEvents with empty messages, and logs them", async () => {
    for (
      const method of [
        "DashboardService/GetTeamAdminSettingsOrEmptyIfNotInTeam",
        "DashboardService/GetTeamReposOrEmptyIfNotInTeam",
        "AnalyticsService/TrackEvents",
      ]
    ) {
      const response = await post(`/aiserver.v1.${method}`, new Uint8Array(0));
      assert.equal(response.status, 200, method);
      assert.equal((await response.arrayBuffer()).byteLength, 0);
      assert.ok(
        harness.emulator.log({ direction: "http" }).some((e) => e.rpc === `/aiserver.v1.${method}`),
        method,
      );
    }
    const tracked = await post(
      "/aiserver.v1.AnalyticsService/TrackEvents",
      new Uint8Array([0x0a, 0x02, 0x08, 0x01]),
    );
    assert.equal(tracked.status, 200);
    await tracked.body?.cancel();
  });

  it("needs a valid JWT and a well-formed protobuf", async () => {
    const refused = await post(
      "/aiserver.v1.DashboardService/GetTeamReposOrEmptyIfNotInTeam",
      new Uint8Array(0),
      "application/proto",
      false,
    );
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const bad = await post(
      "/aiserver.v1.DashboardService/GetTeamReposOrEmptyIfNotInTeam",
      new Uint8Array([0x0a, 0x05]),
    );
    assert.notEqual(bad.status, 200);
    await bad.body?.cancel();
  });

  it("answers GetUserPrivacyMode with NO_STORAGE by default", async () => {
    const response = await post(
      "/aiserver.v1.DashboardService/GetUserPrivacyMode",
      new Uint8Array([0x08, 0x01]),
    );
    assert.equal(response.status, 200);
    assert.deepEqual([...new Uint8Array(await response.arrayBuffer())], [0x08, 0x01]);
  });

  it("answers the configured privacy mode", async () => {
    const other = await startHarness({ privacyMode: "usage-data-training-allowed" });
    try {
      const response = await fetch(
        `${other.emulator.url}/aiserver.v1.DashboardService/GetUserPrivacyMode`,
        {
          method: "POST",
          headers: { "content-type": "application/proto", authorization: `Bearer ${other.token}` },
          body: new Uint8Array(0),
        },
      );
      assert.deepEqual([...new Uint8Array(await response.arrayBuffer())], [0x08, 0x03]);
    } finally {
      await other.emulator.close();
    }
  });

  it("answers BootstrapStatsig as JSON with a config string", async () => {
    const response = await post(
      "/aiserver.v1.AnalyticsService/BootstrapStatsig",
      "{}",
      "application/json",
    );
    assert.equal(response.status, 200);
    const body = await response.json() as { config: string };
    assert.equal(typeof body.config, "string");
    assert.equal(typeof JSON.parse(body.config), "object");
  });
});
