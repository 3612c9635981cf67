/**
 * An isolated place to run the real OpenCode: a temporary HOME and XDG tree, a project
 * folder that is a git repository, OpenCode's config folder pre-seeded so it does not
 * run npm at start-up, and an environment built from scratch (nothing of the
 * developer's own environment leaks in except PATH).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** A sandbox. */
export interface Sandbox {
  readonly root: string;
  readonly home: string;
  readonly project: string;
  readonly configDir: string;
  readonly dataDir: string;
  readonly cacheDir: string;
  /** The provider debug log file. */
  readonly debugLog: string;
  /** The environment for OpenCode processes. */
  readonly env: Record<string, string>;
  /** Writes the project's opencode.json. */
  writeProjectConfig(config: unknown): Promise<void>;
  /** Writes the global ~/.config/opencode/opencode.json. */
  writeGlobalConfig(config: unknown): Promise<void>;
  /** Writes auth.json. */
  writeAuth(entries: Record<string, unknown>): Promise<void>;
  /** Reads auth.json. */
  readAuth(): Promise<Record<string, unknown>>;
  /** Path of the model cache file. */
  readonly modelCache: string;
  /** The debug log's text (empty when absent). */
  readDebugLog(): Promise<string>;
  /** Removes everything. */
  remove(): Promise<void>;
}

/**
 * Creates a sandbox.
 *
 * @param extraEnv Variables added to the OpenCode environment.
 * @returns The sandbox; call `remove()` in `finally`.
 */
export async function createSandbox(extraEnv: Record<string, string> = {}): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), "cursor-opencode-e2e-"));
  const home = join(root, "home");
  const configHome = join(root, "config");
  const dataHome = join(root, "data");
  const cacheHome = join(root, "cache");
  const stateHome = join(root, "state");
  const project = join(root, "project");
  const configDir = join(configHome, "opencode");
  const dataDir = join(dataHome, "opencode");
  const cacheDir = join(cacheHome, "opencode");
  for (
    const dir of [home, project, join(configDir, "node_modules"), dataDir, cacheDir, stateHome]
  ) {
    await mkdir(dir, { recursive: true });
  }
  // OpenCode installs its plugin types at start-up unless it finds them listed as installed.
  const manifest = { dependencies: { "@opencode-ai/plugin": "1.18.33" } };
  await writeFile(join(configDir, "package.json"), JSON.stringify(manifest));
  await writeFile(
    join(configDir, "package-lock.json"),
    JSON.stringify({
      name: "opencode",
      lockfileVersion: 3,
      requires: true,
      packages: { "": manifest },
    }),
  );
  await writeFile(join(project, "README.md"), "# e2e project\n");
  const git = spawnSync("git", ["init", "-q"], { cwd: project, timeout: 10_000 });
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr?.toString() ?? ""}`);
  const debugLog = join(root, "cursor-debug.log");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: configHome,
    XDG_DATA_HOME: dataHome,
    XDG_CACHE_HOME: cacheHome,
    XDG_STATE_HOME: stateHome,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    CURSOR_PROVIDER_DEBUG: "1",
    CURSOR_PROVIDER_DEBUG_FILE: debugLog,
    // The emulator answers on plain-http loopback; Cursor origins are https-only otherwise.
    CURSOR_ALLOW_LOOPBACK: "1",
    BROWSER: "none",
    ...extraEnv,
  };
  const authFile = join(dataDir, "auth.json");
  return {
    root,
    home,
    project,
    configDir,
    dataDir,
    cacheDir,
    debugLog,
    env,
    modelCache: join(cacheDir, "cursor-models.json"),
    writeProjectConfig: (config) =>
      writeFile(join(project, "opencode.json"), JSON.stringify(config, null, 2)),
    writeGlobalConfig: (config) =>
      writeFile(join(configDir, "opencode.json"), JSON.stringify(config, null, 2)),
    writeAuth: (entries) => writeFile(authFile, JSON.stringify(entries, null, 2), { mode: 0o600 }),
    async readAuth() {
      return JSON.parse(await readFile(authFile, "utf8")) as Record<string, unknown>;
    },
    readDebugLog: () => readFile(debugLog, "utf8").catch(() => ""),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
