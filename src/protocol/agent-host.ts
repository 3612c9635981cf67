/**
 * Validation of the agent origin: Cursor's agent service must be an https origin
 * under `cursor.sh`. Anything else fails closed, because a wrong host can answer
 * 200 and then close, which looks like success to a careless client.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";

const CURSOR_HOST = /^([a-z0-9-]+\.)+cursor\.sh$/i;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Options for {@link validateAgentOrigin}. */
export interface AgentOriginOptions {
  /**
   * Accept `http://` and `https://` loopback origins (localhost, 127.0.0.1, [::1]) so a
   * local emulator can stand in for Cursor. Off by default.
   */
  readonly allowLoopback?: boolean;
}

/**
 * Normalises and validates an agent URL: trims it, adds `https://` when no scheme is
 * given, and keeps only the origin.
 *
 * @param value The URL as configured or as returned by `GetServerConfig`.
 * @param options Whether loopback emulator origins are allowed.
 * @returns The origin, e.g. `https://agentn.us.api5.cursor.sh`.
 * @throws {CursorError} `config` for anything that is not an allowed origin.
 *
 * @example
 * ```ts
 * import { validateAgentOrigin } from "./agent-host.ts";
 *
 * console.assert(validateAgentOrigin("agentn.global.api5.cursor.sh/x") === "https://agentn.global.api5.cursor.sh");
 * console.assert(validateAgentOrigin("http://127.0.0.1:4000", { allowLoopback: true }) === "http://127.0.0.1:4000");
 * ```
 */
export function validateAgentOrigin(value: string, options: AgentOriginOptions = {}): string {
  const trimmed = value.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (cause) {
    throw new CursorError("config", `Invalid agent URL ${JSON.stringify(trimmed)}`, { cause });
  }
  if (url.username !== "" || url.password !== "") {
    throw new CursorError("config", "Invalid agent URL: credentials in the URL are not allowed");
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (
    loopback && options.allowLoopback && (url.protocol === "http:" || url.protocol === "https:")
  ) {
    return url.origin;
  }
  if (url.protocol !== "https:") {
    throw new CursorError(
      "config",
      `Invalid agent URL ${JSON.stringify(url.origin)}: https is required`,
    );
  }
  if (!CURSOR_HOST.test(url.hostname)) {
    const hint = loopback ? " (set allowLoopback to use a local emulator)" : "";
    throw new CursorError(
      "config",
      `Invalid agent URL ${JSON.stringify(url.origin)}: host must be under cursor.sh${hint}`,
    );
  }
  return url.origin;
}
