/**
 * The {@link ProcessRunner} for Node-compatible runtimes (Node, Deno, Bun) on top of
 * `node:child_process`.
 *
 * - Always an argv array with `shell: false`; the prompt goes to stdin, which is
 *   closed right after.
 * - POSIX: the child leads its own process group (`detached: true`), so `kill()`
 *   reaches everything it started (background shells included): SIGTERM to the
 *   group, then SIGKILL after a grace period. Children still running when the host
 *   process exits are killed too.
 * - Windows: a `.cmd`/`.bat` shim cannot be started without `cmd.exe` (Node refuses
 *   since the CVE-2024-27980 fix), so it runs as `cmd.exe /d /s /c "<line>"` with
 *   every argument quoted; arguments holding `"`, `%`, `!` or line breaks are refused
 *   because cmd.exe would expand them. `kill()` uses `taskkill /T /F` for the tree.
 *
 * @module
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import process from "node:process";
import type { Readable } from "node:stream";
import type {
  ProcessExit,
  ProcessHandle,
  ProcessRunner,
  ProcessSpawnOptions,
} from "../../../cli/process-runner.ts";

/** Options of {@link createNodeProcessRunner}. */
export interface NodeProcessRunnerOptions {
  /** Time between SIGTERM and SIGKILL. Default 2000 ms. */
  readonly killGraceMs?: number;
  /** Platform override (tests). Default `process.platform`. */
  readonly platform?: string;
}

/**
 * Creates a process runner backed by `node:child_process`.
 *
 * @param options Kill grace period and platform.
 * @returns The runner.
 *
 * @example
 * ```ts
 * import { createNodeProcessRunner } from "./process-runner.ts";
 *
 * const runner = createNodeProcessRunner({ killGraceMs: 500 });
 * const child = runner.spawn(["/bin/sh", "-c", "cat"], { env: {}, stdin: "hi" });
 * console.assert((await new Response(child.stdout).text()) === "hi");
 * console.assert((await child.exited).code === 0);
 * ```
 */
export function createNodeProcessRunner(options: NodeProcessRunnerOptions = {}): ProcessRunner {
  const killGraceMs = options.killGraceMs ?? 2000;
  const platform = options.platform ?? process.platform;
  const live = new Set<ChildProcess>();
  const killAllOnExit = () => {
    for (const child of live) signalTree(child, "SIGKILL", platform);
  };
  return {
    spawn(argv, spawnOptions) {
      const child = startChild(argv, spawnOptions, platform);
      if (live.size === 0) process.once("exit", killAllOnExit);
      live.add(child);
      return createHandle(child, spawnOptions, { killGraceMs, platform }, () => {
        live.delete(child);
        if (live.size === 0) process.removeListener("exit", killAllOnExit);
      });
    },
  };
}

function startChild(
  argv: readonly string[],
  options: ProcessSpawnOptions,
  platform: string,
): ChildProcess {
  const [program, ...args] = argv;
  if (program === undefined) throw new TypeError("Cannot spawn a process: argv is empty");
  const common = {
    env: { ...options.env },
    stdio: ["pipe", "pipe", "pipe"] as ["pipe", "pipe", "pipe"],
    shell: false,
    windowsHide: true,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  };
  if (platform === "win32" && /\.(cmd|bat)$/i.test(program)) {
    const shell = options.env["ComSpec"] ?? options.env["COMSPEC"] ?? "cmd.exe";
    return spawn(shell, ["/d", "/s", "/c", `"${windowsCommandLine([program, ...args])}"`], {
      ...common,
      windowsVerbatimArguments: true,
    });
  }
  return spawn(program, args, { ...common, detached: platform !== "win32" });
}

/**
 * Quotes argv for `cmd.exe /d /s /c "<line>"`: every argument in double quotes,
 * backslashes before a closing quote doubled (the rules the program's C runtime
 * parses by).
 *
 * @param argv Program and arguments.
 * @returns The command line.
 * @throws {TypeError} When an argument holds a character cmd.exe would expand.
 */
export function windowsCommandLine(argv: readonly string[]): string {
  return argv.map((arg) => {
    if (/["%!\r\n]/.test(arg) || arg.includes("\u0000")) {
      throw new TypeError(
        `Cannot pass argument "${arg}" through cmd.exe: it holds a quote, %, ! or a line break`,
      );
    }
    return `"${arg.replace(/(\\+)$/, "$1$1")}"`;
  }).join(" ");
}

function createHandle(
  child: ChildProcess,
  options: ProcessSpawnOptions,
  settings: { readonly killGraceMs: number; readonly platform: string },
  release: () => void,
): ProcessHandle {
  const exited = new Promise<ProcessExit>((resolve, reject) => {
    let started = false;
    child.once("spawn", () => {
      started = true;
    });
    child.once("error", (error) => {
      if (started) return;
      release();
      reject(error);
    });
    child.once("exit", (code, signal) => {
      release();
      resolve({ code, signal });
    });
  });
  exited.catch(() => {});
  child.stdin?.on("error", () => {}); // The child may exit before reading its stdin.
  child.stdin?.end(options.stdin);
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    signalTree(child, "SIGTERM", settings.platform);
    if (settings.platform === "win32") return; // taskkill /F is already forceful.
    const timer = setTimeout(
      () => signalTree(child, "SIGKILL", settings.platform),
      settings.killGraceMs,
    );
    // Once the leader is gone and its group is empty, there is nothing left to force.
    exited.then(() => {
      if (!groupAlive(child.pid)) clearTimeout(timer);
    }, () => clearTimeout(timer));
  };
  const onAbort = () => kill();
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  exited.finally(() => options.signal?.removeEventListener("abort", onAbort)).catch(() => {});
  return {
    pid: child.pid,
    stdout: toWebStream(child.stdout),
    stderr: toWebStream(child.stderr),
    exited,
    kill,
  };
}

function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals the child's whole process group (POSIX) or tree (Windows). */
function signalTree(child: ChildProcess, signal: "SIGTERM" | "SIGKILL", platform: string): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (platform === "win32") {
    execFile("taskkill", ["/pid", String(pid), "/T", "/F"], () => {});
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

function toWebStream(readable: Readable | null): ReadableStream<Uint8Array> {
  if (readable === null) return new ReadableStream({ start: (controller) => controller.close() });
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      readable.on("data", (chunk: Uint8Array | string) => {
        if (done) return;
        controller.enqueue(
          typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk),
        );
        if ((controller.desiredSize ?? 1) <= 0) readable.pause();
      });
      readable.once("end", () => {
        if (!done) controller.close();
        done = true;
      });
      readable.once("error", (error) => {
        if (!done) controller.error(error);
        done = true;
      });
    },
    pull() {
      readable.resume();
    },
    cancel() {
      done = true;
      readable.destroy();
    },
  });
}
