import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import {
  AvailableModelsResponse_DegradationStatus,
  AvailableModelsResponseSchema,
} from "../../src/gen/aiserver/v1/ai_service_pb.ts";
import {
  AVAILABLE_MODELS_REQUEST,
  fetchAvailableModels,
} from "../../src/catalog/available-models.ts";
import {
  catalogFromResponse,
  cleanDisplayName,
  parseContextTokens,
} from "../../src/catalog/catalog-model.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import {
  EMULATOR_ORIGIN,
  emulatorWithFetch,
  scriptedFetch,
} from "../auth/support/emulator-fetch.ts";

const MACHINE = "a".repeat(64);

describe("fetchAvailableModels", () => {
  it("lists the emulator's models with their variants, asking for parameters", async () => {
    const { emulator, fetch, headers } = await emulatorWithFetch();
    try {
      const session = await emulator.auth.issueTokens();
      const models = await fetchAvailableModels({
        apiBaseURL: EMULATOR_ORIGIN,
        accessToken: session.accessToken,
        fetch,
        machineId: MACHINE,
      });
      assert.deepEqual(models.map((m) => m.id), [
        "default",
        "claude-4.5-sonnet",
        "claude-4.1-opus",
        "gpt-5",
        "gemini-2.5-pro",
        "composer-1",
      ]);
      const sonnet = models.find((m) => m.id === "claude-4.5-sonnet");
      assert.equal(sonnet?.displayName, "Sonnet 4.5");
      assert.equal(sonnet?.thinking, true);
      assert.equal(sonnet?.images, true);
      assert.equal(sonnet?.variants.length, 4);
      assert.deepEqual(sonnet?.variants[3], {
        parameters: [{ id: "thinking", value: "true" }, { id: "context", value: "1m" }],
        displayName: "Sonnet 4.5 Thinking 1M",
        maxMode: true,
        defaultNonMax: false,
        defaultMax: true,
      });
      const sent = headers.get("/aiserver.v1.AiService/AvailableModels");
      assert.equal(sent?.get("authorization"), `Bearer ${session.accessToken}`);
      assert.equal(sent?.get("content-type"), "application/json");
      assert.match(sent?.get("x-cursor-checksum") ?? "", /a{64}$/);
      assert.match(sent?.get("x-cursor-client-version") ?? "", /^cli-/);
    } finally {
      await emulator.close();
    }
  });

  it("sends the documented request body", async () => {
    const { fetch, requests } = scriptedFetch([Response.json({ models: [] })]);
    await fetchAvailableModels({
      apiBaseURL: "https://api.example/",
      accessToken: "t",
      fetch,
      machineId: MACHINE,
    });
    assert.equal(requests[0]?.url, "https://api.example/aiserver.v1.AiService/AvailableModels");
    assert.deepEqual(await requests[0]?.json(), AVAILABLE_MODELS_REQUEST);
    assert.deepEqual(AVAILABLE_MODELS_REQUEST, {
      includeLongContextModels: true,
      useModelParameters: true,
      useCloudAgentEffortModes: true,
    });
  });

  it("fails as unauthenticated with a rejected token", async () => {
    const { emulator, fetch } = await emulatorWithFetch();
    try {
      await assert.rejects(
        fetchAvailableModels({
          apiBaseURL: EMULATOR_ORIGIN,
          accessToken: "nope",
          fetch,
          machineId: MACHINE,
        }),
        (error: unknown) => error instanceof CursorError && error.code === "unauthenticated",
      );
    } finally {
      await emulator.close();
    }
  });

  it("ignores fields it does not know and rejects answers it cannot decode", async () => {
    const unknown = scriptedFetch([
      Response.json({ models: [{ name: "m", brandNewField: 1 }], extra: true }),
    ]);
    const models = await fetchAvailableModels({
      apiBaseURL: "https://api.example",
      accessToken: "t",
      fetch: unknown.fetch,
      machineId: MACHINE,
    });
    assert.deepEqual(models.map((m) => m.id), ["m"]);
    for (const body of [[1, 2], { models: "nope" }]) {
      const { fetch } = scriptedFetch([Response.json(body)]);
      await assert.rejects(
        fetchAvailableModels({
          apiBaseURL: "https://api.example",
          accessToken: "t",
          fetch,
          machineId: MACHINE,
        }),
        (error: unknown) => error instanceof CursorError && error.code === "protocol",
      );
    }
  });
});

describe("catalogFromResponse", () => {
  it("leaves out disabled, inline-edit-only and non-agent models, and repeated ids", () => {
    const response = create(AvailableModelsResponseSchema, {
      models: [
        { name: "ok", clientDisplayName: "<b>OK</b>" },
        { name: "off", degradationStatus: AvailableModelsResponse_DegradationStatus.DISABLED },
        { name: "cmdk", onlySupportsCmdK: true },
        { name: "chat", supportsAgent: false },
        { name: "ok", clientDisplayName: "Second" },
        { name: "slow", degradationStatus: AvailableModelsResponse_DegradationStatus.DEGRADED },
        { name: " " },
      ],
    });
    const models = catalogFromResponse(response);
    assert.deepEqual(models.map((m) => [m.id, m.displayName]), [["ok", "OK"], ["slow", "slow"]]);
  });

  it("reads thinking from a thinking parameter when Cursor does not say, and keeps limits", () => {
    const response = create(AvailableModelsResponseSchema, {
      models: [{
        name: "m",
        contextTokenLimit: 128_000,
        contextTokenLimitForMaxMode: 0,
        variants: [{ parameterValues: [{ id: "thinking", value: "true" }], displayName: "T" }, {
          parameterValues: [],
          displayName: "empty tuples are dropped",
        }],
      }],
    });
    const [model] = catalogFromResponse(response);
    assert.equal(model?.thinking, true);
    assert.equal(model?.contextTokenLimit, 128_000);
    assert.equal(model?.contextTokenLimitForMaxMode, undefined);
    assert.equal(model?.variants.length, 1);
    assert.equal(model?.tools, true);
  });
});

describe("display names and sizes", () => {
  it("strips markup and quotes", () => {
    assert.equal(
      cleanDisplayName('Opus <span style="color:#f00">5</span> &amp; `x` "y"'),
      "Opus 5 x y",
    );
    assert.equal(cleanDisplayName("   "), "");
  });

  it("parses context sizes", () => {
    assert.equal(parseContextTokens("200k"), 200_000);
    assert.equal(parseContextTokens("1m"), 1_000_000);
    assert.equal(parseContextTokens("1.5M"), 1_500_000);
    assert.equal(parseContextTokens("272000"), 272_000);
    assert.equal(parseContextTokens("0k"), undefined);
    assert.equal(parseContextTokens("big"), undefined);
  });
});
