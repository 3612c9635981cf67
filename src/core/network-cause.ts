/**
 * What kind of network failure an error is (a DNS lookup, a refused connection, TLS, a
 * connect timeout, a reset), read from the codes and messages of its cause chain as
 * Node, Deno and Bun report them, and the words that name it with the host in an error
 * message. A person reading "GetServerConfig to api2.cursor.sh failed (DNS lookup
 * failed)" knows where to look.
 *
 * @module
 */

/** The kinds of network failure a message names. */
export type NetworkCauseKind =
  | "DNS lookup failed"
  | "connection refused"
  | "TLS handshake failed"
  | "connection timed out"
  | "connection reset"
  | "host unreachable";

const CODE_KINDS: readonly [RegExp, NetworkCauseKind][] = [
  [/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|DNSException)$/, "DNS lookup failed"],
  [/^(ECONNREFUSED|ConnectionRefused)$/, "connection refused"],
  [
    /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|TLS|InvalidCertificate)/,
    "TLS handshake failed",
  ],
  [/^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|ConnectionTimedOut|Timeout)$/, "connection timed out"],
  [/^(ECONNRESET|ConnectionClosed|ConnectionReset|EPIPE)$/, "connection reset"],
  [/^(EHOSTUNREACH|ENETUNREACH|ENETDOWN)$/, "host unreachable"],
];

const MESSAGE_KINDS: readonly [RegExp, NetworkCauseKind][] = [
  [
    /dns error|failed to lookup address|getaddrinfo|name resolution|name or service/i,
    "DNS lookup failed",
  ],
  [/connection refused|ECONNREFUSED/i, "connection refused"],
  [
    /certificate|\btls\b|\bssl\b|handshake|wrong version number|corrupt message|UnknownIssuer/i,
    "TLS handshake failed",
  ],
  [/timed out|ETIMEDOUT/i, "connection timed out"],
  [/connection reset|ECONNRESET|socket hang up/i, "connection reset"],
  [/unreachable/i, "host unreachable"],
];

/**
 * The kind of network failure behind an error, if its cause chain says.
 *
 * @param reason Whatever a fetch or a socket rejected with.
 * @returns The kind, or `undefined` when nothing in the chain names one.
 *
 * @example
 * ```ts
 * import { networkCause } from "./network-cause.ts";
 *
 * const error = new TypeError("fetch failed", { cause: { code: "ENOTFOUND" } });
 * console.assert(networkCause(error) === "DNS lookup failed");
 * ```
 */
export function networkCause(reason: unknown): NetworkCauseKind | undefined {
  const links = causeChain(reason);
  for (const link of links) {
    const code = (link as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    const kind = CODE_KINDS.find(([pattern]) => pattern.test(code))?.[1];
    if (kind !== undefined) return kind;
  }
  for (const link of links) {
    const message = (link as { message?: unknown }).message;
    if (typeof message !== "string") continue;
    const kind = MESSAGE_KINDS.find(([pattern]) => pattern.test(message))?.[1];
    if (kind !== undefined) return kind;
  }
  return undefined;
}

/**
 * Where a request went and why it failed, for an error message: `to api2.cursor.sh
 * failed (connection refused)`.
 *
 * @param url The request's URL.
 * @param reason What the request failed with.
 * @returns The words after the request's name.
 *
 * @example
 * ```ts
 * import { failedReaching } from "./network-cause.ts";
 *
 * const words = failedReaching("https://api2.cursor.sh/x", { code: "ECONNREFUSED" });
 * console.assert(words === "to api2.cursor.sh failed (connection refused)");
 * ```
 */
export function failedReaching(url: string, reason: unknown): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // Not a URL: name it as given.
  }
  const kind = networkCause(reason);
  return `to ${host} failed${kind === undefined ? "" : ` (${kind})`}`;
}

function causeChain(reason: unknown): object[] {
  const links: object[] = [];
  for (let current = reason, depth = 0; depth < 6; depth++) {
    if (typeof current !== "object" || current === null || links.includes(current)) break;
    links.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return links;
}
