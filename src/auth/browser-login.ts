/**
 * Cursor's browser sign-in (PKCE): a random verifier, its SHA-256 challenge, a login id,
 * the login page URL to open, and the poll that waits until the person approves.
 *
 * @module
 */
import { base64Encode } from "@bufbuild/protobuf/wire";
import { CursorError } from "../core/cursor-error.ts";
import { startDeadline } from "../core/deadline.ts";
import { type CursorTokens, parseTokens } from "./api-key-exchange.ts";
import { validateCursorOrigin } from "./cursor-origin.ts";

/** Cursor's website, where the login page lives. */
export const DEFAULT_WEBSITE_URL = "https://cursor.com";

/** One started browser sign-in. */
export interface BrowserLogin {
  /** The secret the poll proves possession of (base64url, 32 random bytes). */
  readonly verifier: string;
  /** base64url(SHA-256(verifier)), sent in the login URL. */
  readonly challenge: string;
  /** The login id (UUID v4). */
  readonly uuid: string;
  /** The page the person opens to approve the sign-in. */
  readonly url: string;
}

/** Options for {@link startBrowserLogin}. */
export interface StartBrowserLoginOptions {
  /** Cursor's website origin; default {@link DEFAULT_WEBSITE_URL}. */
  readonly websiteURL?: string | undefined;
  /** Accept a plain-http loopback website (a local emulator). */
  readonly allowLoopback?: boolean | undefined;
  /** Random bytes; default WebCrypto. */
  readonly randomBytes?: ((length: number) => Uint8Array) | undefined;
  /** UUID generator; default `crypto.randomUUID`. */
  readonly generateId?: (() => string) | undefined;
}

/**
 * Starts a browser sign-in: creates the PKCE pair and the login URL.
 *
 * @param options Website origin and (for tests) random sources.
 * @returns The verifier, challenge, login id and URL.
 * @throws {CursorError} `config` for a website URL that is not https (loopback http
 *   only with `allowLoopback`).
 *
 * @example
 * ```ts
 * import { startBrowserLogin } from "./browser-login.ts";
 *
 * const login = await startBrowserLogin();
 * console.assert(login.url.startsWith("https://cursor.com/loginDeepControl?challenge="));
 * console.assert(login.verifier.length === 43);
 * ```
 */
export async function startBrowserLogin(
  options: StartBrowserLoginOptions = {},
): Promise<BrowserLogin> {
  const random = options.randomBytes ??
    ((length: number) => crypto.getRandomValues(new Uint8Array(length)));
  const verifier = base64Encode(random(32), "url");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const challenge = base64Encode(new Uint8Array(digest), "url");
  const uuid = (options.generateId ?? (() => crypto.randomUUID()))();
  const website = validateCursorOrigin(options.websiteURL ?? DEFAULT_WEBSITE_URL, {
    allowLoopback: options.allowLoopback,
    what: "Cursor website URL",
  });
  const url = new URL("/loginDeepControl", website);
  url.searchParams.set("challenge", challenge);
  url.searchParams.set("uuid", uuid);
  url.searchParams.set("mode", "login");
  url.searchParams.set("redirectTarget", "cli");
  return { verifier, challenge, uuid, url: url.href };
}

/** Most poll attempts before giving up: 150 (about 23 minutes with the back-off). */
export const MAX_POLL_ATTEMPTS = 150;

/** Consecutive failed polls (not "pending") that end the sign-in: 3. */
export const MAX_CONSECUTIVE_POLL_ERRORS = 3;

/**
 * The wait before poll attempt `attempt` (0-based): `min(1000 · 1.2^attempt, 10000)` ms.
 *
 * @param attempt The attempt number, from 0.
 * @returns Milliseconds to wait before that attempt.
 *
 * @example
 * ```ts
 * import { pollDelayMs } from "./browser-login.ts";
 *
 * console.assert(pollDelayMs(0) === 1000);
 * console.assert(pollDelayMs(1) === 1200);
 * console.assert(pollDelayMs(40) === 10_000);
 * ```
 */
export function pollDelayMs(attempt: number): number {
  return Math.min(Math.round(1000 * 1.2 ** attempt), 10_000);
}

