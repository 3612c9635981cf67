/**
 * Renewing a browser sign-in with its refresh token. Cursor's clients have used four
 * request shapes; this tries the OAuth one first (D), then `/auth/token` (A), then a
 * re-exchange with the refresh token as bearer (B). A 401/403 or `shouldLogout` means
 * the session ended and the person must sign in again; an endpoint that does not exist
 * (404/405/501) or a server failure moves on to the next shape. A shape that got no
 * answer at all (its deadline passed, the connection failed) ends the renewal at once:
 * every shape goes to the same origin, so trying the others would only multiply the wait.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { startDeadline } from "../core/deadline.ts";
import { type CursorTokens, parseTokens } from "./api-key-exchange.ts";
import { validateCursorOrigin } from "./cursor-origin.ts";

/** The client id Cursor's IDE sends to `/oauth/token`. */
export const CURSOR_OAUTH_CLIENT_ID = "KbZUR41cY7W6zRSdpSUJ7I7mLYBKOCmB";

/** A refresh request shape, by the letter the protocol notes give it. */
export type RefreshVariantName = "oauth-token" | "auth-token" | "re-exchange";

/** The order the shapes are tried in: D → A → B. */
export const REFRESH_ORDER: readonly RefreshVariantName[] = [
  "oauth-token",
  "auth-token",
  "re-exchange",
];

/** Options for {@link refreshSession}. */
export interface RefreshOptions {
  /** Cursor's API origin: https, or loopback http with `allowLoopback`. */
  readonly apiBaseURL: string;
  /** Accept a plain-http loopback API origin (a local emulator). */
  readonly allowLoopback?: boolean | undefined;
  readonly fetch: typeof fetch;
  /** Deadline of each request; default 5 s. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Shapes to try, in order; default {@link REFRESH_ORDER}. */
  readonly order?: readonly RefreshVariantName[] | undefined;
}

/** Renewed tokens and the shape that worked. */
export interface RefreshedTokens extends CursorTokens {
  readonly variant: RefreshVariantName;
}

type Attempt =
  | { readonly kind: "ok"; readonly tokens: CursorTokens }
  | { readonly kind: "ended"; readonly status: number | undefined }
  | { readonly kind: "next"; readonly error: CursorError; readonly transient: boolean }
  | { readonly kind: "unanswered"; readonly error: CursorError };

/**
 * Renews a session.
 *
 * @param refreshToken The refresh token of the sign-in.
 * @param options API origin, fetch, deadline.
 * @returns New tokens (the old refresh token is kept when the answer has none).
 * @throws {CursorError} `config` for a non-https API URL (nothing is sent);
 *   `unauthenticated` when Cursor ended the session (sign in again);
 *   a retryable `network`/`unavailable` error when no shape could be tried to the end.
 *
 * @example
 * ```ts
 * import { refreshSession } from "./refresh.ts";
 *
 * const fetchStub: typeof fetch = () =>
 *   Promise.resolve(Response.json({ access_token: "new-access", shouldLogout: false }));
 * const tokens = await refreshSession("refresh", { apiBaseURL: "https://api2.cursor.sh", fetch: fetchStub });
 * console.assert(tokens.accessToken === "new-access" && tokens.refreshToken === "refresh");
 * ```
 */
export async function refreshSession(
  refreshToken: string,
  options: RefreshOptions,
): Promise<RefreshedTokens> {
  const base = validateCursorOrigin(options.apiBaseURL, { allowLoopback: options.allowLoopback });
  const failures: CursorError[] = [];
  let transient = false;
  for (const variant of options.order ?? REFRESH_ORDER) {
    const attempt = await tryVariant(variant, refreshToken, base, options);
    if (attempt.kind === "ok") {
      return {
        accessToken: attempt.tokens.accessToken,
        refreshToken: attempt.tokens.refreshToken === attempt.tokens.accessToken
          ? refreshToken
          : attempt.tokens.refreshToken,
        variant,
      };
    }
    if (attempt.kind === "ended") throw sessionEnded(attempt.status);
    if (attempt.kind === "unanswered") throw cannotRenewNow(attempt.error);
    failures.push(attempt.error);
    transient ||= attempt.transient;
  }
  const last = failures.at(-1);
  if (transient) throw cannotRenewNow(last);
  throw new CursorError(
    "unauthenticated",
    "Cursor accepted none of the known ways to renew this sign-in: sign in to Cursor again",
    { cause: last },
  );
}

