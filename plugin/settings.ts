/**
 * The plugin's settings: Cursor's API origin and website, from the plugin's own options,
 * the `cursor` provider block's options and the environment.
 *
 * @module
 */
import { DEFAULT_API_BASE_URL } from "../src/provider/settings/cursor-settings.ts";
import { DEFAULT_WEBSITE_URL } from "../src/auth/browser-login.ts";
import { loopbackAllowedByEnv } from "../src/auth/cursor-origin.ts";

/** The provider id the plugin serves. */
export const CURSOR_PROVIDER_ID = "cursor";

/** The name the plugin registers the provider under when the config has no `cursor` block. */
export const REGISTERED_PROVIDER_NAME = "Cursor Integration";

/** Resolved plugin settings. */
export interface PluginSettings {
  /** Cursor's API origin (auth, catalogue). */
  readonly apiBaseURL: string;
  /** Cursor's website (the browser login page). */
  readonly websiteURL: string;
  /** The `cli-…` client version to send, when configured. */
  readonly clientVersion: string | undefined;
  /** Plain-http loopback origins (a local emulator) are accepted. */
  readonly allowLoopback: boolean;
}

/** Where settings come from, most specific first. */
export interface SettingsSources {
  /** Options of the `cursor` provider block (`provider.cursor.options`). */
  readonly providerOptions?: Readonly<Record<string, unknown>> | undefined;
  /** Options given to the plugin itself (`["…/plugin", { … }]`). */
  readonly pluginOptions?: Readonly<Record<string, unknown>> | undefined;
  /** Environment values. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves the settings: provider options, then plugin options, then
 * `CURSOR_API_BASE_URL` / `CURSOR_WEBSITE_URL` / `CURSOR_CLIENT_VERSION` /
 * `CURSOR_ALLOW_LOOPBACK`, then defaults. The URLs are checked where they are used.
 *
 * @param sources The option sources.
 * @returns The settings.
 *
 * @example
 * ```ts
 * import { resolvePluginSettings } from "./settings.ts";
 *
 * const settings = resolvePluginSettings({ env: { CURSOR_API_BASE_URL: "http://127.0.0.1:9/" } });
 * console.assert(settings.apiBaseURL === "http://127.0.0.1:9");
 * ```
 */
export function resolvePluginSettings(sources: SettingsSources): PluginSettings {
  const pick = (key: string, envName: string): string | undefined => {
    for (const value of [sources.providerOptions?.[key], sources.pluginOptions?.[key]]) {
      if (typeof value === "string" && value.trim() !== "") return value.trim();
    }
    const fromEnv = sources.env[envName]?.trim();
    return fromEnv ? fromEnv : undefined;
  };
  return {
    apiBaseURL: trimSlash(pick("apiBaseURL", "CURSOR_API_BASE_URL") ?? DEFAULT_API_BASE_URL),
    websiteURL: trimSlash(pick("websiteURL", "CURSOR_WEBSITE_URL") ?? DEFAULT_WEBSITE_URL),
    clientVersion: pick("clientVersion", "CURSOR_CLIENT_VERSION"),
    allowLoopback: pickFlag(sources, "allowLoopback") ??
      loopbackAllowedByEnv(sources.env.CURSOR_ALLOW_LOOPBACK),
  };
}

function pickFlag(sources: SettingsSources, key: string): boolean | undefined {
  for (const value of [sources.providerOptions?.[key], sources.pluginOptions?.[key]]) {
    if (typeof value === "boolean") return value;
  }
  return undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
