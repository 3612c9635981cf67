/**
 * Where a provider gets its access token: a fixed token, an async getter, a browser
 * sign-in renewed through its refresh token, or a `crsr_` API key exchanged (and
 * re-exchanged before expiry). Tokens live in memory only; a host that wants to keep
 * renewed credentials passes `onRenewed`.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { configuredApiKey } from "./api-key.ts";
import { exchangeApiKey } from "./api-key-exchange.ts";
import type { CredentialRedactor } from "./credential-redactor.ts";
import { jwtExpiryMs, shouldRenew } from "./jwt.ts";
import { refreshSession } from "./refresh.ts";

/** Supplies access tokens. */
export interface TokenSource {
  /** A token valid for at least a few minutes. */
  accessToken(signal?: AbortSignal): Promise<string>;
  /**
   * Renews now, whatever the current token's expiry says (for example after Cursor
   * rejected it). Absent when the source cannot renew (a fixed token or a getter).
   */
  renew?(signal?: AbortSignal): Promise<string>;
  /**
   * Cursor refused `token`: returns a token to retry with, renewing at most once for
   * that token (a second caller with the same refused token gets the renewed one).
   * Absent when the source cannot renew.
   *
   * @throws {CursorError} `unauthenticated` when the renewal itself was refused.
   */
  rejected?(token: string, signal?: AbortSignal): Promise<string>;
}

/**
 * An access-token getter. A host that can renew (the OpenCode plugin holds the stored
 * login) adds `rejected`, with the meaning of {@link TokenSource.rejected}, so a token
 * Cursor refuses is replaced once instead of ending the call.
 */
export interface AccessTokenGetter {
  (): string | Promise<string>;
  rejected?: ((token: string, signal?: AbortSignal) => Promise<string>) | undefined;
}

/** Credentials after a renewal, for the host to store. */
export interface RenewedCredentials {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Expiry of the access token (epoch ms), when it can be read. */
  readonly expiresAt: number | undefined;
  /** How the token was obtained: a refresh-token renewal or an API-key exchange. */
  readonly via: "refresh" | "api-key";
}

/** How the token source is configured. */
export interface TokenSourceOptions {
  readonly apiKey?: string | undefined;
  readonly accessToken?: string | AccessTokenGetter | undefined;
  /** With a string `accessToken`: the refresh token that renews it. */
  readonly refreshToken?: string | undefined;
  /** Expiry of the given `accessToken` when the token itself does not say (epoch ms). */
  readonly expiresAt?: number | undefined;
  /** Cursor's API origin: https, or loopback http with `allowLoopback`. */
  readonly apiBaseURL: string;
  /** Accept a plain-http loopback API origin (a local emulator). */
  readonly allowLoopback?: boolean | undefined;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  /** Learns every credential value the source holds or obtains, to keep them out of logs and errors. */
  readonly redactor?: CredentialRedactor | undefined;
  /** Called after every renewal or exchange; failures are ignored (storing is best effort). */
  readonly onRenewed?: ((credentials: RenewedCredentials) => void | Promise<void>) | undefined;
}

