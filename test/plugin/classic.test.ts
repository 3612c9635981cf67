import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { serializeCatalogCache } from "../../src/catalog/model-cache.ts";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import type { ApiMethodLike, ConfigLike, OAuthMethodLike } from "../../plugin/host-types.ts";
import { fakeJwt } from "../auth/support/emulator-fetch.ts";
import {
  memoryStore,
  type PluginHarness,
  pluginHarness,
  PROVIDER_ENTRY,
} from "./support/fake-opencode.ts";

const HOUR = 60 * 60 * 1000;

const cachedModel: CatalogModel = {
  id: "composer-1",
  displayName: "Composer 1",
  thinking: false,
  images: false,
  tools: true,
  variants: [],
};

async function withHarness(
  options: Parameters<typeof pluginHarness>[0],
  body: (harness: PluginHarness) => Promise<void>,
): Promise<void> {
  const harness = await pluginHarness(options);
  try {
    await body(harness);
  } finally {
    await harness.emulator.close();
  }
}

function methods(harness: PluginHarness): { browser: OAuthMethodLike; apiKey: ApiMethodLike } {
  const [browser, apiKey] = harness.hooks.auth?.methods ?? [];
  assert.equal(browser?.type, "oauth");
  assert.equal(apiKey?.type, "api");
  return { browser: browser as OAuthMethodLike, apiKey: apiKey as ApiMethodLike };
}

async function configured(harness: PluginHarness, config: ConfigLike = {}): Promise<ConfigLike> {
  await harness.hooks.config?.(config);
  return config;
}

describe("classic plugin: config", () => {
  it("registers the cursor provider when the config has none, with models from a fresh cache", async () => {
    const store = memoryStore(
      serializeCatalogCache({ fetchedAt: Date.now() - HOUR, models: [cachedModel] }),
    );
    await withHarness({ store }, async (harness) => {
      const config = await configured(harness);
      const block = config.provider?.cursor;
      assert.equal(block?.name, "Cursor Integration");
      assert.equal(block?.npm, PROVIDER_ENTRY);
      assert.match(String(block?.options?.signInAdvice), /opencode auth login/);
      assert.deepEqual(Object.keys(block?.models ?? {}), ["composer-1"]);
      assert.deepEqual(harness.requests, [], "a fresh cache needs no network");
      assert.ok(
        harness.logs.some((l) => /1 from \/cache\/opencode\/cursor-models\.json/.test(l.message)),
      );
    });
  });

  it("keeps the user's block and the user's own model settings", async () => {
    const store = memoryStore(
      serializeCatalogCache({ fetchedAt: Date.now(), models: [cachedModel] }),
    );
    await withHarness({ store }, async (harness) => {
      const config = await configured(harness, {
        provider: {
          cursor: {
            name: "Cursor",
            npm: "ai-sdk-provider-cursor",
            options: { apiBaseURL: "http://127.0.0.1:1" },
            models: { "composer-1": { name: "My Composer" }, "custom": { name: "Mine" } },
          },
          other: { name: "Other" },
        },
      });
      const block = config.provider?.cursor;
      assert.equal(block?.name, "Cursor");
      assert.equal(block?.npm, "ai-sdk-provider-cursor");
      const composer = block?.models?.["composer-1"] as { name: string; limit: unknown };
      assert.equal(composer.name, "My Composer");
      assert.deepEqual(composer.limit, { context: 200_000, output: 32_000 });
      assert.deepEqual(block?.models?.custom, { name: "Mine" });
      assert.deepEqual(config.provider?.other, { name: "Other" });
    });
  });

  it("fetches the catalogue at start-up when the cache is empty and credentials exist", async () => {
    await withHarness(
      { storedAuth: { type: "api", key: "crsr_startup_key_1" } },
      async (harness) => {
        const config = await configured(harness);
        const ids = Object.keys(config.provider?.cursor?.models ?? {});
        assert.ok(ids.includes("claude-4.5-sonnet-1m"), ids.join());
        assert.ok(ids.includes("gemini-2.5-pro-500k"));
        assert.equal(harness.store.writes, 1);
        assert.deepEqual(harness.requests, [
          "POST /auth/exchange_user_api_key",
          "POST /aiserver.v1.AiService/AvailableModels",
        ]);
      },
    );
  });

  it("lists no models and says to sign in when there are no credentials and no cache", async () => {
    await withHarness({}, async (harness) => {
      const config = await configured(harness);
      assert.deepEqual(config.provider?.cursor?.models, {});
      const warning = harness.logs.find((l) => l.level === "warn");
      assert.match(
        warning?.message ?? "",
        /not signed in\. Run `opencode auth login`, choose Cursor/,
      );
    });
  });

  it("serves a stale cache when refreshing fails, and says how to refetch", async () => {
    const store = memoryStore(
      serializeCatalogCache({ fetchedAt: Date.now() - 30 * HOUR, models: [cachedModel] }),
    );
    await withHarness({
      store,
      storedAuth: { type: "api", key: "crsr_not_accepted" },
      emulator: { auth: { apiKeys: ["crsr_other_key_1"] } },
    }, async (harness) => {
      const config = await configured(harness);
      assert.deepEqual(Object.keys(config.provider?.cursor?.models ?? {}), ["composer-1"]);
      const warning = harness.logs.find((l) => l.level === "warn")?.message ?? "";
      assert.match(
        warning,
        /stale cache \(fetched 30 h ago\); refreshing failed: .*rejected the API key/,
      );
      assert.match(warning, /delete \/cache\/opencode\/cursor-models\.json and restart OpenCode/);
      assert.match(warning, /opencode auth login/);
    });
  });

  it("replaces a corrupt cache file", async () => {
    const store = memoryStore('{"schemaVersion":1,');
    await withHarness(
      { store, storedAuth: { type: "api", key: "crsr_corrupt_case" } },
      async (harness) => {
        const config = await configured(harness);
        assert.ok(Object.keys(config.provider?.cursor?.models ?? {}).length > 5);
        assert.match(harness.store.text ?? "", /"schemaVersion": 1/);
      },
    );
  });

  it("says why the list is empty when fetching fails without a cache", async () => {
    await withHarness(
      { storedAuth: { type: "oauth", access: "", refresh: "x", expires: 0 } },
      async (harness) => {
        await configured(harness);
        assert.match(
          harness.logs.at(-1)?.message ?? "",
          /not signed in/,
          "an unusable entry is no sign-in",
        );
      },
    );
    await withHarness({
      storedAuth: { type: "api", key: "crsr_refused_key" },
      emulator: { auth: { apiKeys: ["crsr_other_key_2"] } },
    }, async (harness) => {
      const config = await configured(harness);
      assert.deepEqual(config.provider?.cursor?.models, {});
      assert.match(
        harness.logs.at(-1)?.message ?? "",
        /^No Cursor models: fetching the model list failed: Cursor rejected the API key\. Run `opencode auth login`/,
      );
    });
  });
});

