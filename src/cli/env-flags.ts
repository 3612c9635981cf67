/**
 * Reads the CLI backend's switches from an injected environment record (the core
 * never reads the process environment itself).
 *
 * @module
 */

/** The environment variable that turns session resume on. */
export const SESSION_RESUME_ENV = "CURSOR_ACP_SESSION_RESUME";

const TRUE_VALUES: ReadonlySet<string> = new Set(["1", "true", "on", "yes"]);

/**
 * Whether session resume is on: `CURSOR_ACP_SESSION_RESUME` is `1`, `true`, `on` or
 * `yes` (any case, surrounding spaces ignored).
 *
 * @param env The environment record the provider was created with.
 * @returns True when resume is enabled.
 *
 * @example
 * ```ts
 * import { isSessionResumeEnabled } from "./env-flags.ts";
 *
 * console.assert(isSessionResumeEnabled({ CURSOR_ACP_SESSION_RESUME: " Yes " }));
 * console.assert(!isSessionResumeEnabled({ CURSOR_ACP_SESSION_RESUME: "0" }));
 * console.assert(!isSessionResumeEnabled({}));
 * ```
 */
export function isSessionResumeEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env[SESSION_RESUME_ENV];
  return value !== undefined && TRUE_VALUES.has(value.trim().toLowerCase());
}
