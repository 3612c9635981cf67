/**
 * The doctor's probes on Node, Bun and Deno (through `node:`): files, DNS, a verified
 * TLS handshake, processes under a deadline, `fetch`, and the paths OpenCode and the
 * provider use on this machine.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { lookup } from "node:dns/promises";
import { access, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { connect } from "node:tls";
import { resolveDebugLogSettings } from "../../../core/debug-settings.ts";
import type {
  DoctorPaths,
  DoctorProbes,
  ProcessOutcome,
  TlsOutcome,
} from "../../../doctor/doctor-types.ts";
import { findCursorAgent } from "../process/find-cursor-agent.ts";
import { machineId } from "../machine.ts";
import { MODEL_CACHE_FILE_NAME } from "../files/model-cache-file.ts";
import { openCodeAuthPath, openCodeCacheRoot } from "../opencode-host.ts";

/** Options of {@link createNodeDoctorProbes}. */
export interface NodeDoctorProbeOptions {
  /** The environment; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The project folder whose opencode.json is read; default the current directory. */
  readonly cwd?: string;
  /** Injected fetch; default the global one. */
  readonly fetch?: typeof fetch;
}

/**
 * The paths OpenCode and the provider use with this environment.
 *
 * @param env The environment.
 * @param cwd The project folder.
 * @returns The paths.
 *
 * @example
 * ```ts
 * import { doctorPaths } from "./doctor-probes.ts";
 *
 * const paths = doctorPaths({ HOME: "/h", XDG_CONFIG_HOME: "/c" }, "/p");
 * console.assert(paths.openCodeConfigs.includes("/c/opencode/opencode.json"));
 * console.assert(paths.openCodeConfigs.includes("/p/opencode.json"));
 * ```
 */
export function doctorPaths(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): DoctorPaths {
  const home = env.HOME?.trim() || process.env.HOME || "";
  const configHome = env.XDG_CONFIG_HOME?.trim() || join(home, ".config");
  const global = join(configHome, "opencode");
  const explicit = env.OPENCODE_CONFIG?.trim();
  const debug = resolveDebugLogSettings(env, {
    pid: process.pid,
    uid: process.getuid?.(),
    tmpDir: tmpdir(),
  });
  return {
    authFile: openCodeAuthPath(env),
    modelCache: join(openCodeCacheRoot(env), MODEL_CACHE_FILE_NAME),
    openCodeConfigs: [
      join(global, "opencode.json"),
      join(global, "opencode.jsonc"),
      join(global, "config.json"),
      ...(explicit ? [explicit] : []),
      join(cwd, "opencode.json"),
      join(cwd, "opencode.jsonc"),
    ],
    debugLog: debug.path?.replace(/debug-\d+\.log$/, "debug-<pid>.log"),
  };
}

function tlsHandshake(hostname: string, port: number): Promise<TlsOutcome> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: hostname,
      port,
      servername: hostname,
      ALPNProtocols: ["h2", "http/1.1"],
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error("timed out after 10 s")));
    socket.once("secureConnect", () => {
      const outcome = {
        protocol: socket.getProtocol() ?? "TLS",
        alpn: String(socket.alpnProtocol || ""),
      };
      socket.end();
      resolve(outcome);
    });
    socket.once("error", reject);
  });
}

function run(
  env: Readonly<Record<string, string | undefined>>,
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<ProcessOutcome | undefined> {
  return new Promise((resolve) => {
    execFile(command, [...args], {
      timeout: timeoutMs,
      env: env as NodeJS.ProcessEnv,
      maxBuffer: 1024 * 1024,
    }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === "string") return resolve(undefined);
      resolve({ code: error ? (typeof code === "number" ? code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * Creates the probes.
 *
 * @param options Environment, project folder, fetch.
 * @returns The probes for `runDoctor`.
 */
export function createNodeDoctorProbes(options: NodeDoctorProbeOptions = {}): DoctorProbes {
  const env = options.env ?? process.env;
  return {
    env,
    fetch: options.fetch ?? fetch,
    paths: doctorPaths(env, options.cwd ?? process.cwd()),
    readFile: (path) => readFile(path, "utf8").catch(() => undefined),
    exists: (path) => access(path).then(() => true, () => false),
    lookupHost: async (hostname) => (await lookup(hostname, { all: true })).map((a) => a.address),
    tlsHandshake,
    run: (command, args, timeoutMs) => run(env, command, args, timeoutMs),
    findCursorAgent: () => findCursorAgent({ env }),
    machineId,
    now: () => Date.now(),
  };
}
