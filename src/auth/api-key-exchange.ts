/**
 * Exchanging a `crsr_` API key for an access token (and a refresh token).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { startDeadline } from "../core/deadline.ts";
import { errorFromResponse } from "../transport/http-error.ts";
import { normalizeApiKey } from "./api-key.ts";
import { validateCursorOrigin } from "./cursor-origin.ts";
import { failedReaching } from "../core/network-cause.ts";

/** Tokens returned by Cursor's auth endpoints. */
export interface CursorTokens {
  readonly accessToken: string;
  readonly refreshToken: string;
}

/**
 * Exchanges an API key.
 *
 * @param key A key starting with `crsr_` (surrounding whitespace is trimmed).
 * @param options API base URL (https, or loopback http with `allowLoopback`), fetch, deadline.
 * @returns The tokens.
 * @throws {CursorError} `config` for a malformed key or a non-https API URL (nothing is
 *   sent then), `unauthenticated` when the key is rejected, `network`/`timeout` on failures.
 */
export async function exchangeApiKey(
  key: string,
  options: {
    apiBaseURL: string;
    fetch: typeof fetch;
    allowLoopback?: boolean | undefined;
    timeoutMs?: number;
    signal?: AbortSignal;
  },
): Promise<CursorTokens> {
  const apiKey = normalizeApiKey(key);
  const base = validateCursorOrigin(options.apiBaseURL, { allowLoopback: options.allowLoopback });
  const timeoutMs = options.timeoutMs ?? 5_000;
  const deadline = startDeadline(
    timeoutMs,
    () =>
      new CursorError(
        "timeout",
        `Cursor did not answer the API-key exchange within ${timeoutMs} ms`,
        {
          replaySafe: true,
        },
      ),
    options.signal,
  );
  let response: Response;
  try {
    response = await deadline.race(options.fetch(`${base}/auth/exchange_user_api_key`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ apiKey }),
      signal: deadline.signal,
    }));
  } catch (cause) {
    if (cause instanceof CursorError && cause.code === "timeout") throw cause;
    const where = failedReaching(base, cause);
    throw new CursorError("network", `The API key exchange ${where}: ${errorText(cause)}`, {
      cause,
      replaySafe: true,
    });
  } finally {
    deadline.clear();
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new CursorError("unauthenticated", "Cursor rejected the API key", {
      httpStatus: response.status,
    });
  }
  if (response.status !== 200) throw await errorFromResponse(response, "API key exchange");
  return parseTokens(await response.json().catch(() => undefined), "API key exchange");
}

/**
 * Reads `{accessToken, refreshToken}` (or `access_token`) from an auth response.
 *
 * @param json The parsed body.
 * @param what What was called, for the message.
 * @returns The tokens.
 * @throws {CursorError} `unauthenticated` when no access token is present.
 */
export function parseTokens(json: unknown, what: string): CursorTokens {
  const record = typeof json === "object" && json !== null ? json as Record<string, unknown> : {};
  const access = record.accessToken ?? record.access_token;
  const refresh = record.refreshToken ?? record.refresh_token ?? access;
  if (typeof access !== "string" || access === "" || typeof refresh !== "string") {
    throw new CursorError("unauthenticated", `${what} returned no access token`);
  }
  return { accessToken: access, refreshToken: refresh };
}

function errorText(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
