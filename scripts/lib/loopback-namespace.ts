/**
 * A loopback-only network namespace for programs that must not reach the network (Cursor's
 * own client, `@cursor/sdk`): a script re-executes itself under `unshare -n` with only `lo`
 * up, and runs its inner part there. Also the child-process runner those scripts share: a
 * timeout that kills the child's whole process group.
 *
 * @example
 * ```ts ignore
 * if (Deno.args.includes("--inside-namespace")) await inner();
 * else {
 *   const outcome = await runInLoopbackNamespace("scripts/x.ts", "--inside-namespace", 60_000);
 *   if ("skip" in outcome) console.log(`skipped: ${outcome.skip}`);
 * }
 * ```
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

/** What {@link runProcess} saw: exit code (`null` when killed), output, whether it timed out. */
export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  /** The child's whole environment (default: this process's). */
  readonly env?: Record<string, string>;
  /** Killed (with its process group) after this long. */
  readonly timeoutMs: number;
  /** Output goes to this process's stdout and stderr instead of being collected. */
  readonly inherit?: boolean;
  readonly cwd?: string;
}

/**
 * Runs a command with a timeout; resolves with its exit code and output. The child starts
 * detached, so the timeout kills its own children too.
 */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessResult> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      env: options.env ?? Deno.env.toObject(),
      cwd: options.cwd,
      stdio: options.inherit ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout?.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid === undefined) child.kill("SIGKILL");
        else process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr: stderr + String(error), timedOut });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, timedOut });
    });
  });
}

/**
 * Runs `deno run -A <script> <flag>` inside a new loopback-only network namespace, its output
 * inherited. Needs `unshare -n` (root, or user namespaces).
 *
 * @returns `{ skip }` with the reason when no such namespace can be made, else how the inner
 *   run ended.
 */
export async function runInLoopbackNamespace(
  script: string,
  flag: string,
  timeoutMs: number,
): Promise<{ readonly skip: string } | ProcessResult> {
  const probe = await runProcess("unshare", ["-n", "sh", "-c", "ip link set lo up && true"], {
    timeoutMs: 10_000,
  });
  if (probe.code !== 0) {
    return {
      skip: `no loopback-only network namespace (unshare -n failed: ${probe.stderr.trim()})`,
    };
  }
  // Not Deno.execPath() itself: Deno's node:child_process rewrites a child's arguments when
  // they name its own binary (as if it were Node), which breaks the command below.
  const deno = existsSync("node_modules/.bin/deno") ? resolve("node_modules/.bin/deno") : "deno";
  return await runProcess(
    "unshare",
    [
      "-n",
      "sh",
      "-c",
      'ip link set lo up && exec "$0" run -A "$1" "$2"',
      deno,
      resolve(script),
      flag,
    ],
    { timeoutMs, inherit: true },
  );
}
