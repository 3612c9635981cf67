/**
 * Where the debug log goes, decided from environment values passed in (the core
 * never reads the environment itself).
 *
 * @module
 */

/** Environment values the debug log reads. */
export interface DebugLogEnvironment {
  /** `CURSOR_PROVIDER_DEBUG`: `1` or `true` (any case) turns the log on. */
  readonly CURSOR_PROVIDER_DEBUG?: string | undefined;
  /** `CURSOR_PROVIDER_DEBUG_FILE`: an explicit log path. */
  readonly CURSOR_PROVIDER_DEBUG_FILE?: string | undefined;
  /**
   * `CURSOR_PROVIDER_RECOVERY_DEBUG`: `1` or `true` records only the recovery lines
   * (interrupted Runs, resumes, rebuilds, drains, continuations): metadata without prompts
   * or tool payloads. `CURSOR_PROVIDER_DEBUG` records everything and wins.
   */
  readonly CURSOR_PROVIDER_RECOVERY_DEBUG?: string | undefined;
}

/** The resolved debug log settings. */
export interface DebugLogSettings {
  readonly enabled: boolean;
  /** Only the recovery lines are recorded (`CURSOR_PROVIDER_RECOVERY_DEBUG`). */
  readonly recoveryOnly?: boolean;
  /** The file path, when enabled. */
  readonly path: string | undefined;
}

/** Largest size of the debug log before it is truncated: 10 MiB. */
export const DEBUG_LOG_SIZE_CAP_BYTES = 10 * 1024 * 1024;

/**
 * Resolves the debug log settings.
 *
 * @param env The relevant environment values.
 * @param process Facts about the process: its id, the user id and the temp folder.
 * @returns Whether logging is on, and to which file.
 *
 * @example
 * ```ts
 * import { resolveDebugLogSettings } from "./debug-settings.ts";
 *
 * const settings = resolveDebugLogSettings({ CURSOR_PROVIDER_DEBUG: "1" }, { pid: 42, uid: 1000, tmpDir: "/tmp" });
 * console.assert(settings.path === "/tmp/cursor-provider-logs-1000/debug-42.log");
 * ```
 */
export function resolveDebugLogSettings(
  env: DebugLogEnvironment,
  process: { readonly pid: number; readonly uid: number | undefined; readonly tmpDir: string },
): DebugLogSettings {
  const full = isOn(env.CURSOR_PROVIDER_DEBUG);
  if (!full && !isOn(env.CURSOR_PROVIDER_RECOVERY_DEBUG)) {
    return { enabled: false, path: undefined };
  }
  const scope = full ? {} : { recoveryOnly: true };
  const explicit = env.CURSOR_PROVIDER_DEBUG_FILE?.trim();
  if (explicit) return { enabled: true, path: explicit, ...scope };
  const tmp = process.tmpDir.replace(/\/+$/, "") || "/tmp";
  const owner = process.uid ?? "user";
  return {
    enabled: true,
    path: `${tmp}/cursor-provider-logs-${owner}/debug-${process.pid}.log`,
    ...scope,
  };
}

function isOn(value: string | undefined): boolean {
  const flag = value?.trim().toLowerCase();
  return flag === "1" || flag === "true";
}
