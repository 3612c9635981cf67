/**
 * The checks `createCursor()` makes before anything is built, so a setting that cannot
 * work fails at once with a message naming it, not seconds later as a retryable network
 * error: Cursor URLs need a scheme (`https://`), timeouts are positive finite numbers of
 * milliseconds.
 *
 * @module
 */
import { CursorError } from "../../core/cursor-error.ts";
import type { CursorProviderSettings } from "./cursor-settings.ts";

const TIMEOUT_KEYS = ["unaryMs", "readIdleMs", "appendMs"] as const;

/**
 * Checks the settings that would otherwise fail late.
 *
 * @param settings The settings given to `createCursor()`.
 * @throws {CursorError} `config` naming the setting and its value.
 *
 * @example
 * ```ts
 * import { checkProviderSettings } from "./settings-check.ts";
 *
 * let message = "";
 * try {
 *   checkProviderSettings({ apiBaseURL: "api2.cursor.sh" });
 * } catch (error) {
 *   message = String(error);
 * }
 * console.assert(message.includes('"https://api2.cursor.sh"'));
 * ```
 */
export function checkProviderSettings(settings: CursorProviderSettings): void {
  const env = settings.env ?? {};
  checkScheme("apiBaseURL", settings.apiBaseURL);
  checkScheme("agentBaseURL", settings.agentBaseURL);
  if (settings.apiBaseURL === undefined) {
    checkScheme("CURSOR_API_BASE_URL", env.CURSOR_API_BASE_URL);
  }
  if (settings.agentBaseURL === undefined) {
    checkScheme("CURSOR_AGENT_BASE_URL", env.CURSOR_AGENT_BASE_URL);
  }
  checkTimeouts(settings.timeouts);
}

function checkScheme(name: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== "string") {
    throw new CursorError("config", `Invalid ${name}: expected a URL string, got ${typeof value}`);
  }
  const trimmed = value.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return;
  throw new CursorError(
    "config",
    `Invalid ${name} ${JSON.stringify(value)}: give the scheme, e.g. ${
      JSON.stringify(`https://${trimmed.replace(/^\/+/, "")}`)
    }`,
  );
}

function checkTimeouts(timeouts: unknown): void {
  if (timeouts === undefined) return;
  if (typeof timeouts !== "object" || timeouts === null || Array.isArray(timeouts)) {
    throw new CursorError("config", "Invalid timeouts: expected an object of milliseconds");
  }
  for (const [key, value] of Object.entries(timeouts)) {
    if (!(TIMEOUT_KEYS as readonly string[]).includes(key)) {
      throw new CursorError(
        "config",
        `Unknown timeout ${JSON.stringify(key)}: use ${TIMEOUT_KEYS.join(", ")}`,
      );
    }
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new CursorError(
        "config",
        `Invalid timeouts.${key} ${
          typeof value === "number" ? String(value) : JSON.stringify(value)
        }: must be a positive finite number of milliseconds`,
      );
    }
  }
}
