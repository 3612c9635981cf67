/**
 * Reading OpenCode's config files for the doctor: JSON with comments, the plugin
 * entries and the `cursor` provider entry, and the settings they imply (API origin,
 * loopback allowance). Also the check of those entries: `file://` paths that exist,
 * the package version, OpenCode's own version.
 *
 * @module
 */
import { type CheckResult, type DoctorProbes, result } from "./doctor-types.ts";
import { NPM_NAMES } from "../core/package-name.ts";

/** The package name OpenCode configs refer to (OpenCode installs plugins from npm). */
export const PACKAGE_NAME: string = NPM_NAMES.name;
/** The OpenCode version the end-to-end suite runs. */
const TESTED_OPENCODE_VERSION = "1.18.33";

/** One config file as read. */
export interface OpenCodeConfigFile {
  readonly path: string;
  /** The parsed object, or `undefined` when it did not parse. */
  readonly config: Record<string, unknown> | undefined;
  /** The parse error, when it did not. */
  readonly error?: string;
}

/**
 * Removes `//` and `/* *\/` comments and trailing commas outside strings.
 *
 * @param text JSON with comments.
 * @returns Plain JSON text.
 *
 * @example
 * ```ts
 * import { stripJsonComments } from "./opencode-config.ts";
 *
 * const text = stripJsonComments('{ "a": "x//y", // note\n "b": [1,], }');
 * console.assert(JSON.parse(text).a === "x//y");
 * ```
 */
export function stripJsonComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const end = closingQuote(text, i);
      out += text.slice(i, end + 1);
      i = end;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += char;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

function closingQuote(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

/**
 * Reads the config files that exist.
 *
 * @param probes File access and the paths to look at.
 * @returns The files found, parsed or with their error.
 */
export async function readOpenCodeConfigs(probes: DoctorProbes): Promise<OpenCodeConfigFile[]> {
  const files: OpenCodeConfigFile[] = [];
  for (const path of probes.paths.openCodeConfigs) {
    const text = await probes.readFile(path);
    if (text === undefined) continue;
    try {
      const parsed: unknown = JSON.parse(stripJsonComments(text));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        files.push({ path, config: undefined, error: "the top level is not an object" });
      } else files.push({ path, config: parsed as Record<string, unknown> });
    } catch (error) {
      files.push({ path, config: undefined, error: (error as Error).message });
    }
  }
  return files;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** The `cursor` provider entry of a config. */
export function cursorProviderEntry(
  config: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  return record(record(config?.provider)?.cursor);
}

/** The plugin entries of a config (strings, or the first item of `[name, options]`). */
export function pluginEntries(config: Record<string, unknown> | undefined): string[] {
  const list = Array.isArray(config?.plugin) ? config.plugin : [];
  return list.map((entry) => Array.isArray(entry) ? entry[0] : entry)
    .filter((entry): entry is string => typeof entry === "string");
}

/** What the configs and environment say about where the provider talks to. */
export interface ProviderTarget {
  readonly apiBaseURL: string;
  /** Where `apiBaseURL` came from, for messages. */
  readonly apiBaseURLSource: string;
  readonly allowLoopback: boolean;
  /** The config file holding the provider entry, if any. */
  readonly providerConfig: string | undefined;
}

/**
 * The API origin and loopback allowance the provider would use.
 *
 * @param env The environment.
 * @param files The config files, in precedence order (later wins).
 * @returns The target.
 *
 * @example
 * ```ts
 * import { providerTarget } from "./opencode-config.ts";
 *
 * const config = { provider: { cursor: { options: { apiBaseURL: "http://127.0.0.1:9", allowLoopback: true } } } };
 * const target = providerTarget({}, [{ path: "/p/opencode.json", config }]);
 * console.assert(target.apiBaseURL === "http://127.0.0.1:9" && target.allowLoopback);
 * ```
 */
export function providerTarget(
  env: Readonly<Record<string, string | undefined>>,
  files: readonly OpenCodeConfigFile[],
): ProviderTarget {
  let apiBaseURL: string | undefined;
  let source = "the default";
  let allowLoopback = ["1", "true"].includes(env.CURSOR_ALLOW_LOOPBACK?.trim() ?? "");
  let providerConfig: string | undefined;
  for (const file of files) {
    const entry = cursorProviderEntry(file.config);
    if (entry === undefined) continue;
    providerConfig = file.path;
    const options = record(entry.options);
    if (typeof options?.apiBaseURL === "string") {
      apiBaseURL = options.apiBaseURL;
      source = `provider.cursor.options.apiBaseURL in ${file.path}`;
    }
    if (typeof options?.allowLoopback === "boolean") allowLoopback = options.allowLoopback;
  }
  if (apiBaseURL === undefined && env.CURSOR_API_BASE_URL?.trim()) {
    apiBaseURL = env.CURSOR_API_BASE_URL.trim();
    source = "CURSOR_API_BASE_URL";
  }
  return {
    apiBaseURL: (apiBaseURL ?? "https://api2.cursor.sh").replace(/\/+$/, ""),
    apiBaseURLSource: source,
    allowLoopback,
    providerConfig,
  };
}

function filePath(url: string): string | undefined {
  if (!url.startsWith("file://")) return undefined;
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
}

async function entryCheck(
  probes: DoctorProbes,
  file: string,
  what: string,
  entry: string,
): Promise<CheckResult> {
  const id = what === "plugin" ? "opencode.plugin" : "opencode.provider";
  const title = what === "plugin" ? "OpenCode plugin entry" : "OpenCode provider entry";
  const path = filePath(entry);
  if (path === undefined) {
    const version = /@(\d[^/]*)$/.exec(entry)?.[1];
    return result(
      id,
      title,
      "ok",
      `${entry} in ${file} (${version ? `version ${version}` : "latest from npm"})`,
    );
  }
  if (!await probes.exists(path)) {
    return result(
      id,
      title,
      "fail",
      `${what} ${entry} in ${file} points to a file that does not exist`,
      `npm run build in the checkout (it writes npm/), or correct the file:// path in ${file}`,
    );
  }
  const manifest = await probes.readFile(path.replace(/\/npm\/.*$/, "/npm/package.json"));
  const version = manifest === undefined
    ? undefined
    : /"version"\s*:\s*"([^"]+)"/.exec(manifest)?.[1];
  return result(id, title, "ok", `${entry} exists${version ? ` (version ${version})` : ""}`);
}

