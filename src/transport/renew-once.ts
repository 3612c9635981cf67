/**
 * Renewing a refused access token once: when Cursor answers a request with 401, the
 * credentials' `rejected` hook is asked for another token and the request is sent again
 * with it, at most once. A request without a bearer token, a hook that fails, or a
 * renewal that hands back the refused token leaves the refusal as it was. The unary
 * fetch wrapper, the RunSSE legs and the HTTP/2 Run all renew through this one rule.
 *
 * @module
 */

/** HTTP 401: Cursor refused the request's access token. */
const REFUSED_TOKEN_STATUS = 401;

/** How the Connect protocol's `Bearer` credentials are written in `authorization`. */
const BEARER = /^Bearer (.+)$/;

/**
 * The credentials' hook for a refused token: a token to retry with (renewed at most once
 * per refused token by the source), as `RunCredentials.rejected` is.
 */
export type RenewRefusedToken = (token: string, signal?: AbortSignal) => Promise<string>;

/** Request headers as a record (names in any case) or a `Headers` object. */
export type HeaderSet = Readonly<Record<string, string>> | Headers;

/**
 * Whether an HTTP status is Cursor refusing the access token (so a renewal may help).
 *
 * @param status The response's HTTP status.
 * @returns True for 401.
 *
 * @example
 * ```ts
 * import { refusesToken } from "./renew-once.ts";
 *
 * console.assert(refusesToken(401) && !refusesToken(403));
 * ```
 */
export function refusesToken(status: number): boolean {
  return status === REFUSED_TOKEN_STATUS;
}

/**
 * The bearer token of a request's `authorization` header (the name in any case).
 *
 * @param headers The request's headers.
 * @returns The token, or `undefined` when there is no `Bearer …` authorization.
 *
 * @example
 * ```ts
 * import { bearerOf } from "./renew-once.ts";
 *
 * console.assert(bearerOf({ Authorization: "Bearer abc" }) === "abc");
 * console.assert(bearerOf({ authorization: "Basic abc" }) === undefined);
 * ```
 */
export function bearerOf(headers: HeaderSet): string | undefined {
  if (headers instanceof Headers) return BEARER.exec(headers.get("authorization") ?? "")?.[1];
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === "authorization") return BEARER.exec(value)?.[1];
  }
  return undefined;
}

/**
 * A copy of the headers whose authorization is `Bearer <token>`: any `authorization`
 * header, whatever the case of its name, is replaced by one lowercase `authorization`.
 *
 * @param headers The headers to copy.
 * @param token The access token to send.
 * @returns The new headers, of the same kind as `headers`.
 *
 * @example
 * ```ts
 * import { withBearer } from "./renew-once.ts";
 *
 * const headers = withBearer({ Authorization: "Bearer old", accept: "*" }, "new");
 * console.assert(headers.authorization === "Bearer new" && !("Authorization" in headers));
 * ```
 */
export function withBearer(headers: Headers, token: string): Headers;
export function withBearer(
  headers: Readonly<Record<string, string>>,
  token: string,
): Record<string, string>;
export function withBearer(headers: HeaderSet, token: string): HeaderSet {
  if (headers instanceof Headers) {
    const out = new Headers(headers);
    out.set("authorization", `Bearer ${token}`);
    return out;
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "authorization") out[name] = value;
  }
  out.authorization = `Bearer ${token}`;
  return out;
}

/** How {@link RenewOnce.settle} tells a refusal and sends the request again. */
export interface RefusalHandling<T> {
  /** The headers the answered request was sent with (its bearer token is the refused one). */
  readonly sent: HeaderSet;
  /** Whether the answer is Cursor refusing the token. */
  readonly refused: (answer: T) => boolean;
  /** Sends the request again with `token`; its answer is final. */
  readonly resend: (token: string) => Promise<T>;
  /** Lets go of a refused answer that is replaced (e.g. cancels its body). */
  readonly release?: ((answer: T) => unknown) | undefined;
  /** Aborts the renewal. */
  readonly signal?: AbortSignal | undefined;
}

/** One request's (or one Run's) single chance to renew a refused token. */
export interface RenewOnce {
  /** Whether a refusal can still be answered by renewing: there is a hook, and none was tried. */
  readonly mayRenew: boolean;
  /**
   * The answer, or, when it is a refusal and a renewal is still possible, the answer to the
   * request sent again with a renewed token. Never renews twice; never throws for a failed
   * renewal (the refusal stands), only for a failed re-send.
   */
  settle<T>(answer: T, handling: RefusalHandling<T>): Promise<T>;
}

/**
 * Creates the single renewal of one request or Run.
 *
 * @param rejected The credentials' hook; without it nothing is renewed.
 * @returns The renewal, untried.
 *
 * @example A 401 renewed once
 * ```ts
 * import { createRenewOnce, refusesToken } from "./renew-once.ts";
 *
 * const renewal = createRenewOnce(() => Promise.resolve("fresh"));
 * const status = await renewal.settle(401, {
 *   sent: { authorization: "Bearer stale" },
 *   refused: refusesToken,
 *   resend: (token) => Promise.resolve(token === "fresh" ? 200 : 401),
 * });
 * console.assert(status === 200 && !renewal.mayRenew);
 * ```
 */
export function createRenewOnce(rejected: RenewRefusedToken | undefined): RenewOnce {
  let tried = false;
  const renewedToken = async (sent: HeaderSet, signal: AbortSignal | undefined) => {
    tried = true;
    const refused = bearerOf(sent);
    if (rejected === undefined || refused === undefined) return undefined;
    let fresh: string;
    try {
      fresh = await rejected(refused, signal);
    } catch {
      return undefined;
    }
    return fresh === refused ? undefined : fresh;
  };
  return {
    get mayRenew() {
      return rejected !== undefined && !tried;
    },
    async settle(answer, handling) {
      if (rejected === undefined || tried || !handling.refused(answer)) return answer;
      const fresh = await renewedToken(handling.sent, handling.signal);
      if (fresh === undefined) return answer;
      await handling.release?.(answer);
      return await handling.resend(fresh);
    },
  };
}