function cannotRenewNow(last: CursorError | undefined): CursorError {
  return new CursorError(
    "unavailable",
    `Cannot renew the Cursor session right now: ${last?.message ?? "no answer"}`,
    { retryable: true, cause: last },
  );
}

/**
 * The error for a session Cursor ended.
 *
 * @param status The HTTP status that said so, if any.
 * @returns An `unauthenticated` {@link CursorError}.
 */
export function sessionEnded(status?: number): CursorError {
  return new CursorError(
    "unauthenticated",
    `Cursor ended the session${
      status === undefined ? "" : ` (HTTP ${status})`
    }: sign in to Cursor again`,
    { httpStatus: status },
  );
}

async function tryVariant(
  variant: RefreshVariantName,
  refreshToken: string,
  base: string,
  options: RefreshOptions,
): Promise<Attempt> {
  const request = requestFor(variant, refreshToken);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const deadline = startDeadline(
    timeoutMs,
    () => new CursorError("timeout", `${request.path} did not answer within ${timeoutMs} ms`),
    options.signal,
  );
  let response: Response;
  try {
    response = await deadline.race(options.fetch(`${base}${request.path}`, {
      method: "POST",
      headers: request.headers,
      body: JSON.stringify(request.body),
      signal: deadline.signal,
    }));
  } catch (cause) {
    if (options.signal?.aborted) throw CursorError.from(cause);
    const timedOut = CursorError.from(cause).code === "timeout";
    return {
      kind: "unanswered",
      error: new CursorError(
        timedOut ? "timeout" : "network",
        timedOut
          ? `${request.path} did not answer within ${timeoutMs} ms`
          : `${request.path} did not answer`,
        { cause },
      ),
    };
  } finally {
    deadline.clear();
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.status === 401 || response.status === 403) {
    return { kind: "ended", status: response.status };
  }
  if (response.status === 200) {
    if (isRecord(body) && body.shouldLogout === true) return { kind: "ended", status: undefined };
    try {
      return { kind: "ok", tokens: parseTokens(body, request.path) };
    } catch (cause) {
      return {
        kind: "next",
        transient: false,
        error: new CursorError("protocol", `${request.path} answered without a token`, { cause }),
      };
    }
  }
  if (response.status === 400 && isRecord(body) && body.error === "invalid_grant") {
    return { kind: "ended", status: 400 };
  }
  return {
    kind: "next",
    transient: response.status === 429 || response.status >= 500,
    error: new CursorError(
      response.status >= 500 ? "unavailable" : "server",
      `${request.path} answered HTTP ${response.status}`,
      { httpStatus: response.status },
    ),
  };
}

function requestFor(
  variant: RefreshVariantName,
  refreshToken: string,
): { path: string; headers: Record<string, string>; body: unknown } {
  const json = { "content-type": "application/json" };
  switch (variant) {
    case "oauth-token":
      return {
        path: "/oauth/token",
        headers: json,
        body: {
          grant_type: "refresh_token",
          client_id: CURSOR_OAUTH_CLIENT_ID,
          refresh_token: refreshToken,
        },
      };
    case "auth-token":
      return { path: "/auth/token", headers: json, body: { refreshToken } };
    case "re-exchange":
      return {
        path: "/auth/exchange_user_api_key",
        headers: { ...json, authorization: `Bearer ${refreshToken}` },
        body: {},
      };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
