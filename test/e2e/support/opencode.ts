/**
 * Running the real OpenCode binary: one-shot commands (`opencode models`, `opencode auth
 * login`) and a headless server (`opencode serve`) driven through `@opencode-ai/sdk`.
 * Every process runs under a hard timeout in its own process group, and is killed (the
 * whole group, by its id) when it ends or the test is done.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk";
import type { Sandbox } from "./sandbox.ts";

/** The OpenCode binary: the platform package's executable, else the npm shim. */
export function openCodeBinary(): string {
  const root = process.cwd();
  const platformBinary = join(
    root,
    "node_modules",
    `opencode-${process.platform}-${process.arch}`,
    "bin",
    "opencode",
  );
  return existsSync(platformBinary)
    ? platformBinary
    : join(root, "node_modules", ".bin", "opencode");
}

/** What a finished command produced. */
export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `opencode <args>` in the sandbox's project.
 *
 * @param sandbox The sandbox.
 * @param args Arguments.
 * @param options Text for stdin (closed after), a timeout, extra environment.
 * @returns Exit code and output.
 */
export function runOpenCode(
  sandbox: Sandbox,
  args: readonly string[],
  options: { stdin?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  const child = spawn(openCodeBinary(), [...args], {
    cwd: sandbox.project,
    env: { ...sandbox.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
  child.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  child.stdin?.end(options.stdin ?? "");
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs ?? 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      killGroup(child);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A running `opencode serve`. */
export interface OpenCodeServer {
  readonly url: string;
  readonly client: OpencodeClient;
  /** Everything the server printed so far. */
  output(): string;
  /** Kills the server (its whole process group). */
  stop(): Promise<void>;
}

/**
 * Starts `opencode serve` on a free port and waits until it answers.
 *
 * @param sandbox The sandbox.
 * @param options Hard lifetime limit of the server (default 5 minutes), start timeout.
 * @returns The server and an SDK client bound to the sandbox's project.
 */
export async function startServer(
  sandbox: Sandbox,
  options: { lifetimeMs?: number; startTimeoutMs?: number } = {},
): Promise<OpenCodeServer> {
  const port = await freePort();
  const child = spawn(
    openCodeBinary(),
    ["serve", "--hostname=127.0.0.1", `--port=${port}`, "--print-logs", "--log-level=INFO"],
    { cwd: sandbox.project, env: sandbox.env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let output = "";
  const append = (chunk: Uint8Array) => (output += new TextDecoder().decode(chunk));
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const lifetime = setTimeout(() => killGroup(child), options.lifetimeMs ?? 5 * 60_000);
  const stop = async () => {
    clearTimeout(lifetime);
    killGroup(child);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`opencode serve exited early:\n${output}`);
      if (Date.now() > deadline) throw new Error(`opencode serve did not answer:\n${output}`);
      try {
        const response = await fetch(
          `${url}/config?directory=${encodeURIComponent(sandbox.project)}`,
          { signal: AbortSignal.timeout(5_000) },
        );
        await response.body?.cancel();
        if (response.ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const client = createOpencodeClient({ baseUrl: url, directory: sandbox.project });
  return { url, client, output: () => output, stop };
}

/**
 * Resolves with `promise`, or rejects after `ms` milliseconds saying what timed out.
 *
 * @param promise The work.
 * @param ms The limit.
 * @param what What is being waited for.
 * @returns The value.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
