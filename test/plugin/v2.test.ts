import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { createMemoryLogger } from "../../src/core/logger.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";
import type { CursorProvider } from "../../src/provider/cursor-provider.ts";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import { serializeCatalogCache } from "../../src/catalog/model-cache.ts";
import {
  providerSettingsFrom,
  registerAisdk,
  type V2Dependencies,
} from "../../plugin/v2/v2-registration.ts";
import { createOpenCode2Plugin } from "../../plugin/opencode2-plugin.ts";
import type {
  V2ConnectionLike,
  V2ContextLike,
  V2LanguageInputLike,
  V2SdkInputLike,
} from "../../plugin/v2/v2-types.ts";
import * as v2Module from "../../plugin/v2.ts";
import * as opencode2Module from "../../plugin/opencode2.ts";
import * as classicModule from "../../plugin/mod.ts";

const v2Entry = v2Module.default;
import { memoryStore } from "./support/fake-opencode.ts";

/** A structural fake of OpenCode's v2 plugin context that records what is registered. */
function fakeContext(stored?: unknown) {
  const sdkHooks: ((input: V2SdkInputLike) => Promise<void> | void)[] = [];
  const languageHooks: ((input: V2LanguageInputLike) => Promise<void> | void)[] = [];
  const integrations: Record<string, { name: string }> = {};
  const methods: unknown[] = [];
  const providers: Record<string, { name: string; api: unknown }> = {};
  const models: Record<string, Record<string, unknown>> = {};
  const registered: string[] = [];
  const connection: V2ConnectionLike = { type: "credential", id: "cred-1", label: "Cursor" };
  const context: V2ContextLike = {
    options: {},
    aisdk: {
      sdk(callback) {
        registered.push("sdk");
        sdkHooks.push(callback);
        return Promise.resolve({ dispose: () => Promise.resolve() });
      },
      language(callback) {
        registered.push("language");
        languageHooks.push(callback);
        return Promise.resolve({ dispose: () => Promise.resolve() });
      },
    },
    integration: {
      async transform(callback) {
        registered.push("integration");
        await callback({
          update(id, update) {
            update(integrations[id] ??= { name: id });
          },
          method: { update: (input) => void methods.push(input) },
        });
        return { dispose: () => Promise.resolve() };
      },
      connection: {
        active: (id) =>
          Promise.resolve(id === "cursor" && stored !== undefined ? connection : undefined),
        resolve: (value) => Promise.resolve(value === connection ? stored : undefined),
      },
    },
    catalog: {
      async transform(callback) {
        registered.push("catalog");
        await callback({
          provider: {
            update: (id, update) => update(providers[id] ??= { name: id, api: undefined }),
          },
          model: {
            update(providerID, modelID, update) {
              const record = models[`${providerID}/${modelID}`] ??= {};
              update(record as never);
            },
          },
        });
        return { dispose: () => Promise.resolve() };
      },
    },
  };
  return { context, sdkHooks, languageHooks, integrations, methods, providers, models, registered };
}

/** A fake provider factory whose models record the options of every call. */
function recordingProvider() {
  const created: CursorProviderSettings[] = [];
  const calls: { modelId: string; options: LanguageModelV3CallOptions }[] = [];
  const createProvider = (settings: CursorProviderSettings): CursorProvider => {
    created.push(settings);
    const languageModel = (modelId: string): LanguageModelV3 => ({
      specificationVersion: "v3",
      provider: "cursor",
      modelId,
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: (options) => {
        calls.push({ modelId, options });
        return Promise.reject(new Error("recorded"));
      },
    });
    return Object.assign(languageModel, {
      specificationVersion: "v3" as const,
      languageModel,
      embeddingModel: () => {
        throw new Error("none");
      },
      imageModel: () => {
        throw new Error("none");
      },
    });
  };
  return { createProvider, created, calls };
}

function deps(
  createProvider: V2Dependencies["createProvider"],
  catalog?: CatalogModel[],
): V2Dependencies {
  return {
    env: { CURSOR_API_BASE_URL: "http://emulator.test" },
    fetch: () => Promise.reject(new Error("no network in this test")),
    now: Date.now,
    logger: createMemoryLogger().logger,
    providerEntry: "file:///opt/pkg/node.js",
    createProvider,
    catalog: () => catalog,
  };
}

const model = (id: string, providerID = "cursor") => ({ id, providerID, api: { id } });

