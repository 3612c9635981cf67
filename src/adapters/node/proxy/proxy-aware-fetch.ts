/**
 * The Node entry's fetch when a proxy is configured: on Node, with `HTTPS_PROXY` or
 * `https_proxy` set, a fetch that sends the requests the proxy rules cover through a
 * CONNECT tunnel. Its module (and `node:https`) loads on the first request, so importing
 * the package costs nothing more.
 *
 * @module
 */

/**
 * The proxied fetch on Node when `HTTPS_PROXY` or `https_proxy` is set; `undefined`
 * otherwise, and on Bun and Deno, whose fetch reads the proxy variables itself.
 *
 * @param env The environment.
 * @returns A fetch, or `undefined` for the runtime's own.
 *
 * @example
 * ```ts
 * import { proxyAwareFetch } from "./proxy-aware-fetch.ts";
 *
 * console.assert(proxyAwareFetch({}) === undefined);
 * ```
 */
export function proxyAwareFetch(
  env: Readonly<Record<string, string | undefined>>,
): typeof fetch | undefined {
  const runtime = globalThis as { Bun?: unknown; Deno?: unknown };
  if (runtime.Bun !== undefined || runtime.Deno !== undefined) return undefined;
  if (!(env.https_proxy ?? env.HTTPS_PROXY)) return undefined;
  const direct = globalThis.fetch.bind(globalThis);
  let loaded: Promise<typeof fetch> | undefined;
  return async (input, init) => {
    loaded ??= import("./proxy-fetch.ts").then((module) => module.createProxyFetch(env, direct));
    return await (await loaded)(input, init);
  };
}