/**
 * Creates a token source from provider settings.
 *
 * @param options The API key or token (or getter), refresh token, API base URL, fetch and clock.
 * @returns A {@link TokenSource}. The API key is only ever sent to the exchange
 *   endpoint; requests carry the exchanged access token.
 * @throws {CursorError} at call time: `config` for a malformed API key (nothing is sent),
 *   `unauthenticated` when no credential is configured or Cursor ended the session.
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
  const { accessToken, refreshToken, redactor } = options;
  redactor?.remember(options.apiKey);
  if (typeof accessToken === "string") redactor?.remember(accessToken);
  redactor?.remember(refreshToken);
  if (typeof accessToken === "function") return getterSource(accessToken, redactor);
  const transport = {
    apiBaseURL: options.apiBaseURL,
    allowLoopback: options.allowLoopback,
    fetch: options.fetch,
  };
  let apiKey: string | undefined;
  try {
    apiKey = configuredApiKey(options.apiKey);
  } catch (error) {
    return { accessToken: () => Promise.reject(error) };
  }
  if (apiKey !== undefined) {
    const key = apiKey;
    return renewingSource(options, async () => {
      const tokens = await exchangeApiKey(key, transport);
      return { ...tokens, via: "api-key" as const };
    });
  }
  if (typeof accessToken === "string" && accessToken !== "") {
    if (refreshToken === undefined || refreshToken === "") {
      return { accessToken: () => Promise.resolve(accessToken) };
    }
    let latestRefresh = refreshToken;
    return renewingSource(options, async () => {
      const tokens = await refreshSession(latestRefresh, transport);
      latestRefresh = tokens.refreshToken;
      return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, via: "refresh" };
    });
  }
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

function getterSource(
  getter: AccessTokenGetter,
  redactor: CredentialRedactor | undefined,
): TokenSource {
  const source: TokenSource = {
    async accessToken() {
      const token = await getter();
      if (!token) {
        throw new CursorError("unauthenticated", "The access token getter returned no token");
      }
      redactor?.remember(token);
      return token;
    },
  };
  const rejected = getter.rejected;
  if (rejected === undefined) return source;
  return {
    ...source,
    async rejected(token, signal) {
      const fresh = await rejected(token, signal);
      redactor?.remember(fresh);
      return fresh;
    },
  };
}

interface Renewal {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly via: RenewedCredentials["via"];
}

/**
 * How long a renewal that failed for a passing reason (Cursor did not answer) is not tried
 * again: the host's retries of the turn, seconds apart, fail at once instead of each
 * waiting out the renewal deadline anew.
 */
export const RENEWAL_RETRY_AFTER_MS = 10_000;

function renewingSource(options: TokenSourceOptions, obtain: () => Promise<Renewal>): TokenSource {
  let current = typeof options.accessToken === "string" && options.accessToken !== ""
    ? options.accessToken
    : undefined;
  let fallbackExpiry = current === undefined ? undefined : options.expiresAt;
  let pending: Promise<string> | undefined;
  let failedRecently: { readonly error: CursorError; readonly until: number } | undefined;
  const renew = (): Promise<string> => {
    if (failedRecently !== undefined && options.now() < failedRecently.until) {
      return Promise.reject(failedRecently.error);
    }
    pending ??= obtain()
      .catch((error: unknown) => {
        const failure = CursorError.from(error);
        if (failure.retryable) {
          failedRecently = { error: failure, until: options.now() + RENEWAL_RETRY_AFTER_MS };
        }
        throw failure;
      })
      .then(async (tokens) => {
        failedRecently = undefined;
        options.redactor?.remember(tokens.accessToken);
        options.redactor?.remember(tokens.refreshToken);
        current = tokens.accessToken;
        fallbackExpiry = undefined;
        await notify(options, {
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          expiresAt: jwtExpiryMs(tokens.accessToken),
          via: tokens.via,
        });
        return tokens.accessToken;
      })
      .finally(() => (pending = undefined));
    return pending;
  };
  return {
    async accessToken() {
      const token = current;
      if (token !== undefined && !shouldRenew(token, options.now(), fallbackExpiry)) return token;
      try {
        return await renew();
      } catch (error) {
        const failure = CursorError.from(error);
        // A transient renewal failure keeps a token that has not expired yet in use.
        const expiry = token === undefined ? undefined : jwtExpiryMs(token) ?? fallbackExpiry;
        if (
          failure.code !== "unauthenticated" && token !== undefined && expiry !== undefined &&
          expiry > options.now()
        ) return token;
        throw failure;
      }
    },
    renew: () => renew(),
    async rejected(token) {
      if (current !== undefined && current !== token) return current;
      if (pending !== undefined) return await pending;
      return await renew();
    },
  };
}

async function notify(options: TokenSourceOptions, credentials: RenewedCredentials): Promise<void> {
  if (options.onRenewed === undefined) return;
  try {
    await options.onRenewed(credentials);
  } catch {
    // Storing renewed credentials is best effort: the token is still used.
  }
}