describe("v2 AI SDK registration", () => {
  it("registers exactly the sdk and language hooks", async () => {
    const fake = fakeContext();
    await registerAisdk(fake.context, deps(recordingProvider().createProvider));
    assert.deepEqual(fake.registered, ["sdk", "language"]);
  });

  it("builds the provider for Cursor models with the stored login and leaves others alone", async () => {
    const fake = fakeContext({
      type: "oauth",
      access: "stored-access",
      refresh: "r",
      expires: Date.now() + 3_600_000,
      methodID: "m",
    });
    const provider = recordingProvider();
    await registerAisdk(fake.context, deps(provider.createProvider));
    const other: V2SdkInputLike = {
      model: model("gpt", "openai"),
      package: "@ai-sdk/openai",
      options: {},
    };
    await fake.sdkHooks[0]?.(other);
    assert.equal(other.sdk, undefined);
    const input: V2SdkInputLike = {
      model: model("gpt-5"),
      package: "file:///opt/pkg/node.js",
      options: {
        name: "cursor",
        allowLoopback: true,
        headers: { "x-a": "1", bad: 2 },
        unknown: "x",
      },
    };
    await fake.sdkHooks[0]?.(input);
    assert.ok(input.sdk);
    const settings = provider.created[0];
    assert.equal(settings?.allowLoopback, true);
    assert.deepEqual(settings?.headers, { "x-a": "1" });
    assert.equal(settings?.apiBaseURL, "http://emulator.test");
    assert.equal(typeof settings?.accessToken, "function");
    const getter = settings?.accessToken as () => Promise<string>;
    assert.equal(await getter(), "stored-access");
  });

  it("attaches the entry's Cursor options to every call of the language model", async () => {
    const fake = fakeContext();
    const provider = recordingProvider();
    await registerAisdk(fake.context, deps(provider.createProvider));
    const sdkInput: V2SdkInputLike = {
      model: model("claude-4.5-sonnet-1m"),
      package: "ai-sdk-provider-cursor",
      options: {},
    };
    await fake.sdkHooks[0]?.(sdkInput);
    const input: V2LanguageInputLike = {
      model: { id: "claude-4.5-sonnet-1m", providerID: "cursor", api: { id: "claude-4.5-sonnet" } },
      sdk: sdkInput.sdk,
      options: {
        cursorModelId: "claude-4.5-sonnet",
        cursorVariantParameters: [{ id: "context", value: "1m" }],
        cursorMaxMode: true,
        fetch: () => {},
      },
    };
    await fake.languageHooks[0]?.(input);
    const language = input.language as LanguageModelV3;
    await Promise.resolve(
      language.doStream({ prompt: [], providerOptions: { cursor: { sessionId: "s1" } } }),
    )
      .catch(() => {});
    assert.equal(provider.calls[0]?.modelId, "claude-4.5-sonnet");
    assert.deepEqual(provider.calls[0]?.options.providerOptions, {
      cursor: {
        cursorModelId: "claude-4.5-sonnet",
        cursorVariantParameters: [{ id: "context", value: "1m" }],
        cursorMaxMode: true,
        sessionId: "s1",
      },
    });
  });

  it("rejects a stale tuple when it knows the catalogue", async () => {
    const catalog: CatalogModel[] = [{
      id: "gpt-5",
      displayName: "GPT-5",
      thinking: true,
      images: false,
      tools: true,
      variants: [],
    }];
    const fake = fakeContext();
    const provider = recordingProvider();
    await registerAisdk(fake.context, deps(provider.createProvider, catalog));
    const sdkInput: V2SdkInputLike = {
      model: model("gpt-5"),
      package: "ai-sdk-provider-cursor",
      options: {},
    };
    await fake.sdkHooks[0]?.(sdkInput);
    await assert.rejects(async () => {
      await fake.languageHooks[0]?.({
        model: model("gpt-5"),
        sdk: sdkInput.sdk,
        options: { cursorVariantParameters: [{ id: "reasoning", value: "gone" }] },
      });
    }, /is stale/);
  });

  it("reads only known, well-typed provider settings", () => {
    const fetchLike = () => Promise.resolve(new Response());
    assert.deepEqual(
      providerSettingsFrom({
        apiKey: "crsr_x",
        apiBaseURL: "",
        transport: "carrier-pigeon",
        fetch: fetchLike,
        timeouts: "soon",
      }),
      { apiKey: "crsr_x", fetch: fetchLike },
    );
    for (const transport of ["sse", "http2", "auto"]) {
      assert.deepEqual(providerSettingsFrom({ transport }), { transport });
    }
  });
});

