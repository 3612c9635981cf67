/**
 * Registering the Cursor provider through OpenCode's v2 AI SDK hooks: `aisdk.sdk` builds
 * the provider for Cursor models (credentials from the host's stored connection),
 * `aisdk.language` builds the model with the entry's Cursor options (model id, variant
 * tuple, Max Mode) attached to every call. Shared by the 1.18 v2 entry and the 2.x entry.
 *
 * @module
 */
import { OPENCODE_SIGN_IN_ADVICE } from "../auth/sign-in-advice.ts";
import type { TokenSource } from "../../src/auth/token-source.ts";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import { checkModelSelection } from "../../src/catalog/variant-selection.ts";
import type { DebugLogger } from "../../src/core/logger.ts";
import { NPM_NAMES } from "../../src/core/package-name.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";
import type { CursorProvider } from "../../src/provider/cursor-provider.ts";
import {
  accessTokenGetter,
  type CursorCredentials,
  parseStoredCredentials,
  tokenSourceFor,
} from "../auth/credentials.ts";
import { cursorOptionsFrom, withCursorOptions } from "../catalog/cursor-options-model.ts";
import { CURSOR_PROVIDER_ID, resolvePluginSettings } from "../settings.ts";
import type {
  V2ContextLike,
  V2IntegrationDomainLike,
  V2LanguageInputLike,
  V2SdkInputLike,
} from "./v2-types.ts";

/** What the v2 registration needs. */
export interface V2Dependencies {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly logger: DebugLogger;
  /** The provider entry URL (models whose package is this one are Cursor's). */
  readonly providerEntry: string;
  /** Builds the provider (`createCursor` of the Node entry). */
  readonly createProvider: (settings: CursorProviderSettings) => CursorProvider;
  /** The catalogue, when the entry keeps one (for rejecting stale variants). */
  readonly catalog?: (() => readonly CatalogModel[] | undefined) | undefined;
}

/** The npm package OpenCode configs name (its `provider.cursor.npm`). */
const PACKAGE_NAME = NPM_NAMES.name;

/**
 * Whether a v2 hook input concerns a Cursor model.
 *
 * @param input The hook input (model and package).
 * @param providerEntry This package's provider entry URL.
 * @returns `true` for the `cursor` provider or this package.
 */
export function isCursorModel(
  input: { readonly model: { readonly providerID: string }; readonly package?: string },
  providerEntry: string,
): boolean {
  if (input.model.providerID === CURSOR_PROVIDER_ID) return true;
  const name = input.package ?? "";
  return name === providerEntry || name === PACKAGE_NAME || name.startsWith(`${PACKAGE_NAME}@`);
}

/**
 * Reads the Cursor credentials OpenCode's v2 integration holds.
 *
 * @param integration The integration domain.
 * @returns The credentials, or `undefined` when none are stored (or they cannot be read).
 */
export async function credentialsFromIntegration(
  integration: V2IntegrationDomainLike,
): Promise<CursorCredentials | undefined> {
  try {
    const connection = await integration.connection.active(CURSOR_PROVIDER_ID);
    if (connection === undefined) return undefined;
    return parseStoredCredentials(await integration.connection.resolve(connection));
  } catch {
    return undefined;
  }
}

/**
 * Provider settings found in a model's SDK options (known keys only, type-checked).
 *
 * @param options The options the host passes when it creates the SDK.
 * @returns The settings.
 */
