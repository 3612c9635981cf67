/**
 * Stored credentials → a token source. Reads what OpenCode saved (a browser login, an
 * API key, or an older API-key login that kept only its exchanged token) and turns it
 * into a {@link TokenSource} that renews before expiry, with errors that tell the person
 * how to sign in again.
 *
 * @module
 */
import { CursorError } from "../../src/core/cursor-error.ts";
import type { CredentialRedactor } from "../../src/auth/credential-redactor.ts";
import { jwtExpiryMs } from "../../src/auth/jwt.ts";
import {
  type AccessTokenGetter,
  createTokenSource,
  type RenewedCredentials,
  type TokenSource,
} from "../../src/auth/token-source.ts";

/** Credentials in the form the plugin works with. */
export type CursorCredentials =
  | {
    readonly kind: "session";
    readonly accessToken: string;
    readonly refreshToken: string;
    readonly expiresAt: number | undefined;
  }
  | { readonly kind: "api-key"; readonly apiKey: string; readonly accessToken: string | undefined }
  | {
    readonly kind: "token";
    readonly accessToken: string;
    readonly expiresAt: number | undefined;
  };

/** What to tell the person when they must sign in again. */
export const SIGN_IN_AGAIN = "Run `opencode auth login`, choose Cursor and sign in again.";

/**
 * Reads credentials as OpenCode stored them: 1.x auth.json entries (`oauth`, `api`) and
 * 2.x credential values (`oauth`, `key`).
 *
 * @param stored The stored entry (unvalidated).
 * @returns The credentials, or `undefined` when the entry is not a usable Cursor login.
 *
 * @example
 * ```ts
 * import { parseStoredCredentials } from "./credentials.ts";
 *
 * const credentials = parseStoredCredentials({ type: "api", key: "crsr_example" });
 * console.assert(credentials?.kind === "api-key");
 * ```
 */
export function parseStoredCredentials(stored: unknown): CursorCredentials | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const entry = stored as Record<string, unknown>;
  if (entry.type === "oauth") {
    const { access, refresh, expires } = entry;
    if (typeof access !== "string" || access === "") return undefined;
    const expiresAt = typeof expires === "number" && Number.isFinite(expires) ? expires : undefined;
    if (typeof refresh !== "string" || refresh === "") {
      return { kind: "token", accessToken: access, expiresAt };
    }
    return { kind: "session", accessToken: access, refreshToken: refresh, expiresAt };
  }
  if (entry.type === "api" || entry.type === "key") {
    const key = typeof entry.key === "string" ? entry.key.trim() : "";
    if (key === "") return undefined;
    if (key.startsWith("crsr_")) return { kind: "api-key", apiKey: key, accessToken: undefined };
    const metadata = typeof entry.metadata === "object" && entry.metadata !== null
      ? entry.metadata as Record<string, unknown>
      : {};
    const keptKey = typeof metadata.apiKey === "string" ? metadata.apiKey.trim() : "";
    if (keptKey.startsWith("crsr_")) return { kind: "api-key", apiKey: keptKey, accessToken: key };
    return { kind: "token", accessToken: key, expiresAt: undefined };
  }
  return undefined;
}

/** What {@link tokenSourceFor} needs besides the credentials. */
export interface TokenSourceContext {
  readonly apiBaseURL: string;
  /** Accept a plain-http loopback API origin (a local emulator). */
  readonly allowLoopback?: boolean | undefined;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  /** Learns the credential values, to keep them out of the plugin's log lines. */
  readonly redactor?: CredentialRedactor | undefined;
  /** Receives renewed browser-login credentials (to store them). */
  readonly onRenewed?: ((credentials: RenewedCredentials) => void | Promise<void>) | undefined;
}

/**
 * A token source for stored credentials; its errors say how to sign in again.
 *
 * @param credentials The credentials.
 * @param context API origin, fetch, clock and the renewal callback.
 * @returns The token source.
 */
export function tokenSourceFor(
  credentials: CursorCredentials,
  context: TokenSourceContext,
): TokenSource {
  const common = {
    apiBaseURL: context.apiBaseURL,
    allowLoopback: context.allowLoopback,
    fetch: context.fetch,
    now: context.now,
    redactor: context.redactor,
  };
  let source: TokenSource;
  switch (credentials.kind) {
    case "session":
      source = createTokenSource({
        ...common,
        accessToken: credentials.accessToken,
        refreshToken: credentials.refreshToken,
        expiresAt: credentials.expiresAt,
        onRenewed: context.onRenewed,
      });
      break;
    case "api-key":
      source = createTokenSource({
        ...common,
        apiKey: credentials.apiKey,
        accessToken: credentials.accessToken,
      });
      break;
    case "token":
      context.redactor?.remember(credentials.accessToken);
      source = keylessToken(credentials.accessToken, credentials.expiresAt, context.now);
      break;
  }
  return withSignInHint(source);
}

function keylessToken(
  token: string,
  expiresAt: number | undefined,
  now: () => number,
): TokenSource {
  return {
    accessToken() {
      const expiry = jwtExpiryMs(token) ?? expiresAt;
      if (expiry !== undefined && expiry <= now()) {
        return Promise.reject(
          new CursorError(
            "unauthenticated",
            "The saved Cursor login has expired and cannot renew itself: it was saved without its API key or refresh token",
          ),
        );
      }
      return Promise.resolve(token);
    },
  };
}

/**
 * The `accessToken` setting the plugin hands to the provider: a getter that also
 * replaces a token Cursor refused (one re-exchange or refresh), when the source can.
 *
 * @param tokens The token source of the stored login.
 * @returns The getter.
 *
 * @example
 * ```ts
 * import { accessTokenGetter } from "./credentials.ts";
 *
 * const getter = accessTokenGetter({ accessToken: () => Promise.resolve("token-1") });
 * console.assert(await getter() === "token-1" && getter.rejected === undefined);
 * ```
 */
export function accessTokenGetter(tokens: TokenSource): AccessTokenGetter {
  const getter: AccessTokenGetter = () => tokens.accessToken();
  const rejected = tokens.rejected?.bind(tokens);
  if (rejected !== undefined) getter.rejected = rejected;
  return getter;
}

/**
 * Wraps a token source so that its `unauthenticated` failures end with
 * {@link SIGN_IN_AGAIN}.
 *
 * @param source The token source.
 * @returns The wrapped source.
 */
export function withSignInHint(source: TokenSource): TokenSource {
  const hinted =
    <A extends unknown[]>(call: (...args: A) => Promise<string>) =>
    async (...args: A): Promise<string> => {
      try {
        return await call(...args);
      } catch (error) {
        throw signInError(error);
      }
    };
  const renew = source.renew?.bind(source);
  const rejected = source.rejected?.bind(source);
  return {
    accessToken: hinted((signal?: AbortSignal) => source.accessToken(signal)),
    ...(renew === undefined ? {} : { renew: hinted(renew) }),
    ...(rejected === undefined ? {} : { rejected: hinted(rejected) }),
  };
}

/**
 * Adds the sign-in instruction to an authentication failure.
 *
 * @param reason What failed.
 * @returns The same failure as a {@link CursorError}; an `unauthenticated` one says how to sign in again.
 */
export function signInError(reason: unknown): CursorError {
  const error = CursorError.from(reason);
  if (error.code !== "unauthenticated" || error.message.includes(SIGN_IN_AGAIN)) return error;
  return new CursorError("unauthenticated", `${error.message}. ${SIGN_IN_AGAIN}`, {
    httpStatus: error.httpStatus,
    connectCode: error.connectCode,
    detail: error.detail,
    cause: error,
  });
}
