/**
 * Finds the `cursor-agent` binary: an explicit path wins; otherwise PATH is searched
 * for `cursor-agent`, then for `agent` (the newer name of the same program), then
 * the installer's locations are tried. On Windows PATHEXT applies and the installer's
 * `.cmd` shims under `%LOCALAPPDATA%\cursor-agent` are found too.
 *
 * @module
 */
import { accessSync, constants, statSync } from "node:fs";
import { homedir } from "node:os";
import { posix, win32 } from "node:path";
import process from "node:process";

/** Options of {@link findCursorAgent}. */
export interface FindCursorAgentOptions {
  /** A path the user set; returned as is (a wrong path then fails with a clear error when spawned). */
  readonly explicitPath?: string;
  /** The environment to read `PATH`, `PATHEXT`, `HOME`, `LOCALAPPDATA` from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Platform override (tests). Default `process.platform`. */
  readonly platform?: string;
  /** Home directory override. Default `HOME`/`USERPROFILE`, then `os.homedir()`. */
  readonly homeDir?: string;
  /** Executable check override (tests). */
  readonly isExecutable?: (path: string) => boolean;
}

const NAMES = ["cursor-agent", "agent"] as const;

/**
 * Finds the binary.
 *
 * @param options Explicit path, environment and overrides.
 * @returns The path to run, or `undefined` when nothing was found.
 *
 * @example
 * ```ts
 * import { findCursorAgent } from "./find-cursor-agent.ts";
 *
 * const found = findCursorAgent({
 *   env: { PATH: "/opt/tools:/usr/bin", HOME: "/home/me" },
 *   platform: "linux",
 *   isExecutable: (path) => path === "/usr/bin/agent",
 * });
 * console.assert(found === "/usr/bin/agent");
 * ```
 */
export function findCursorAgent(options: FindCursorAgentOptions): string | undefined {
  const explicit = options.explicitPath?.trim();
  if (explicit) return explicit;
  const platform = options.platform ?? process.platform;
  const isExecutable = options.isExecutable ??
    ((path: string) => defaultIsExecutable(path, platform));
  for (const candidate of candidates(options, platform)) {
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function candidates(options: FindCursorAgentOptions, platform: string): string[] {
  const windows = platform === "win32";
  const path = windows ? win32 : posix;
  const env = options.env;
  const pathValue = windows ? envCaseInsensitive(env, "PATH") : env["PATH"];
  const directories = (pathValue ?? "").split(windows ? ";" : ":").filter((dir) => dir !== "");
  const extensions = windows
    ? [
      "",
      ...(envCaseInsensitive(env, "PATHEXT") ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((ext) =>
        ext !== ""
      ),
    ]
    : [""];
  const found: string[] = [];
  for (const name of NAMES) {
    for (const directory of directories) {
      for (const extension of extensions) {
        found.push(path.join(directory, name + extension.toLowerCase()));
      }
    }
  }
  const home = options.homeDir ?? env["HOME"] ?? env["USERPROFILE"] ?? homedir();
  if (windows) {
    const localAppData = envCaseInsensitive(env, "LOCALAPPDATA") ??
      path.join(home, "AppData", "Local");
    for (const name of NAMES) found.push(path.join(localAppData, "cursor-agent", `${name}.cmd`));
    return found;
  }
  for (const name of NAMES) {
    found.push(path.join(home, ".local", "bin", name), path.join(home, ".cursor", "bin", name));
  }
  found.push(path.join(home, ".cursor-agent", "cursor-agent"), "/usr/local/bin/cursor-agent");
  return found;
}

function envCaseInsensitive(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | undefined {
  const key = Object.keys(env).find((candidate) => candidate.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

function defaultIsExecutable(path: string, platform: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform !== "win32") accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
