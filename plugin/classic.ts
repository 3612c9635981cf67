/**
 * The classic (OpenCode 1.x) plugin, built from injected dependencies so tests can run
 * it against a fake OpenCode and the emulator: `auth` (browser login, API key, and a
 * loader that renews tokens and writes renewed ones back), `config` (registers the
 * `cursor` provider when the config lacks it and fills its models from the catalogue),
 * `chat.params` (rejects stale or malformed variant selections, and hands the session's
 * permission rules to the provider as `sessionRules`, and the directory of the session's project
 * as `workspace`: one OpenCode server serves several projects, each through its own plugin
 * instance) and `tool` (the `cursor_image_save` and
 * `custom_websearch` plugin tools, see `cursor-tools.ts`).
 *
 * @module
 */
import { OPENCODE_SIGN_IN_ADVICE } from "./auth/sign-in-advice.ts";
import {
  createCredentialRedactor,
  type CredentialRedactor,
} from "../src/auth/credential-redactor.ts";
import type { DebugLogger } from "../src/core/logger.ts";
import type { TokenSource } from "../src/auth/token-source.ts";
import type { ModelCacheStore } from "../src/catalog/model-cache.ts";
import { openCodeModels } from "../src/catalog/opencode-entries.ts";
import { checkModelSelection } from "../src/catalog/variant-selection.ts";
import { apiKeyMethod, browserLoginMethod } from "./auth/auth-methods.ts";
import { type CatalogRuntime, createCatalogRuntime } from "./catalog/catalog-runtime.ts";
import {
  accessTokenGetter,
  type CursorCredentials,
  parseStoredCredentials,
  tokenSourceFor,
} from "./auth/credentials.ts";
import type {
  ChatParamsInputLike,
  ChatParamsOutputLike,
  ClassicHooks,
  ConfigLike,
  PluginInputLike,
} from "./host-types.ts";
import { explainCatalog } from "./catalog/troubleshooting.ts";
import { cursorPluginTools } from "./cursor-tools.ts";
import type { ImageStaging } from "../src/provider/direct/tools/media/image-save.ts";
import { agentReadsRules, readSessionRules } from "./session-rules.ts";
import {
  CURSOR_PROVIDER_ID,
  type PluginSettings,
  REGISTERED_PROVIDER_NAME,
  resolvePluginSettings,
} from "./settings.ts";

/** Everything the classic plugin takes from its platform. */
export interface ClassicPluginDependencies {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The model cache. */
  readonly store: ModelCacheStore;
  /** Shown in messages about the cache (the file path). */
  readonly storeLocation: string;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly machineId: () => Promise<string>;
  /** Reads the stored Cursor credentials (auth.json) at start-up. */
  readonly readStoredAuth: () => Promise<unknown>;
  readonly openBrowser: (url: string) => boolean;
  readonly logger: DebugLogger;
  /** The provider entry registered as `provider.cursor.npm` (this package's provider). */
  readonly providerEntry: string;
  /** Waits between login polls (tests shorten it). */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Where the provider stages generated images for `cursor_image_save`. */
  readonly imageStaging?: ImageStaging | undefined;
  /** Writes a file, creating its folders (the image save tool's write). */
  readonly writeFile?: ((path: string, bytes: Uint8Array) => Promise<void>) | undefined;
}

/** A classic plugin function. */
export type ClassicPlugin = (
  input: PluginInputLike,
  options?: Record<string, unknown>,
) => Promise<ClassicHooks>;

/**
 * Builds the classic plugin.
 *
 * @param deps The platform's pieces.
 * @returns The plugin function OpenCode calls.
 */
