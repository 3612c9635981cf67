/**
 * A real `redis-server` for tests: its own process on a free loopback port, its data in a
 * temporary folder, stopped (and the folder removed) by `close`. Fails with the
 * install command when the binary is missing.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";

/** How long the server may take to accept connections. */
const START_TIMEOUT_MS = 20_000;

/** A running server. */
export interface RedisServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts `redis-server`; resolves once it accepts connections. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), "cursor-redis-"));
  const child = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    directory,
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += String(chunk)));
  child.stderr.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  const failed = new Promise<never>((_, reject) =>
    child.on("error", (error) =>
      reject(
        new Error(
          `redis-server could not start (${error.message}); install it: apt-get install -y redis-server`,
        ),
      ))
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      failed,
      waitUntilReady(url),
      exited.then((code) => {
        throw new Error(`redis-server exited (${code}): ${output.slice(-500)}`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, close: stop };
}

async function waitUntilReady(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const client = createClient({ url, socket: { reconnectStrategy: false } });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.ping();
      await client.close();
      return;
    } catch (error) {
      await client.close().catch(() => {});
      if (Date.now() > deadline) throw new Error(`redis-server did not start: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}
