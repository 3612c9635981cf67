/**
 * Opening a URL in the person's browser, when this machine has one to show: the command
 * named by `BROWSER` when set (`BROWSER=none` turns opening off), else `open` on macOS,
 * `start` on Windows, `xdg-open` on Linux with a display. Never throws: the caller
 * always prints the URL as well.
 *
 * @module
 */
import { spawn } from "node:child_process";
import process from "node:process";

/** Options for {@link openBrowser}. */
export interface OpenBrowserOptions {
  /** Environment values; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The platform; default `process.platform`. */
  readonly platform?: string | undefined;
  /** Starts the opener; default `child_process.spawn` (detached, output ignored). */
  readonly launch?: ((command: string, args: readonly string[]) => void) | undefined;
}

/**
 * The command that opens `url` here, or `undefined` when there is no browser to open.
 *
 * @param url The URL.
 * @param options Environment and platform.
 * @returns `[command, args]`, or `undefined`.
 *
 * @example
 * ```ts
 * import { browserCommand } from "./open-browser.ts";
 *
 * console.assert(browserCommand("https://cursor.com", { platform: "darwin", env: {} })?.[0] === "open");
 * console.assert(browserCommand("https://cursor.com", { platform: "linux", env: {} }) === undefined);
 * ```
 */
export function browserCommand(
  url: string,
  options: Pick<OpenBrowserOptions, "env" | "platform"> = {},
): [string, string[]] | undefined {
  const env = options.env ?? process.env;
  const browser = env.BROWSER?.trim();
  if (browser !== undefined && browser !== "") {
    return browser.toLowerCase() === "none" ? undefined : [browser, [url]];
  }
  switch (options.platform ?? process.platform) {
    case "darwin":
      return ["open", [url]];
    case "win32":
      return ["cmd", ["/c", "start", '""', url.replace(/&/g, "^&")]];
    default:
      if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
      return ["xdg-open", [url]];
  }
}

/**
 * Opens `url` in a browser when possible.
 *
 * @param url The URL.
 * @param options Environment, platform and launcher.
 * @returns Whether an opener was started (not whether the page loaded).
 */
export function openBrowser(url: string, options: OpenBrowserOptions = {}): boolean {
  const command = browserCommand(url, options);
  if (command === undefined) return false;
  const launch = options.launch ?? defaultLaunch;
  try {
    launch(command[0], command[1]);
    return true;
  } catch {
    return false;
  }
}

function defaultLaunch(command: string, args: readonly string[]): void {
  const child = spawn(command, [...args], { detached: true, stdio: "ignore" });
  child.on("error", () => {});
  child.unref();
}
