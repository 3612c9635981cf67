/**
 * The emulator in a separate process (`scripts/emulator.ts` under Deno), for tests and
 * benchmarks whose subject is timing between two processes that an in-process emulator
 * hides (shared event loop, no real socket latency). Runtime-neutral (`node:` APIs), so
 * tests on Node and Bun use it too.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** A running emulator process and its addresses. */
export interface EmulatorProcess {
  /** The emulator's HTTP/1.1 base URL. */
  readonly url: string;
  /** The emulator's HTTP/2 base URL. */
  readonly http2Url: string;
  /** The process id (for CPU accounting in benchmarks). */
  readonly pid: number | undefined;
  /**
   * The emulated network's traffic so far (connections, bytes each way); only when started
   * with `--latency`.
   */
  network(): Promise<{ connections: number; bytesUp: number; bytesDown: number }>;
  /** Stops the process (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

/** The Deno binary: the project's own install first, then `PATH`. */
function denoBinary(): string {
  const local = "node_modules/.bin/deno";
  return existsSync(local) ? local : "deno";
}

/**
 * Starts `scripts/emulator.ts` in a child process, reading its URLs from stdout. The child
 * is killed after `lifetimeMs` whatever happens, and when it does not start within
 * `startMs`.
 */
export async function startEmulatorProcess(
  options: {
    readonly startMs?: number;
    readonly lifetimeMs?: number;
    /** Extra `scripts/emulator.ts` options, e.g. `["--no-auth"]`. */
    readonly args?: readonly string[];
  } = {},
): Promise<EmulatorProcess> {
  const child = spawn(denoBinary(), ["run", "-A", "scripts/emulator.ts", ...(options.args ?? [])], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const networkWaiters: ((line: string) => void)[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (line.startsWith("emulator: network ")) networkWaiters.shift()?.(line);
    }
  });
  const network = () =>
    new Promise<{ connections: number; bytesUp: number; bytesDown: number }>(
      (resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("No network line within 5 s")), 5_000);
        networkWaiters.push((line) => {
          clearTimeout(timer);
          const read = (name: string) => Number(line.match(new RegExp(`${name}=(\\d+)`))?.[1]);
          resolve({
            connections: read("connections"),
            bytesUp: read("bytes_up"),
            bytesDown: read("bytes_down"),
          });
        });
        child.stdin?.write("network\n");
      },
    );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lifetime = setTimeout(() => child.kill("SIGKILL"), options.lifetimeMs ?? 120_000);
  const stop = async () => {
    clearTimeout(lifetime);
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      child.kill("SIGTERM");
      const hard = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(hard);
    }
  };
  try {
    const lines = await readyLines(child, options.startMs ?? 30_000);
    const field = (name: string) => {
      const value = lines.get(name);
      if (!value) throw new Error(`The emulator process printed no ${name}`);
      return value;
    };
    return { url: field("url"), http2Url: field("http2_url"), pid: child.pid, network, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Collects the `emulator: key=value` lines printed up to `emulator: ready`. */
function readyLines(child: ChildProcess, timeoutMs: number): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>();
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(
      () => reject(new Error(`The emulator process did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    let ready = false;
    // Keep draining both pipes after start-up (the emulator logs), keeping only a tail.
    child.stderr?.on(
      "data",
      (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)),
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      if (ready) return;
      stdout += chunk.toString();
      const lines = stdout.split("\n");
      stdout = lines.pop() ?? "";
      for (const line of lines) {
        const match = line.match(/^emulator: (\w+)=(\S+)$/);
        if (match?.[1] && match[2]) fields.set(match[1], match[2]);
        if (line.startsWith("emulator: ready")) {
          ready = true;
          clearTimeout(timer);
          resolve(fields);
        }
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`The emulator process exited (${code}) before it was ready: ${stderr}`));
    });
  });
}
