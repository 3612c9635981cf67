/**
 * The environment the web-standard entries read where the runtime has one: `Deno.env`
 * (only variables the program may read: no permission prompt), or `process.env` (Node,
 * Bun, and workerd with `nodejs_compat`). Only the provider's own variables are read.
 * Where there is none (a browser, workerd without `nodejs_compat`), the sign-in advice
 * says which setting to pass instead.
 *
 * @module
 */
import type { CursorEnvironment } from "../../provider/settings/cursor-settings.ts";

/** The variables the web entries read. */
const NAMES = [
  "CURSOR_API_KEY",
  "CURSOR_API_BASE_URL",
  "CURSOR_AGENT_BASE_URL",
  "CURSOR_ALLOW_LOOPBACK",
  "CURSOR_CLIENT_VERSION",
] as const;

/** The runtime's environment and where it came from. */
export interface RuntimeEnvironment {
  readonly env: CursorEnvironment;
  /** `Deno.env` or `process.env`. */
  readonly source: string;
}

interface DenoLike {
  readonly env?: { get(name: string): string | undefined };
  readonly permissions?: {
    querySync?(descriptor: { name: "env"; variable: string }): { state: string };
  };
}

/**
 * The runtime's environment, if it has one.
 *
 * @param global The global object (`globalThis`).
 * @returns The provider's variables and their source, or `undefined`.
 *
 * @example
 * ```ts
 * import { runtimeEnvironment } from "./runtime-env.ts";
 *
 * const found = runtimeEnvironment({ process: { env: { CURSOR_API_KEY: "crsr_x" } } });
 * console.assert(found?.env.CURSOR_API_KEY === "crsr_x" && found.source === "process.env");
 * console.assert(runtimeEnvironment({}) === undefined);
 * ```
 */
export function runtimeEnvironment(global: object = globalThis): RuntimeEnvironment | undefined {
  const deno = (global as { Deno?: DenoLike }).Deno;
  if (deno?.env !== undefined) return { env: denoEnvironment(deno), source: "Deno.env" };
  const env = (global as { process?: { env?: unknown } }).process?.env;
  if (typeof env !== "object" || env === null) return undefined;
  const values: Record<string, string | undefined> = {};
  for (const name of NAMES) {
    const value = (env as Record<string, unknown>)[name];
    if (typeof value === "string") values[name] = value;
  }
  return { env: values, source: "process.env" };
}

function denoEnvironment(deno: DenoLike): CursorEnvironment {
  const values: Record<string, string | undefined> = {};
  for (const name of NAMES) {
    try {
      const state = deno.permissions?.querySync?.({ name: "env", variable: name }).state;
      if (state !== undefined && state !== "granted") continue;
      const value = deno.env?.get(name);
      if (value !== undefined) values[name] = value;
    } catch {
      // Not allowed to read it: the same as unset.
    }
  }
  return values;
}

/**
 * How errors for missing or refused credentials say to sign in on a web entry.
 *
 * @param source Where the environment was read (`Deno.env`, `process.env`, `settings.env`), if anywhere.
 * @returns The advice.
 */
export function webSignInAdvice(source: string | undefined): string {
  if (source === undefined) {
    return "Sign in to Cursor again: this runtime has no environment the provider can read, so pass apiKey (an API key from cursor.com/settings) or accessToken to createCursor()";
  }
  return `Sign in to Cursor again: set CURSOR_API_KEY (an API key from cursor.com/settings; read from ${source}), or pass apiKey or accessToken to createCursor()`;
}