/**
 * Checks OpenCode's config files and OpenCode's version.
 *
 * @param probes File access, process runs.
 * @param files The config files read.
 * @returns One result per finding.
 */
export async function checkOpenCodeConfig(
  probes: DoctorProbes,
  files: readonly OpenCodeConfigFile[],
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  let mentioned = false;
  for (const file of files) {
    if (file.config === undefined) {
      results.push(
        result(
          "opencode.config",
          "OpenCode config",
          "fail",
          `${file.path} does not parse: ${file.error ?? "unknown error"}`,
          `fix the JSON in ${file.path} (opencode.json takes JSON with comments)`,
        ),
      );
      continue;
    }
    for (const plugin of pluginEntries(file.config)) {
      if (!plugin.includes(PACKAGE_NAME) && !plugin.startsWith("file://")) continue;
      mentioned ||= plugin.includes(PACKAGE_NAME) || plugin.includes("/npm/plugin/");
      results.push(await entryCheck(probes, file.path, "plugin", plugin));
    }
    const npm = cursorProviderEntry(file.config)?.npm;
    if (typeof npm === "string") {
      mentioned = true;
      results.push(await entryCheck(probes, file.path, "provider", npm));
    }
  }
  if (!mentioned) {
    results.push(
      result(
        "opencode.plugin",
        "OpenCode plugin entry",
        "warn",
        `No OpenCode config mentions ${PACKAGE_NAME} (looked at ${
          probes.paths.openCodeConfigs.join(", ")
        })`,
        `add "plugin": ["${PACKAGE_NAME}"] to ${
          probes.paths.openCodeConfigs[0] ?? "opencode.json"
        } (README, section OpenCode)`,
      ),
    );
  }
  results.push(await openCodeVersion(probes));
  return results;
}

async function openCodeVersion(probes: DoctorProbes): Promise<CheckResult> {
  const outcome = await probes.run("opencode", ["--version"], 10_000);
  if (outcome === undefined || outcome.code !== 0) {
    return result("opencode.version", "OpenCode version", "skip", "opencode is not on PATH");
  }
  const version = outcome.stdout.trim().split("\n").pop() ?? "";
  const tested = version === TESTED_OPENCODE_VERSION;
  return result(
    "opencode.version",
    "OpenCode version",
    tested ? "ok" : "warn",
    `OpenCode ${version}${tested ? "" : ` (the end-to-end suite runs ${TESTED_OPENCODE_VERSION})`}`,
    tested ? undefined : `npm i -g opencode-ai@${TESTED_OPENCODE_VERSION} if something misbehaves`,
  );
}