describe("OpenCode 2.x entry (structural fake; no OpenCode 2 binary exists to test against)", () => {
  const catalogue: CatalogModel[] = [{
    id: "claude-4.5-sonnet",
    displayName: "Sonnet 4.5",
    thinking: true,
    images: true,
    tools: true,
    variants: [
      {
        parameters: [{ id: "context", value: "200k" }],
        displayName: "",
        maxMode: false,
        defaultNonMax: true,
        defaultMax: false,
      },
      {
        parameters: [{ id: "context", value: "1m" }],
        displayName: "",
        maxMode: true,
        defaultNonMax: false,
        defaultMax: true,
      },
    ],
  }];

  it("registers the integration's API-key method, the provider, the models and the AI SDK hooks", async () => {
    const fake = fakeContext();
    const provider = recordingProvider();
    const store = memoryStore(serializeCatalogCache({ fetchedAt: Date.now(), models: catalogue }));
    const plugin = createOpenCode2Plugin(() => ({
      env: {},
      store,
      storeLocation: "/cache/cursor-models.json",
      fetch: () => Promise.reject(new Error("offline")),
      now: Date.now,
      machineId: () => Promise.resolve("d".repeat(64)),
      readStoredAuth: () => Promise.resolve(undefined),
      openBrowser: () => false,
      logger: createMemoryLogger().logger,
      providerEntry: "file:///opt/pkg/node.js",
      createProvider: provider.createProvider,
    }));
    await plugin.setup(fake.context);
    assert.deepEqual(fake.registered, ["integration", "catalog", "sdk", "language"]);
    assert.deepEqual(fake.integrations, { cursor: { name: "Cursor" } });
    assert.deepEqual(fake.methods, [{
      integrationID: "cursor",
      method: { type: "key", label: "Cursor API key (crsr_…)" },
    }]);
    assert.deepEqual(fake.providers, {
      cursor: {
        name: "Cursor Integration",
        api: { type: "aisdk", package: "file:///opt/pkg/node.js" },
      },
    });
    assert.deepEqual(Object.keys(fake.models), [
      "cursor/claude-4.5-sonnet",
      "cursor/claude-4.5-sonnet-1m",
    ]);
    const long = fake.models["cursor/claude-4.5-sonnet-1m"];
    assert.deepEqual(long?.api, {
      id: "claude-4.5-sonnet",
      type: "aisdk",
      package: "file:///opt/pkg/node.js",
    });
    assert.deepEqual(long?.limit, { context: 1_000_000, output: 128_000 });
    assert.deepEqual(long?.capabilities, {
      tools: true,
      input: ["text", "image"],
      output: ["text"],
    });
    assert.deepEqual(long?.request, {
      headers: {},
      body: {
        cursorModelId: "claude-4.5-sonnet",
        cursorVariantParameters: [{ id: "context", value: "1m" }],
        cursorMaxMode: true,
      },
    });
    assert.deepEqual(long?.variants, [{
      id: "standard",
      headers: {},
      body: { cursorVariantParameters: [{ id: "context", value: "1m" }], cursorMaxMode: true },
    }]);
  });
});

describe("entry modules", () => {
  it("the classic entry exports only plugins (and the { id, server } default)", () => {
    const module: Record<string, unknown> = { ...classicModule };
    const functions = Object.entries(module).filter(([, value]) => typeof value === "function");
    assert.deepEqual(functions.map(([name]) => name), ["CursorPlugin"]);
    const fallback = module.default as { id: string; server: unknown };
    assert.equal(fallback.id, "ai-sdk-provider-cursor");
    assert.equal(fallback.server, module.CursorPlugin);
  });

  it("the v2 entries default-export a { id, setup } definition and nothing callable", () => {
    for (const module of [v2Module, opencode2Module]) {
      assert.deepEqual(Object.keys(module), ["default"]);
      assert.equal(typeof module.default.id, "string");
      assert.equal(typeof module.default.setup, "function");
    }
  });

  it("the 1.18 v2 entry registers only the AI SDK hooks", async () => {
    const fake = fakeContext();
    await v2Entry.setup(fake.context);
    assert.deepEqual(fake.registered, ["sdk", "language"]);
  });
});

describe("OpenCode 2.x entry cost", () => {
  it("maps each model's published price to OpenCode 2's cost rows, and none for an unpriced model", async () => {
    const model = (id: string, displayName: string): CatalogModel => ({
      id,
      displayName,
      thinking: false,
      images: false,
      tools: true,
      variants: [],
    });
    const fake = fakeContext();
    const store = memoryStore(serializeCatalogCache({
      fetchedAt: Date.now(),
      models: [model("claude-4-sonnet", "Sonnet 4"), model("default", "Auto")],
    }));
    const plugin = createOpenCode2Plugin(() => ({
      env: {},
      store,
      storeLocation: "/cache/cursor-models.json",
      fetch: () => Promise.reject(new Error("offline")),
      now: Date.now,
      machineId: () => Promise.resolve("d".repeat(64)),
      readStoredAuth: () => Promise.resolve(undefined),
      openBrowser: () => false,
      logger: createMemoryLogger().logger,
      providerEntry: "file:///opt/pkg/node.js",
      createProvider: recordingProvider().createProvider,
    }));
    await plugin.setup(fake.context);
    assert.deepEqual(fake.models["cursor/claude-4-sonnet"]?.cost, [
      { input: 3, output: 15, cache: { read: 0.3, write: 3.75 } },
      {
        tier: { type: "context", size: 200_000 },
        input: 6,
        output: 22.5,
        cache: { read: 0.6, write: 7.5 },
      },
    ]);
    assert.deepEqual(fake.models["cursor/default"]?.cost, []);
  });
});
