/**
 * Where a provider gets its access token: a fixed token, an async getter, or a `crsr_`
 * API key exchanged (and re-exchanged before expiry). Tokens live in memory only.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { exchangeApiKey } from "./api-key-exchange.ts";
import { isExpiringSoon } from "./jwt.ts";

/** Supplies access tokens. */
export interface TokenSource {
  /** A token valid for at least a few minutes. */
  accessToken(signal?: AbortSignal): Promise<string>;
}

/** How the token source is configured. */
export interface TokenSourceOptions {
  readonly apiKey?: string | undefined;
  readonly accessToken?: string | (() => string | Promise<string>) | undefined;
  readonly apiBaseURL: string;
  readonly fetch: typeof fetch;
  readonly now: () => number;
}

/**
 * Creates a token source from provider settings.
 *
 * @param options The API key or token (or getter), API base URL, fetch and clock.
 * @returns A {@link TokenSource}.
 * @throws {CursorError} `unauthenticated` (at call time) when no credential is configured.
 *
 * @example
 * ```ts
 * import { createTokenSource } from "./token-source.ts";
 *
 * const source = createTokenSource({ accessToken: "t", apiBaseURL: "https://api2.cursor.sh", fetch, now: Date.now });
 * console.assert(await source.accessToken() === "t");
 * ```
 */
export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const { accessToken, apiKey } = options;
  if (typeof accessToken === "string") return { accessToken: () => Promise.resolve(accessToken) };
  if (typeof accessToken === "function") {
    return {
      async accessToken() {
        const token = await accessToken();
        if (!token) {
          throw new CursorError("unauthenticated", "The access token getter returned no token");
        }
        return token;
      },
    };
  }
  if (apiKey === undefined || apiKey === "") {
    return {
      accessToken: () =>
        Promise.reject(
          new CursorError(
            "unauthenticated",
            "No Cursor credentials: set apiKey (crsr_…) or accessToken",
          ),
        ),
    };
  }
  if (!apiKey.startsWith("crsr_")) return { accessToken: () => Promise.resolve(apiKey) };
  let current: string | undefined;
  let pending: Promise<string> | undefined;
  return {
    accessToken(signal) {
      if (current !== undefined && !isExpiringSoon(current, options.now())) {
        return Promise.resolve(current);
      }
      pending ??= exchangeApiKey(apiKey, {
        apiBaseURL: options.apiBaseURL,
        fetch: options.fetch,
        ...(signal ? { signal } : {}),
      })
        .then((tokens) => (current = tokens.accessToken))
        .finally(() => (pending = undefined));
      return pending;
    },
  };
}
