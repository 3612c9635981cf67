/**
 * Validation of the Cursor origins credentials are sent to (the API base, the website
 * with the login page): https only, or plain http on a loopback address when the
 * caller explicitly allows a local emulator. Anything else fails closed before a key
 * or token leaves the process.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Options for {@link validateCursorOrigin}. */
export interface CursorOriginOptions {
  /** Accept `http://` on localhost, 127.0.0.1 and [::1] (a local emulator). Off by default. */
  readonly allowLoopback?: boolean | undefined;
  /** What the URL is, for the message; default `Cursor API URL`. */
  readonly what?: string | undefined;
}

/**
 * Normalises and validates a Cursor base URL: trims it, adds `https://` when no scheme
 * is given, drops a query, a fragment and trailing slashes.
 *
 * @param value The URL as configured.
 * @param options Whether loopback http is allowed, and what the URL is for messages.
 * @returns The base URL without a trailing slash, e.g. `https://api2.cursor.sh`.
 * @throws {CursorError} `config` for a malformed URL, credentials in the URL, or a
 *   scheme other than https (http only on loopback with `allowLoopback`).
 *
 * @example
 * ```ts
 * import { validateCursorOrigin } from "./cursor-origin.ts";
 *
 * console.assert(validateCursorOrigin(" https://api2.cursor.sh/ ") === "https://api2.cursor.sh");
 * console.assert(
 *   validateCursorOrigin("http://127.0.0.1:4000", { allowLoopback: true }) === "http://127.0.0.1:4000",
 * );
 * let refused = false;
 * try {
 *   validateCursorOrigin("http://api.example");
 * } catch {
 *   refused = true;
 * }
 * console.assert(refused);
 * ```
 */
export function validateCursorOrigin(value: string, options: CursorOriginOptions = {}): string {
  const what = options.what ?? "Cursor API URL";
  const trimmed = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (cause) {
    throw new CursorError("config", `Invalid ${what} ${JSON.stringify(trimmed)}`, { cause });
  }
  if (url.username !== "" || url.password !== "") {
    throw new CursorError("config", `Invalid ${what}: credentials in the URL are not allowed`);
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  if (url.protocol === "https:") return base;
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol === "http:" && loopback && options.allowLoopback === true) return base;
  const reason = url.protocol === "http:" && loopback
    ? "plain http on a loopback address needs allowLoopback: true or CURSOR_ALLOW_LOOPBACK=1"
    : "https is required (plain http only on a loopback address with allowLoopback: true or CURSOR_ALLOW_LOOPBACK=1)";
  throw new CursorError("config", `Invalid ${what} ${JSON.stringify(url.origin)}: ${reason}`);
}

/**
 * Reads the `CURSOR_ALLOW_LOOPBACK` environment value: `1` or `true` (any case) allow.
 *
 * @param value The variable's value.
 * @returns Whether loopback origins are allowed.
 *
 * @example
 * ```ts
 * import { loopbackAllowedByEnv } from "./cursor-origin.ts";
 *
 * console.assert(loopbackAllowedByEnv("TRUE") && loopbackAllowedByEnv("1"));
 * console.assert(!loopbackAllowedByEnv("yes") && !loopbackAllowedByEnv(undefined));
 * ```
 */
export function loopbackAllowedByEnv(value: string | undefined): boolean {
  const normalized = value?.trim().toLowerCase();
  return normalized === "1" || normalized === "true";
}
