/**
 * The OpenCode 2.x plugin, built from injected dependencies (the entry is
 * `plugin/opencode2.ts`).
 *
 * @module
 */
import { createCredentialRedactor } from "../src/auth/credential-redactor.ts";
import type { CatalogModel } from "../src/catalog/catalog-model.ts";
import { LONG_CONTEXT_THRESHOLD_TOKENS } from "../src/billing/rates.ts";
import type { OpenCodeModelCost, OpenCodeTokenCost } from "../src/catalog/opencode-cost.ts";
import { type OpenCodeModelEntry, openCodeModels } from "../src/catalog/opencode-entries.ts";
import type { CursorProvider } from "../src/provider/cursor-provider.ts";
import type { CursorProviderSettings } from "../src/provider/settings/cursor-settings.ts";
import { API_KEY_LABEL } from "./auth/auth-methods.ts";
import { createCatalogRuntime } from "./catalog/catalog-runtime.ts";
import type { ClassicPluginDependencies } from "./classic.ts";
import { tokenSourceFor } from "./auth/credentials.ts";
import { CURSOR_PROVIDER_ID, REGISTERED_PROVIDER_NAME, resolvePluginSettings } from "./settings.ts";
import { explainCatalog } from "./catalog/troubleshooting.ts";
import { credentialsFromIntegration, registerAisdk } from "./v2/v2-registration.ts";
import type {
  V2CatalogDraftLike,
  V2ContextLike,
  V2ModelCost,
  V2ModelInfoLike,
  V2PluginDefinition,
} from "./v2/v2-types.ts";

/** What the 2.x plugin takes from its platform. */
export interface OpenCode2Dependencies extends ClassicPluginDependencies {
  /** Builds the provider (`createCursor` of the Node entry). */
  readonly createProvider: (settings: CursorProviderSettings) => CursorProvider;
}

/**
 * Builds the OpenCode 2.x plugin.
 *
 * @param platform Supplies the dependencies when the plugin is set up.
 * @returns The plugin definition (`{ id, setup }`).
 */
export function createOpenCode2Plugin(platform: () => OpenCode2Dependencies): V2PluginDefinition {
  return {
    id: "ai-sdk-provider-cursor",
    async setup(context: V2ContextLike) {
      const deps = platform();
      const settings = resolvePluginSettings({ pluginOptions: context.options, env: deps.env });
      const catalog = createCatalogRuntime(deps);
      const credentials = await credentialsFromIntegration(context.integration);
      const redactor = createCredentialRedactor();
      const tokens = credentials === undefined ? undefined : tokenSourceFor(credentials, {
        apiBaseURL: settings.apiBaseURL,
        allowLoopback: settings.allowLoopback,
        fetch: deps.fetch,
        now: deps.now,
        redactor,
      });
      const result = await catalog.load(tokens, settings);
      const explanation = explainCatalog(result, {
        signedIn: credentials !== undefined,
        cacheLocation: deps.storeLocation,
        now: deps.now(),
      });
      if (deps.logger.enabled) {
        deps.logger.line(`plugin opencode2: ${redactor.redact(explanation.message)}`);
      }
      await context.integration.transform((draft) => {
        draft.update(CURSOR_PROVIDER_ID, (integration) => {
          integration.name = "Cursor";
        });
        draft.method.update({
          integrationID: CURSOR_PROVIDER_ID,
          method: { type: "key", label: API_KEY_LABEL },
        });
      });
      await context.catalog.transform((draft) =>
        registerCatalog(draft, result.models, deps.providerEntry)
      );
      await registerAisdk(context, { ...deps, catalog: () => catalog.models() });
    },
  };
}

function registerCatalog(
  draft: V2CatalogDraftLike,
  models: readonly CatalogModel[],
  providerEntry: string,
): void {
  draft.provider.update(CURSOR_PROVIDER_ID, (provider) => {
    provider.name = REGISTERED_PROVIDER_NAME;
    provider.api = { type: "aisdk", package: providerEntry };
  });
  for (const entry of Object.values(openCodeModels(models))) {
    draft.model.update(
      CURSOR_PROVIDER_ID,
      entry.id,
      (model) => applyEntry(model, entry, providerEntry),
    );
  }
}

function applyEntry(model: V2ModelInfoLike, entry: OpenCodeModelEntry, providerEntry: string) {
  model.name = entry.name;
  model.api = {
    id: entry.options.cursorModelId ?? entry.id,
    type: "aisdk",
    package: providerEntry,
  };
  model.capabilities = {
    tools: entry.tool_call,
    input: [...entry.modalities.input],
    output: [...entry.modalities.output],
  };
  model.request = { headers: {}, body: { ...entry.options } };
  model.variants = Object.entries(entry.variants ?? {}).map(([id, body]) => ({
    id,
    headers: {},
    body: { ...body },
  }));
  model.limit = { context: entry.limit.context, output: entry.limit.output };
  model.cost = v2Cost(entry.cost);
}

/** OpenCode 2's price rows (`ModelCost[]`) of an entry's cost; none for an unpriced model. */
function v2Cost(cost: OpenCodeModelCost | undefined): V2ModelCost[] {
  if (cost === undefined) return [];
  const row = (rates: OpenCodeTokenCost) => ({
    input: rates.input,
    output: rates.output,
    cache: { read: rates.cache_read, write: rates.cache_write },
  });
  const over = cost.context_over_200k;
  return [
    row(cost),
    ...(over === undefined ? [] : [{
      tier: { type: "context" as const, size: LONG_CONTEXT_THRESHOLD_TOKENS },
      ...row(over),
    }]),
  ];
}
