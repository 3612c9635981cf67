import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  AvailableModelsRequestSchema,
  AvailableModelsResponseSchema,
} from "../../../../src/gen/aiserver/v1/ai_service_pb.ts";
import { GetServerConfigResponseSchema } from "../../../../src/gen/aiserver/v1/server_config_pb.ts";
import { type Harness, startHarness } from "../../support/harness.ts";
import { driveTurn, lastCheckpoint, newHostState } from "../../support/host.ts";

interface JsonModel {
  name: string;
  supportsThinking?: boolean;
  supportsImages?: boolean;
  supportsMaxMode?: boolean;
  supportsNonMaxMode?: boolean;
  contextTokenLimitForMaxMode?: number;
  variants?: { parameterValues: { id: string; value: string }[]; isMaxMode?: boolean }[];
}

describe("model catalogue and server config", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  const post = (path: string, type: string, body: BodyInit) =>
    fetch(`${harness.emulator.url}${path}`, {
      method: "POST",
      headers: { "content-type": type, authorization: `Bearer ${harness.token}` },
      body,
    });

  it("lists models with effort, thinking, fast and context variants over the JSON codec", async () => {
    const response = await post(
      "/aiserver.v1.AiService/AvailableModels",
      "application/json",
      JSON.stringify({ use_model_parameters: true, includeLongContextModels: true }),
    );
    assert.equal(response.status, 200);
    const body = await response.json() as {
      models: JsonModel[];
      composerModelConfig: { defaultModel: string };
    };
    const byName = new Map(body.models.map((model) => [model.name, model]));
    assert.deepEqual([...byName.keys()], [
      "default",
      "claude-4.5-sonnet",
      "claude-4.1-opus",
      "gpt-5",
      "gemini-2.5-pro",
      "composer-1",
    ]);
    assert.equal(body.composerModelConfig.defaultModel, "default");
    const sonnet = byName.get("claude-4.5-sonnet");
    const oneMillion = sonnet?.variants?.find((v) =>
      v.parameterValues.some((p) => p.id === "context" && p.value === "1m")
    );
    assert.equal(oneMillion?.isMaxMode, true);
    assert.equal(sonnet?.contextTokenLimitForMaxMode, 1_000_000);
    assert.ok(
      sonnet?.variants?.some((v) =>
        v.parameterValues.some((p) => p.id === "thinking" && p.value === "true")
      ),
    );
    assert.equal(byName.get("gemini-2.5-pro")?.contextTokenLimitForMaxMode, 500_000);
    assert.ok(byName.get("claude-4.1-opus")?.variants?.every((v) => v.isMaxMode === true));
    assert.equal(byName.get("claude-4.1-opus")?.supportsNonMaxMode, false);
    assert.ok(
      byName.get("gpt-5")?.variants?.some((v) =>
        v.parameterValues.some((p) => p.id === "fast" && p.value === "true")
      ),
    );
    assert.equal(byName.get("composer-1")?.supportsImages, false);
    assert.equal(byName.get("gpt-5")?.supportsImages, true);
    assert.equal(byName.get("composer-1")?.supportsThinking, false);
  });

  it("answers the binary codec, and leaves variants out without use_model_parameters", async () => {
    const request = toBinary(
      AvailableModelsRequestSchema,
      create(AvailableModelsRequestSchema, { useModelParameters: false }),
    );
    const response = await post(
      "/aiserver.v1.AiService/AvailableModels",
      "application/proto",
      new Uint8Array(request),
    );
    assert.equal(response.headers.get("content-type"), "application/proto");
    const models = fromBinary(
      AvailableModelsResponseSchema,
      new Uint8Array(await response.arrayBuffer()),
    );
    assert.equal(models.models.length, 6);
    assert.ok(models.models.every((model) => model.variants.length === 0));
  });

  it("announces its own agent URL in GetServerConfig on both paths and codecs", async () => {
    for (
      const path of [
        "/aiserver.v1.ServerConfigService/GetServerConfig",
        "/agent.v1.AgentService/GetServerConfig",
      ]
    ) {
      const json =
        await (await post(path, "application/json", JSON.stringify({ telem_enabled: false })))
          .json();
      assert.equal(json.agentUrlConfig.agentnUrl, harness.emulator.url);
      assert.equal(json.agentUrlConfig.agentUrl, harness.emulator.url);
      const binary = await post(path, "application/proto", new Uint8Array(0));
      const config = fromBinary(
        GetServerConfigResponseSchema,
        new Uint8Array(await binary.arrayBuffer()),
      );
      assert.equal(config.agentUrlConfig?.agentnUrl, harness.emulator.url);
    }
  });

  it("announces the origin a request reached over the other scheme (a front of the other kind)", async () => {
    const response = await harness.emulator.fetch(
      new Request("https://front.test:8443/aiserver.v1.ServerConfigService/GetServerConfig", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${harness.token}` },
        body: "{}",
      }),
    );
    const json = await response.json();
    assert.equal(json.agentUrlConfig.agentUrl, "https://front.test:8443");
    assert.equal(json.agentUrlConfig.agentnUrl, "https://front.test:8443");
  });

  it("serves GetUsableModels and GetDefaultModelForCli", async () => {
    const usable =
      await (await post("/agent.v1.AgentService/GetUsableModels", "application/json", "{}")).json();
    assert.equal(usable.models.length, 6);
    assert.ok(
      usable.models.find((model: { modelId: string }) => model.modelId === "claude-4.5-sonnet")
        .thinkingDetails,
    );
    const fallback =
      await (await post("/aiserver.v1.AiService/GetUsableModels", "application/json", "{}")).json();
    assert.equal(fallback.models.length, 6);
    const defaults =
      await (await post("/agent.v1.AgentService/GetDefaultModelForCli", "application/json", "{}"))
        .json();
    assert.equal(defaults.model.modelId, "default");
  });

  it("refuses unknown models and variant slugs as the service does", async () => {
    for (const modelId of ["no-such-model", "claude-4.5-sonnet-thinking"]) {
      const outcome = await driveTurn(harness.target("sse"), newHostState(), {
        text: "hi",
        modelId,
      });
      assert.equal(outcome.end?.ok, false);
      if (outcome.end?.ok === false) {
        assert.equal(outcome.end.error.connectCode, "not_found");
        assert.equal(outcome.end.error.detail?.error, "ERROR_BAD_MODEL_NAME");
        assert.equal(outcome.end.error.code, "bad_model");
      }
    }
  });

  it("uses the context window the parameters select and records max mode and variant matches", async () => {
    const wide = await driveTurn(harness.target("sse"), newHostState(), {
      text: "hi",
      modelId: "gemini-2.5-pro",
      parameters: { context: "500k" },
      maxMode: true,
    });
    assert.equal(lastCheckpoint(wide)?.tokenDetails?.maxTokens, 500_000);
    const run = harness.emulator.runs().at(-1);
    assert.equal(run?.maxMode, true);
    assert.equal(run?.variants.parametersMatchVariant, true);
    await driveTurn(harness.target("sse"), newHostState(), {
      text: "hi",
      modelId: "gpt-5",
      parameters: { reasoning: "extreme" },
    });
    assert.equal(harness.emulator.runs().at(-1)?.variants.parametersMatchVariant, false);
    await driveTurn(harness.target("sse"), newHostState(), { text: "hi", modelId: "" });
    assert.equal(
      harness.emulator.runs().at(-1)?.status,
      "ok",
      "an empty model id means the default model",
    );
  });

  it("takes a custom catalogue", async () => {
    const custom = await startHarness({
      models: [{
        id: "tiny",
        displayName: "Tiny",
        thinking: false,
        thinkingStyle: 0,
        images: false,
        maxMode: false,
        nonMaxMode: true,
        contextTokens: 1000,
        parameters: [],
        variants: [],
      }],
    });
    try {
      const outcome = await driveTurn(custom.target("sse"), newHostState(), {
        text: "hi",
        modelId: "tiny",
      });
      assert.equal(lastCheckpoint(outcome)?.tokenDetails?.maxTokens, 1000);
    } finally {
      await custom.emulator.close();
    }
  });
});
