/**
 * The processes of `scale-out.bench.ts`, each under a hard lifetime and killed by `stop`:
 * a real `redis-server`, the emulator host, provider instances and the proxy. Ports come
 * from the OS (an instance restarted after a kill listens on its old port again, where the
 * proxy expects it).
 *
 * @module
 */

/** A child process whose stdout lines can be awaited. */
export interface Child {
  /** Resolves with the first line (past or future) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends one line to its stdin. */
  send(line: string): Promise<void>;
  /** Kills it (`SIGKILL` by default) and waits for it to exit. */
  stop(signal?: Deno.Signal): Promise<void>;
  /** The tail of its stderr, for error messages. */
  stderr(): string;
}

/** Starts a command with piped stdio; it is killed after `lifetimeMs` whatever happens. */
export function startChild(
  command: string,
  args: string[],
  env: Record<string, string>,
  lifetimeMs: number,
  onLine: (line: string) => void = () => {},
): Child {
  const process = new Deno.Command(command, {
    args,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let errors = "";
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let exited = false;
  const status = process.status.then((value) => {
    exited = true;
    return value;
  });
  const killer = setTimeout(() => kill("SIGKILL"), lifetimeMs);
  const kill = (signal: Deno.Signal) => {
    try {
      if (!exited) process.kill(signal);
    } catch {
      // already gone
    }
  };
  void (async () => {
    let pending = "";
    for await (const chunk of process.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        onLine(line);
        for (const waiter of [...waiters]) {
          if (waiter.pattern.test(line)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(line);
          }
        }
      }
    }
  })();
  void (async () => {
    for await (const chunk of process.stderr.pipeThrough(new TextDecoderStream())) {
      errors = (errors + chunk).slice(-4000);
    }
  })();
  const writer = process.stdin.getWriter();
  return {
    waitFor(pattern, timeoutMs = 30_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`${command}: no line matching ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = {
          pattern,
          resolve: (line: string) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        waiters.push(waiter);
        void status.then(() => {
          if (!waiters.includes(waiter)) return;
          clearTimeout(timer);
          reject(new Error(`${command} exited before ${pattern}: ${errors.slice(-1500)}`));
        });
      });
    },
    async send(line) {
      lines.length = 0;
      await writer.write(new TextEncoder().encode(`${line}\n`));
    },
    async stop(signal = "SIGKILL") {
      clearTimeout(killer);
      kill(signal);
      const hard = setTimeout(() => kill("SIGKILL"), 5_000);
      await status;
      clearTimeout(hard);
      await writer.close().catch(() => {});
    },
    stderr: () => errors,
  };
}

/** A port the OS just handed out (free at the moment it returns). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A running `redis-server` that can be restarted (losing every key) on its port. */
export interface Redis {
  readonly url: string;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `redis-server` on a free loopback port, no persistence, data in a temporary folder. */
export async function startRedis(lifetimeMs: number): Promise<Redis> {
  const port = freePort();
  const dir = await Deno.makeTempDir({ prefix: "cursor-bench-redis-" });
  const args = [
    "--port",
    `${port}`,
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no",
  ];
  let child: Child;
  const start = async () => {
    child = startChild("redis-server", args, {}, lifetimeMs);
    await child.waitFor(/Ready to accept connections/, 20_000);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      await child.stop("SIGTERM");
      await start();
    },
    async stop() {
      await child.stop("SIGTERM");
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** The emulator host process. */
export interface EmulatorHost {
  readonly url: string;
  /** Bytes the instances uploaded to the emulator so far. */
  bytesUp(): Promise<number>;
  /** The Run records since the last `clear`. */
  records(): Promise<{ runs: unknown[]; violations: unknown[] }>;
  clear(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `scripts/bench/scale-out/emulator-host.ts` under Deno. */
export async function startEmulatorHost(lifetimeMs: number): Promise<EmulatorHost> {
  const child = startChild(
    Deno.execPath(),
    ["run", "-A", "scripts/bench/scale-out/emulator-host.ts"],
    { BENCH_LIFETIME_MS: `${lifetimeMs}` },
    lifetimeMs + 5_000,
  );
  const url = (await child.waitFor(/^emulator-host: url=/, 60_000)).split("url=")[1] ?? "";
  const file = await Deno.makeTempFile({ prefix: "cursor-bench-records-", suffix: ".json" });
  return {
    url,
    async bytesUp() {
      await child.send("network");
      const line = await child.waitFor(/^emulator-host: network /);
      return Number(line.match(/bytes_up=(\d+)/)?.[1] ?? 0);
    },
    async records() {
      await child.send(`dump ${file}`);
      await child.waitFor(/^emulator-host: dumped/, 60_000);
      return JSON.parse(await Deno.readTextFile(file));
    },
    async clear() {
      await child.send("clear");
      await child.waitFor(/^emulator-host: cleared/);
    },
    async stop() {
      await child.stop("SIGTERM");
      await Deno.remove(file).catch(() => {});
    },
  };
}

/** A provider instance that can be killed and started again on its port. */
export interface Instance {
  readonly port: number;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts one bundled `instance.ts` under Node; its `instance-log:` lines go to `log`. */
export async function startInstance(
  bundle: string,
  env: { EMULATOR_URL: string; REDIS_URL: string },
  lifetimeMs: number,
  log: string[],
): Promise<Instance> {
  const collect = (line: string) => {
    if (line.startsWith("instance-log: ")) log.push(line.slice(14));
  };
  let child: Child | undefined;
  let port = 0;
  const start = async () => {
    for (let attempt = 0;; attempt++) {
      const next = startChild(
        "node",
        [bundle],
        {
          ...env,
          PORT: `${port}`,
          BENCH_LIFETIME_MS: `${lifetimeMs}`,
        },
        lifetimeMs + 5_000,
        collect,
      );
      try {
        port = Number((await next.waitFor(/^instance: port=/, 30_000)).split("=")[1]);
        child = next;
        return;
      } catch (error) {
        await next.stop();
        // The old port may still be in TIME_WAIT for a moment after a kill.
        if (attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  await start();
  return {
    get port() {
      return port;
    },
    async kill() {
      await child?.stop("SIGKILL");
      child = undefined;
    },
    start,
    async stop() {
      await child?.stop("SIGTERM");
      child = undefined;
    },
  };
}

/** Starts the bundled round-robin proxy in front of the given ports; returns it and its URL. */
export async function startProxy(
  bundle: string,
  ports: readonly number[],
  lifetimeMs: number,
): Promise<{ url: string; stop(): Promise<void> }> {
  const child = startChild("node", [bundle], {
    BACKENDS: ports.join(","),
    BENCH_LIFETIME_MS: `${lifetimeMs}`,
  }, lifetimeMs + 5_000);
  const port = Number((await child.waitFor(/^proxy: port=/)).split("=")[1]);
  return { url: `http://127.0.0.1:${port}`, stop: () => child.stop("SIGTERM") };
}
