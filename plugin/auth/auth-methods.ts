/**
 * The two ways to sign in from `opencode auth login`: the browser login (PKCE; the URL
 * is printed and opened when a browser is available, then polled until approved or
 * timed out) and a `crsr_` API key (OpenCode asks for it once and stores it; the provider
 * exchanges it when it first needs a token). A successful browser login refreshes the
 * model cache; after an API-key login the cache fills at the next start.
 *
 * @module
 */
import { pollBrowserLogin, startBrowserLogin } from "../../src/auth/browser-login.ts";
import { jwtExpiryMs } from "../../src/auth/jwt.ts";
import { createTokenSource, type TokenSource } from "../../src/auth/token-source.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import type { ApiMethodLike, OAuthCallbackResult, OAuthMethodLike } from "../host-types.ts";
import type { PluginSettings } from "../settings.ts";

/** Label of the browser login method. */
export const BROWSER_LOGIN_LABEL = "Cursor account (browser login)";
/** Label of the API key method. */
export const API_KEY_LABEL = "Cursor API key (crsr_…)";

/** What the methods need. */
export interface AuthMethodDependencies {
  readonly settings: () => PluginSettings;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  /** Opens a URL in a browser when possible; returns whether it did. */
  readonly openBrowser: (url: string) => boolean;
  /** Waits between login polls (tests shorten it). */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Refreshes the model cache after a login; must not throw. */
  readonly afterLogin: (tokens: TokenSource) => Promise<void>;
  /** Reports a failure the person should see. */
  readonly report: (message: string) => void;
}

/** Expiry assumed when a token does not state one: one hour. */
const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

/**
 * The browser login method.
 *
 * @param deps Settings, fetch, clock, browser opener and the after-login hook.
 * @returns The OAuth method for OpenCode's `auth` hook.
 */
export function browserLoginMethod(deps: AuthMethodDependencies): OAuthMethodLike {
  return {
    type: "oauth",
    label: BROWSER_LOGIN_LABEL,
    async authorize() {
      const settings = deps.settings();
      const login = await startBrowserLogin({
        websiteURL: settings.websiteURL,
        allowLoopback: settings.allowLoopback,
      });
      const opened = deps.openBrowser(login.url);
      const instructions = opened
        ? "Approve the sign-in in the browser window that opened; this continues by itself."
        : "Open the URL above in a browser and approve the sign-in; this continues by itself.";
      return {
        url: login.url,
        instructions,
        method: "auto" as const,
        async callback(): Promise<OAuthCallbackResult> {
          try {
            const tokens = await pollBrowserLogin(login, {
              apiBaseURL: settings.apiBaseURL,
              allowLoopback: settings.allowLoopback,
              fetch: deps.fetch,
              sleep: deps.sleep,
            });
            await deps.afterLogin(createTokenSource({
              accessToken: tokens.accessToken,
              refreshToken: tokens.refreshToken,
              apiBaseURL: settings.apiBaseURL,
              allowLoopback: settings.allowLoopback,
              fetch: deps.fetch,
              now: deps.now,
            }));
            return {
              type: "success",
              access: tokens.accessToken,
              refresh: tokens.refreshToken,
              expires: jwtExpiryMs(tokens.accessToken) ?? deps.now() + DEFAULT_TOKEN_LIFETIME_MS,
            };
          } catch (error) {
            deps.report(`Cursor browser sign-in failed: ${CursorError.from(error).message}`);
            return { type: "failed" };
          }
        },
      };
    },
  };
}

/**
 * The API key method. It has no prompts and no `authorize`: OpenCode 1.18.33 asks every
 * `api` method for the key itself ("Enter your API key") and stores it, and it does not
 * pass that answer to `authorize` — a prompt of our own would ask twice (and OpenCode's
 * TUI would keep our prompt's answer as metadata beside the key). The stored key is
 * trimmed, checked and exchanged when the provider first needs a token; a malformed or
 * rejected key then fails with a message that says how to sign in again.
 *
 * @returns The API method for OpenCode's `auth` hook.
 *
 * @example
 * ```ts
 * import { apiKeyMethod } from "./auth-methods.ts";
 *
 * const method = apiKeyMethod();
 * console.assert(method.type === "api" && !("prompts" in method) && !("authorize" in method));
 * ```
 */
export function apiKeyMethod(): ApiMethodLike {
  return { type: "api", label: API_KEY_LABEL };
}