export function createClassicPlugin(deps: ClassicPluginDependencies): ClassicPlugin {
  return (input, pluginOptions) => {
    const instance = createPluginInstance(deps, input, pluginOptions);
    const hooks: ClassicHooks = {
      tool: cursorPluginTools(deps),
      config: (config: ConfigLike) => configureProvider(instance, config),
      auth: {
        provider: CURSOR_PROVIDER_ID,
        async loader(getAuth) {
          const credentials = parseStoredCredentials(await getAuth());
          if (credentials === undefined) return {};
          return { accessToken: accessTokenGetter(instance.sourceFor(credentials)) };
        },
        methods: [browserLoginMethod(loginMethodDependencies(instance)), apiKeyMethod()],
      },
      "chat.params": (input: ChatParamsInputLike, output: ChatParamsOutputLike) =>
        checkChatParams(instance, input, output),
    };
    return Promise.resolve(hooks);
  };
}

/** What one plugin instance (one OpenCode project) shares between its hooks. */
interface PluginInstance {
  readonly deps: ClassicPluginDependencies;
  readonly input: PluginInputLike;
  readonly pluginOptions: Record<string, unknown> | undefined;
  readonly projectDirectory: string | undefined;
  readonly catalog: CatalogRuntime;
  readonly redactor: CredentialRedactor;
  readonly log: (level: "info" | "warn", text: string) => void;
  /** The token source of `credentials`, one per distinct credentials. */
  readonly sourceFor: (credentials: CursorCredentials) => TokenSource;
  /** The current settings; `config` re-resolves them with the provider block's options. */
  settings: PluginSettings;
}

function createPluginInstance(
  deps: ClassicPluginDependencies,
  input: PluginInputLike,
  pluginOptions: Record<string, unknown> | undefined,
): PluginInstance {
  const redactor = createCredentialRedactor();
  const log = (level: "info" | "warn", text: string) => {
    const message = redactor.redact(text);
    if (deps.logger.enabled) deps.logger.line(`plugin: ${message}`);
    input.client.app?.log({ body: { service: "cursor", level, message } }).catch(() => {});
  };
  const sources = new Map<string, TokenSource>();
  const instance: PluginInstance = {
    deps,
    input,
    pluginOptions,
    projectDirectory: absoluteDirectory(input.directory),
    catalog: createCatalogRuntime(deps),
    redactor,
    log,
    sourceFor: (credentials) => {
      const key = JSON.stringify(credentials);
      const source = sources.get(key) ?? renewingTokenSource(instance, credentials);
      sources.set(key, source);
      return source;
    },
    settings: resolvePluginSettings({ pluginOptions, env: deps.env }),
  };
  return instance;
}

/** A token source for `credentials` that writes a refreshed login back to OpenCode. */
function renewingTokenSource(
  instance: PluginInstance,
  credentials: CursorCredentials,
): TokenSource {
  const { deps, input, log } = instance;
  return tokenSourceFor(credentials, {
    apiBaseURL: instance.settings.apiBaseURL,
    allowLoopback: instance.settings.allowLoopback,
    fetch: deps.fetch,
    now: deps.now,
    redactor: instance.redactor,
    onRenewed(renewed) {
      log("info", `renewed the Cursor access token (${renewed.via})`);
      if (renewed.via !== "refresh") return;
      input.client.auth?.set({
        path: { id: CURSOR_PROVIDER_ID },
        body: {
          type: "oauth",
          access: renewed.accessToken,
          refresh: renewed.refreshToken,
          expires: renewed.expiresAt ?? deps.now() + 60 * 60 * 1000,
        },
      }).catch((error: unknown) =>
        log("warn", `could not save the renewed Cursor login: ${String(error)}`)
      );
    },
  });
}

/** What the browser login method takes from the plugin instance. */
function loginMethodDependencies(instance: PluginInstance) {
  const { deps, log, redactor, catalog } = instance;
  return {
    settings: () => instance.settings,
    fetch: deps.fetch,
    now: deps.now,
    openBrowser: deps.openBrowser,
    sleep: deps.sleep,
    report: (message: string) => {
      log("warn", message);
      console.error(redactor.redact(message));
    },
    afterLogin: async (tokens: TokenSource) => {
      const result = await catalog.refresh(tokens, instance.settings);
      log(
        "info",
        `model catalogue after login: source=${result.source} models=${result.models.length}`,
      );
    },
  };
}

