/**
 * Which proxy a Cursor request goes through, from the usual variables: `HTTPS_PROXY` /
 * `https_proxy` for https origins (the lowercase one first, as curl reads them) and
 * `NO_PROXY` / `no_proxy` for the hosts that bypass it (`*`, a host and its subdomains,
 * `.suffix`, an IP, each with an optional `:port`). Only `http://` proxies (the CONNECT
 * kind corporate networks run); credentials in the proxy URL become a
 * `Proxy-Authorization` header and never appear in {@link ProxyRoute.display}.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

/** The proxy for one origin. */
export interface ProxyRoute {
  /** The proxy's host name or IP (brackets stripped). */
  readonly host: string;
  /** The proxy's port. */
  readonly port: number;
  /** `Basic …` when the proxy URL carried credentials. */
  readonly authorization: string | undefined;
  /** The proxy as it may be shown in logs and errors: `http://host:port`, no credentials. */
  readonly display: string;
}

/**
 * The proxy for `target`, or `undefined` when none applies.
 *
 * @param target The request URL (only https URLs are proxied).
 * @param env The environment variables.
 * @returns The route through the proxy.
 * @throws {CursorError} `config` for a proxy URL that cannot be used.
 *
 * @example
 * ```ts
 * import { proxyFor } from "./proxy-rules.ts";
 *
 * const env = { HTTPS_PROXY: "http://user:secret@proxy.corp:3128", NO_PROXY: "localhost" };
 * const route = proxyFor("https://api2.cursor.sh/x", env);
 * console.assert(route?.display === "http://proxy.corp:3128");
 * console.assert(proxyFor("https://localhost:8443/x", env) === undefined);
 * ```
 */
export function proxyFor(
  target: string | URL,
  env: Readonly<Record<string, string | undefined>>,
): ProxyRoute | undefined {
  const url = typeof target === "string" ? new URL(target) : target;
  if (url.protocol !== "https:") return undefined;
  const raw = (env.https_proxy ?? env.HTTPS_PROXY ?? "").trim();
  if (raw === "") return undefined;
  if (bypassed(url, env.no_proxy ?? env.NO_PROXY ?? "")) return undefined;
  return parseProxy(raw);
}

function parseProxy(raw: string): ProxyRoute {
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new CursorError("config", "HTTPS_PROXY is not a URL: use http://host:port");
  }
  const display = `${proxy.protocol}//${proxy.host}`;
  if (proxy.protocol !== "http:") {
    throw new CursorError(
      "config",
      `Proxy ${JSON.stringify(display)} is not supported: use an http:// proxy (CONNECT)`,
    );
  }
  const user = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  const authorization = user === "" && password === ""
    ? undefined
    : `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)))}`;
  return {
    host: proxy.hostname.replace(/^\[|\]$/g, ""),
    port: proxy.port === "" ? 80 : Number(proxy.port),
    authorization,
    display,
  };
}

function bypassed(url: URL, noProxy: string): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port === "" ? "443" : url.port;
  for (const item of noProxy.split(/[\s,]+/)) {
    const entry = item.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    const match = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\[(.*)\](?=:|$)/, "$1"));
    const name = (match?.[1] ?? entry).replace(/^\*?\./, ".");
    if (match?.[2] !== undefined && match[2] !== port) continue;
    const bare = name.startsWith(".") ? name.slice(1) : name;
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}