describe("classic plugin: loader", () => {
  it("gives the provider a token getter that renews a browser login and saves it back", async () => {
    await withHarness({}, async (harness) => {
      const session = await harness.emulator.auth.issueTokens();
      const expired = fakeJwt({ iat: 1, exp: 2 });
      const stored = {
        type: "oauth",
        access: expired,
        refresh: session.refreshToken,
        expires: 2000,
      };
      await configured(harness);
      const options = await harness.hooks.auth?.loader(() => Promise.resolve(stored), {});
      const getter = options?.accessToken;
      assert.equal(typeof getter, "function");
      const token = await (getter as () => Promise<string>)();
      assert.notEqual(token, expired, "an expired token is renewed before use");
      assert.equal(await harness.emulator.auth.checkBearer(`Bearer ${token}`), undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(harness.saved.length, 1);
      assert.equal(harness.saved[0]?.id, "cursor");
      assert.equal(harness.saved[0]?.body.type, "oauth");
      assert.equal(harness.saved[0]?.body.access, token);
      assert.ok((harness.saved[0]?.body.expires ?? 0) > Date.now());
      assert.deepEqual(harness.emulator.auth.refreshVariants(), ["oauth-token"]);
    });
  });

  it("uses a valid browser login as it is", async () => {
    await withHarness({}, async (harness) => {
      const session = await harness.emulator.auth.issueTokens();
      const options = await harness.hooks.auth?.loader(
        () =>
          Promise.resolve({
            type: "oauth",
            access: session.accessToken,
            refresh: session.refreshToken,
            expires: 0,
          }),
        {},
      );
      assert.equal(await (options?.accessToken as () => Promise<string>)(), session.accessToken);
      assert.equal(harness.saved.length, 0);
    });
  });

  it("exchanges a stored API key, and returns nothing without credentials", async () => {
    await withHarness({}, async (harness) => {
      const options = await harness.hooks.auth?.loader(
        () => Promise.resolve({ type: "api", key: "crsr_loader_key" }),
        {},
      );
      const token = await (options?.accessToken as () => Promise<string>)();
      assert.equal(await harness.emulator.auth.checkBearer(`Bearer ${token}`), undefined);
      assert.deepEqual(await harness.hooks.auth?.loader(() => Promise.resolve(undefined), {}), {});
    });
  });

  it("tells the person to sign in again when Cursor ended the session", async () => {
    await withHarness({}, async (harness) => {
      const session = await harness.emulator.auth.issueTokens();
      harness.emulator.auth.revokeAll();
      const options = await harness.hooks.auth?.loader(
        () =>
          Promise.resolve({
            type: "oauth",
            access: fakeJwt({ exp: 1 }),
            refresh: session.refreshToken,
            expires: 1000,
          }),
        {},
      );
      await assert.rejects(
        (options?.accessToken as () => Promise<string>)(),
        (error: unknown) =>
          error instanceof CursorError && error.code === "unauthenticated" &&
          /Cursor ended the session: sign in to Cursor again\. Run `opencode auth login`, choose Cursor/
            .test(error.message),
      );
    });
  });

  it("explains an expired login that was saved without its key", async () => {
    await withHarness({}, async (harness) => {
      const options = await harness.hooks.auth?.loader(
        () => Promise.resolve({ type: "api", key: fakeJwt({ exp: 1 }) }),
        {},
      );
      await assert.rejects(
        (options?.accessToken as () => Promise<string>)(),
        /saved without its API key.*opencode auth login/,
      );
    });
  });
});

describe("classic plugin: sign-in methods", () => {
  it("browser login: prints the URL, opens the browser, polls and fills the model cache", async () => {
    await withHarness({}, async (harness) => {
      await configured(harness);
      const authorization = await methods(harness).browser.authorize();
      assert.match(authorization.url, /^https:\/\/emulator\.test\/loginDeepControl\?challenge=/);
      assert.deepEqual(harness.opened, [authorization.url]);
      assert.match(authorization.instructions, /browser window that opened/);
      assert.equal(authorization.method, "auto");
      const result = await authorization.callback();
      assert.equal(result.type, "success");
      if (result.type !== "success") return;
      assert.equal(await harness.emulator.auth.checkBearer(`Bearer ${result.access}`), undefined);
      assert.ok(result.refresh.length > 10);
      assert.ok(result.expires > Date.now());
      assert.equal(harness.store.writes, 1, "the model cache is filled after login");
    });
  });

  it("browser login without a browser: asks to open the URL, fails clearly when never approved", async () => {
    await withHarness(
      { browser: false, emulator: { auth: { autoApproveAfterPolls: false } } },
      async (harness) => {
        const authorization = await methods(harness).browser.authorize();
        assert.match(authorization.instructions, /Open the URL above in a browser/);
        const originalError = console.error;
        const printed: string[] = [];
        console.error = (message: string) => void printed.push(message);
        try {
          assert.deepEqual(await authorization.callback(), { type: "failed" });
        } finally {
          console.error = originalError;
        }
        assert.match(
          printed.join("\n"),
          /Cursor browser sign-in failed: The browser sign-in was not approved/,
        );
      },
    );
  });

  it("API key: OpenCode asks once; the stored key is trimmed, exchanged, and never shown when rejected", async () => {
    await withHarness(
      { emulator: { auth: { apiKeys: ["crsr_good_key_123"] } } },
      async (harness) => {
        const { apiKey } = methods(harness);
        assert.ok(!("prompts" in apiKey) && !("authorize" in apiKey), "no second key prompt");
        const good = await harness.hooks.auth?.loader(
          () => Promise.resolve({ type: "api", key: " crsr_good_key_123 " }),
          {},
        );
        const token = await (good?.accessToken as () => Promise<string>)();
        assert.equal(await harness.emulator.auth.checkBearer(`Bearer ${token}`), undefined);
        const wrong = await harness.hooks.auth?.loader(
          () => Promise.resolve({ type: "api", key: "crsr_wrong_key_1" }),
          {},
        );
        const error = await (wrong?.accessToken as () => Promise<string>)().then(
          () => undefined,
          (reason: unknown) => reason,
        );
        assert.ok(error instanceof Error, "a rejected key fails");
        assert.match(error.message, /reject|sign in/i);
        assert.ok(!String(error.stack).includes("crsr_wrong_key_1"), "the key is never shown");
      },
    );
  });
});

describe("classic plugin: chat.params", () => {
  const model = (variants: Record<string, unknown>) => ({
    id: "gpt-5",
    providerID: "cursor",
    variants,
  });

  it("accepts a current selection and ignores other providers", async () => {
    await withHarness({ storedAuth: { type: "api", key: "crsr_params_key" } }, async (harness) => {
      await configured(harness);
      const chatParams = harness.hooks["chat.params"];
      assert.ok(chatParams);
      await chatParams(
        { model: model({ high: {} }), message: { model: { variant: "high" } } },
        {
          options: {
            cursorVariantParameters: [{ id: "reasoning", value: "high" }, {
              id: "fast",
              value: "false",
            }],
          },
        },
      );
      await chatParams(
        { model: { id: "x", providerID: "openai" }, message: { model: { variant: "gone" } } },
        { options: { cursorVariantParameters: "junk" } },
      );
    });
  });

  it("fails clearly on a stale variant name, a stale tuple or malformed options", async () => {
    await withHarness({ storedAuth: { type: "api", key: "crsr_params_key" } }, async (harness) => {
      await configured(harness);
      const chatParams = harness.hooks["chat.params"];
      assert.ok(chatParams);
      await assert.rejects(
        chatParams({
          model: model({ low: {}, high: {} }),
          message: { model: { variant: "ultra" } },
        }, { options: {} }),
        /"ultra" of Cursor model "gpt-5" is no longer offered \(it offers "low", "high"\)/,
      );
      await assert.rejects(
        chatParams({ model: model({}), message: {} }, {
          options: {
            cursorVariantParameters: [{ id: "reasoning", value: "ultra" }, {
              id: "fast",
              value: "false",
            }],
          },
        }),
        /is stale: Cursor no longer advertises it/,
      );
      await assert.rejects(
        chatParams({ model: model({}), message: {} }, { options: { cursorMaxMode: "on" } }),
        /Malformed Cursor model options: cursorMaxMode/,
      );
    });
  });
});