export function providerSettingsFrom(
  options: Readonly<Record<string, unknown>>,
): CursorProviderSettings {
  const text = (key: string): string | undefined => {
    const value = options[key];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const settings: { -readonly [K in keyof CursorProviderSettings]: CursorProviderSettings[K] } = {};
  settings.apiKey = text("apiKey");
  settings.apiBaseURL = text("apiBaseURL");
  settings.agentBaseURL = text("agentBaseURL");
  settings.clientVersion = text("clientVersion");
  settings.machineId = text("machineId");
  settings.name = text("name");
  const accessToken = options.accessToken;
  if (typeof accessToken === "string" || typeof accessToken === "function") {
    settings.accessToken = accessToken as CursorProviderSettings["accessToken"];
  }
  if (typeof options.allowLoopback === "boolean") settings.allowLoopback = options.allowLoopback;
  if (typeof options.fetch === "function") settings.fetch = options.fetch as typeof fetch;
  if (
    options.transport === "sse" || options.transport === "http2" || options.transport === "auto"
  ) {
    settings.transport = options.transport;
  }
  if (options.usage === "occupancy" || options.usage === "request") settings.usage = options.usage;
  const headers = options.headers;
  if (typeof headers === "object" && headers !== null && !Array.isArray(headers)) {
    settings.headers = Object.fromEntries(
      Object.entries(headers).filter((entry): entry is [string, string] =>
        typeof entry[1] === "string"
      ),
    );
  }
  return Object.fromEntries(
    Object.entries(settings).filter(([, value]) => value !== undefined),
  ) as CursorProviderSettings;
}

/**
 * Registers the `aisdk.sdk` and `aisdk.language` hooks.
 *
 * @param context The v2 plugin context (`aisdk`, `integration`, `options`).
 * @param deps Platform pieces and the provider factory.
 * @returns Resolves once both hooks are registered.
 */
export async function registerAisdk(
  context: Pick<V2ContextLike, "aisdk" | "integration" | "options">,
  deps: V2Dependencies,
): Promise<void> {
  const sources = new Map<string, TokenSource>();
  const sourceFor = (
    credentials: CursorCredentials,
    apiBaseURL: string,
    allowLoopback: boolean,
  ): TokenSource => {
    const key = `${apiBaseURL}\u0000${allowLoopback}\u0000${JSON.stringify(credentials)}`;
    let source = sources.get(key);
    if (source === undefined) {
      source = tokenSourceFor(credentials, {
        apiBaseURL,
        allowLoopback,
        fetch: deps.fetch,
        now: deps.now,
      });
      sources.set(key, source);
    }
    return source;
  };
  const line = (text: string) => deps.logger.enabled && deps.logger.line(`plugin v2: ${text}`);
  await context.aisdk.sdk(async (input: V2SdkInputLike) => {
    if (!isCursorModel(input, deps.providerEntry)) return;
    const settings = providerSettingsFrom(input.options);
    const pluginSettings = resolvePluginSettings({ pluginOptions: context.options, env: deps.env });
    const apiBaseURL = settings.apiBaseURL ?? pluginSettings.apiBaseURL;
    const allowLoopback = settings.allowLoopback ?? pluginSettings.allowLoopback;
    const credentials = settings.accessToken === undefined
      ? await credentialsFromIntegration(context.integration)
      : undefined;
    const tokens = credentials === undefined
      ? undefined
      : sourceFor(credentials, apiBaseURL, allowLoopback);
    input.sdk = deps.createProvider({
      // OpenCode's context meter reads occupancy-shaped usage (ADR 080).
      usage: "occupancy",
      signInAdvice: OPENCODE_SIGN_IN_ADVICE,
      ...settings,
      apiBaseURL,
      allowLoopback,
      name: input.model.providerID,
      ...(tokens === undefined ? {} : { accessToken: accessTokenGetter(tokens) }),
    });
    line(
      `sdk for ${input.model.providerID}/${input.model.id} credentials=${
        credentials?.kind ?? "settings"
      }`,
    );
  });
  await context.aisdk.language((input: V2LanguageInputLike) => {
    if (!isCursorModel(input, deps.providerEntry)) return;
    const sdk = input.sdk;
    if (!isProvider(sdk)) return;
    const options = cursorOptionsFrom(input.options);
    const error = checkModelSelection(deps.catalog?.(), {
      modelId: input.model.id,
      offeredVariants: [],
      options,
    });
    if (error !== undefined) throw error;
    const realId = typeof options.cursorModelId === "string"
      ? options.cursorModelId
      : apiId(input.model.api) ?? input.model.id;
    input.language = withCursorOptions(sdk.languageModel(realId), options, input.model.providerID);
    line(`language ${input.model.providerID}/${input.model.id} -> ${realId}`);
  });
}

function isProvider(value: unknown): value is Pick<CursorProvider, "languageModel"> {
  const holder = (typeof value === "object" && value !== null) || typeof value === "function";
  return holder && typeof (value as { languageModel?: unknown }).languageModel === "function";
}

function apiId(api: unknown): string | undefined {
  if (typeof api !== "object" || api === null) return undefined;
  const id = (api as { id?: unknown }).id;
  return typeof id === "string" && id !== "" ? id : undefined;
}
