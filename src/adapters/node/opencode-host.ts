/**
 * Where OpenCode keeps things on this machine, for the plugin: the cache root
 * (`$XDG_CACHE_HOME/opencode`, else `~/.cache/opencode`) and the stored credentials
 * (`OPENCODE_AUTH_CONTENT`, else `$XDG_DATA_HOME/opencode/auth.json`, else
 * `~/.local/share/opencode/auth.json`). Reads only; OpenCode owns these files.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Environment values these paths depend on. */
export interface OpenCodeHostEnvironment {
  readonly HOME?: string | undefined;
  readonly XDG_CACHE_HOME?: string | undefined;
  readonly XDG_DATA_HOME?: string | undefined;
  readonly OPENCODE_AUTH_CONTENT?: string | undefined;
  readonly [name: string]: string | undefined;
}

function environment(env: OpenCodeHostEnvironment | undefined): OpenCodeHostEnvironment {
  return env ?? (process.env as OpenCodeHostEnvironment);
}

function home(env: OpenCodeHostEnvironment): string {
  const value = env.HOME?.trim();
  return value ? value : homedir();
}

/**
 * OpenCode's cache folder.
 *
 * @param env Environment values; default `process.env`.
 * @returns `$XDG_CACHE_HOME/opencode`, else `~/.cache/opencode`.
 *
 * @example
 * ```ts
 * import { openCodeCacheRoot } from "./opencode-host.ts";
 *
 * console.assert(openCodeCacheRoot({ XDG_CACHE_HOME: "/tmp/c" }) === "/tmp/c/opencode");
 * ```
 */
export function openCodeCacheRoot(env?: OpenCodeHostEnvironment): string {
  const values = environment(env);
  const xdg = values.XDG_CACHE_HOME?.trim();
  return join(xdg ? xdg : join(home(values), ".cache"), "opencode");
}

/**
 * Path of OpenCode's credentials file.
 *
 * @param env Environment values; default `process.env`.
 * @returns `$XDG_DATA_HOME/opencode/auth.json`, else `~/.local/share/opencode/auth.json`.
 */
export function openCodeAuthPath(env?: OpenCodeHostEnvironment): string {
  const values = environment(env);
  const xdg = values.XDG_DATA_HOME?.trim();
  return join(xdg ? xdg : join(home(values), ".local", "share"), "opencode", "auth.json");
}

/**
 * The stored credentials of one provider, as OpenCode saved them (unvalidated).
 *
 * @param providerId The provider id (`cursor`).
 * @param env Environment values; default `process.env`.
 * @returns The entry, or `undefined` when there is none or the file cannot be read.
 */
export async function readOpenCodeAuth(
  providerId: string,
  env?: OpenCodeHostEnvironment,
): Promise<unknown> {
  const values = environment(env);
  let text = values.OPENCODE_AUTH_CONTENT;
  if (text === undefined || text.trim() === "") {
    try {
      text = await readFile(openCodeAuthPath(values), "utf8");
    } catch {
      return undefined;
    }
  }
  try {
    const all: unknown = JSON.parse(text);
    if (typeof all !== "object" || all === null || Array.isArray(all)) return undefined;
    return (all as Record<string, unknown>)[providerId];
  } catch {
    return undefined;
  }
}