/** Options for {@link pollBrowserLogin}. */
export interface PollBrowserLoginOptions {
  /** Cursor's API origin (`https://api2.cursor.sh`). */
  readonly apiBaseURL: string;
  /** Accept a plain-http loopback API origin (a local emulator). */
  readonly allowLoopback?: boolean | undefined;
  readonly fetch: typeof fetch;
  /** Waits between attempts; default a timer (abortable). */
  readonly sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Attempt limit; default {@link MAX_POLL_ATTEMPTS}. */
  readonly maxAttempts?: number | undefined;
  /** Deadline of one poll request; default 5 s. */
  readonly requestTimeoutMs?: number | undefined;
  /** Stops waiting. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Polls until the sign-in of `login` is approved.
 *
 * @param login The started sign-in (its uuid and verifier are used).
 * @param options API origin, fetch, timing.
 * @returns The access and refresh tokens.
 * @throws {CursorError} `config` for a non-https API URL (nothing is sent); `timeout`
 *   when nobody approved in time; `permission_denied` when
 *   Cursor refused the sign-in; `network`/`server` after three failed polls in a row;
 *   `canceled` when the signal aborts.
 */
export async function pollBrowserLogin(
  login: Pick<BrowserLogin, "uuid" | "verifier">,
  options: PollBrowserLoginOptions,
): Promise<CursorTokens> {
  const sleep = options.sleep ?? abortableSleep;
  const maxAttempts = options.maxAttempts ?? MAX_POLL_ATTEMPTS;
  const base = validateCursorOrigin(options.apiBaseURL, { allowLoopback: options.allowLoopback });
  const url = new URL(`${base}/auth/poll`);
  url.searchParams.set("uuid", login.uuid);
  url.searchParams.set("verifier", login.verifier);
  let consecutiveErrors = 0;
  let lastError: CursorError | undefined;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    await sleep(pollDelayMs(attempt), options.signal);
    const outcome = await pollOnce(url.href, options);
    if (outcome.kind === "tokens") return outcome.tokens;
    if (outcome.kind === "pending") {
      consecutiveErrors = 0;
      continue;
    }
    lastError = outcome.error;
    consecutiveErrors++;
    if (consecutiveErrors >= MAX_CONSECUTIVE_POLL_ERRORS) {
      throw new CursorError(
        lastError.code,
        `Cannot complete the browser sign-in: ${lastError.message} (${consecutiveErrors} failed polls in a row)`,
        { cause: lastError, httpStatus: lastError.httpStatus },
      );
    }
  }
  throw new CursorError(
    "timeout",
    `The browser sign-in was not approved after ${maxAttempts} checks; start the sign-in again`,
    { retryable: false, cause: lastError },
  );
}

type PollOutcome =
  | { readonly kind: "tokens"; readonly tokens: CursorTokens }
  | { readonly kind: "pending" }
  | { readonly kind: "error"; readonly error: CursorError };

async function pollOnce(url: string, options: PollBrowserLoginOptions): Promise<PollOutcome> {
  const timeoutMs = options.requestTimeoutMs ?? 5_000;
  const deadline = startDeadline(
    timeoutMs,
    () => new CursorError("timeout", `The sign-in poll did not answer within ${timeoutMs} ms`),
    options.signal,
  );
  let response: Response;
  try {
    response = await deadline.race(options.fetch(url, {
      method: "GET",
      headers: { "content-type": "application/json" },
      signal: deadline.signal,
    }));
  } catch (cause) {
    if (options.signal?.aborted) {
      throw new CursorError("canceled", "The browser sign-in was canceled", { cause });
    }
    const error = CursorError.from(cause);
    return {
      kind: "error",
      error: new CursorError(
        error.code === "timeout" ? "timeout" : "network",
        "Cursor's login service did not answer",
        { cause },
      ),
    };
  } finally {
    deadline.clear();
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return { kind: "pending" };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.status === 403) {
    throw new CursorError(
      "permission_denied",
      `Cursor refused the sign-in${describeRefusal(body)}`,
      { httpStatus: 403 },
    );
  }
  if (response.status !== 200) {
    return {
      kind: "error",
      error: new CursorError(
        response.status >= 500 ? "unavailable" : "server",
        `the login poll answered HTTP ${response.status}`,
        {
          httpStatus: response.status,
        },
      ),
    };
  }
  try {
    return { kind: "tokens", tokens: parseTokens(body, "The login poll") };
  } catch (cause) {
    return {
      kind: "error",
      error: new CursorError("protocol", "the login poll answered without tokens", { cause }),
    };
  }
}

function describeRefusal(body: unknown): string {
  if (typeof body !== "object" || body === null) return "";
  const error = (body as Record<string, unknown>).error;
  return typeof error === "string" && error !== "" ? `: ${error.slice(0, 200)}` : "";
}

/**
 * Waits `ms` milliseconds, or rejects with a `canceled` {@link CursorError} when the
 * signal aborts.
 *
 * @param ms How long to wait.
 * @param signal Stops the wait.
 * @returns Resolves after the wait.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new CursorError("canceled", "The browser sign-in was canceled"));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CursorError("canceled", "The browser sign-in was canceled"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
