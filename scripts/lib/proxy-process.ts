/**
 * `scripts/connect-proxy.ts` in a child process, for tests of the proxied transports.
 * Runtime-neutral (`node:` APIs), so tests on Node and Bun use it too.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** A running proxy. */
export interface ProxyProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The `proxy: connect …` lines printed so far. */
  connects(): string[];
  stop(): Promise<void>;
}

/**
 * Starts the proxy; it is killed after `lifetimeMs` whatever happens.
 *
 * @param args `--refuse`, `--auth user:password`.
 * @param lifetimeMs Hard limit on the child's life.
 * @returns The proxy once it listens.
 */
export function startProxyProcess(
  args: readonly string[] = [],
  lifetimeMs = 120_000,
): Promise<ProxyProcess> {
  const deno = existsSync("node_modules/.bin/deno") ? "node_modules/.bin/deno" : "deno";
  const child = spawn(deno, ["run", "-A", "scripts/connect-proxy.ts", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lifetime = setTimeout(() => child.kill("SIGKILL"), lifetimeMs);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines: string[] = [];
  let pending = "";
  const stop = async () => {
    clearTimeout(lifetime);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error("The proxy did not start within 30 s"));
    }, 30_000);
    child.stderr?.on("data", () => {});
    child.stdout?.on("data", (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      lines.push(...parts);
      if (parts.some((line) => line === "proxy: ready")) {
        clearTimeout(timer);
        const port = lines.find((line) => line.startsWith("proxy: port="))?.slice(12);
        resolve({
          url: `http://127.0.0.1:${port}`,
          connects: () => lines.filter((line) => line.startsWith("proxy: connect ")),
          stop,
        });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`The proxy exited (${code}) before it was ready`));
    });
  });
}