/** The `config` hook: registers the `cursor` provider and fills its models from the catalogue. */
async function configureProvider(instance: PluginInstance, config: ConfigLike): Promise<void> {
  const { deps, log } = instance;
  const providers = config.provider ??= {};
  let block = providers[CURSOR_PROVIDER_ID];
  if (block === undefined) {
    block = { name: REGISTERED_PROVIDER_NAME, npm: deps.providerEntry, models: {} };
    providers[CURSOR_PROVIDER_ID] = block;
    log("info", `registered provider ${CURSOR_PROVIDER_ID} (${deps.providerEntry})`);
  }
  // OpenCode's context meter reads occupancy-shaped usage (ADR 080).
  block.options = {
    usage: "occupancy",
    signInAdvice: OPENCODE_SIGN_IN_ADVICE,
    ...block.options,
  };
  instance.settings = resolvePluginSettings({
    providerOptions: block.options,
    pluginOptions: instance.pluginOptions,
    env: deps.env,
  });
  const credentials = parseStoredCredentials(await deps.readStoredAuth());
  const tokens = credentials === undefined ? undefined : instance.sourceFor(credentials);
  const result = await instance.catalog.load(tokens, instance.settings);
  const models = block.models ??= {};
  for (const [id, entry] of Object.entries(openCodeModels(result.models))) {
    const own = models[id];
    models[id] = typeof own === "object" && own !== null ? { ...entry, ...own } : entry;
  }
  const explanation = explainCatalog(result, {
    signedIn: credentials !== undefined,
    cacheLocation: deps.storeLocation,
    now: deps.now(),
  });
  log(explanation.level, explanation.message);
}

/** The `chat.params` hook: rejects a stale variant selection, hands on workspace and rules. */
function checkChatParams(
  instance: PluginInstance,
  input: ChatParamsInputLike,
  output: ChatParamsOutputLike,
): Promise<void> {
  const providerId = input.provider?.info?.id ?? input.model.providerID;
  if (providerId !== CURSOR_PROVIDER_ID) return Promise.resolve();
  const error = checkModelSelection(instance.catalog.models(), {
    modelId: input.model.id,
    variantKey: selectedVariant(input.message),
    offeredVariants: offeredVariants(input.model),
    options: output.options,
  });
  if (error !== undefined) {
    instance.log("warn", error.message);
    return Promise.reject(error);
  }
  // This plugin instance serves one directory: the project of every session it sees.
  if (instance.projectDirectory !== undefined) {
    output.options.workspace = instance.projectDirectory;
  }
  return withSessionRules(instance.input.client, input, output);
}

/** Hands the session's permission rules to the provider (plans and mode switches read them). */
async function withSessionRules(
  client: PluginInputLike["client"],
  input: ChatParamsInputLike,
  output: ChatParamsOutputLike,
): Promise<void> {
  if (input.sessionID === undefined || !agentReadsRules(input.agent)) return;
  // Called on the session client itself, so the SDK method keeps its `this`.
  const session = client.session;
  output.options.sessionRules = await readSessionRules(
    session === undefined ? undefined : { get: (request) => session.get(request) },
    input.sessionID,
  );
}

/** The plugin instance's directory, when the host gave an absolute one. */
function absoluteDirectory(directory: string | undefined): string | undefined {
  if (typeof directory !== "string" || directory.includes("\u0000")) return undefined;
  return directory.startsWith("/") || /^[A-Za-z]:[\\/]/.test(directory) ? directory : undefined;
}

function selectedVariant(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const model = (message as { model?: unknown }).model;
  if (typeof model !== "object" || model === null) return undefined;
  const variant = (model as { variant?: unknown }).variant;
  return typeof variant === "string" ? variant : undefined;
}

function offeredVariants(model: unknown): string[] {
  if (typeof model !== "object" || model === null) return [];
  const variants = (model as { variants?: unknown }).variants;
  return typeof variants === "object" && variants !== null ? Object.keys(variants) : [];
}
