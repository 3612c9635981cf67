/**
 * A TCP relay in front of the emulator's listener that plays a network: each direction
 * delays what it carries by a one-way time, and the relay counts connections and bytes.
 * The delay applies to each chunk as it arrives (a TLS record, a frame, a request), never
 * per byte, and keeps the order of a direction. A new connection also pays the TCP
 * handshake: the client's first bytes reach the server no sooner than three one-way
 * times after it connected (SYN, SYN-ACK, then the first data), as over a real link.
 *
 * @module
 */
import net from "node:net";

/**
 * Traffic through the emulator's network since it started.
 *
 * @example
 * ```ts
 * import type { NetworkStats } from "../mod.ts";
 *
 * const stats: NetworkStats = {
 *   connections: 1,
 *   closed: 0,
 *   closedInUse: 0,
 *   bytesUp: 517,
 *   bytesDown: 4_096,
 * };
 * console.assert(stats.connections - stats.closed === 1);
 * ```
 */
export interface NetworkStats {
  /** TCP connections accepted. */
  readonly connections: number;
  /** Of those, the ones since closed (by either side, for any reason: an idle timeout too). */
  readonly closed: number;
  /**
   * Of the closed, those closed less than {@link IN_USE_MS} ms after their last bytes:
   * given up in use or right after (a request aborted, a `connection: close`), never by
   * an idle timeout, which takes seconds.
   */
  readonly closedInUse: number;
  /** Bytes from clients to the emulator (TLS records included when over TLS). */
  readonly bytesUp: number;
  /** Bytes from the emulator to clients. */
  readonly bytesDown: number;
}

/**
 * The emulated network between clients and the emulator.
 *
 * @example
 * ```ts
 * import type { NetworkOptions } from "../mod.ts";
 *
 * const network: NetworkOptions = { latencyMs: 30 };
 * console.assert(network.latencyMs === 30);
 * ```
 */
export interface NetworkOptions {
  /** One-way delay in each direction, in ms (default 0: only counting). */
  readonly latencyMs?: number;
}

/** A connection closed sooner than this after its last bytes was closed in use. */
export const IN_USE_MS = 1_000;

/** A listening relay. */
export interface NetworkRelay {
  /** The port clients connect to. */
  readonly port: number;
  stats(): NetworkStats;
  close(): Promise<void>;
}

/** Chunks of one direction, each delivered at its due time, in order. */
class DelayLine {
  readonly #queue: { due: number; chunk: Uint8Array }[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #floor: number;
  #ended = false;

  constructor(
    private readonly latencyMs: number,
    private readonly deliver: (chunk: Uint8Array) => void,
    private readonly finish: () => void,
    firstDue = 0,
  ) {
    this.#floor = firstDue;
  }

  push(chunk: Uint8Array): void {
    if (this.latencyMs === 0 && this.#queue.length === 0) {
      this.deliver(chunk);
      return;
    }
    const due = Math.max(performance.now() + this.latencyMs, this.#floor);
    this.#floor = due;
    this.#queue.push({ due, chunk });
    this.#schedule();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#queue.length === 0) this.finish();
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#queue.length = 0;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const head = this.#queue[0];
    if (head === undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const now = performance.now();
      for (let next = this.#queue[0]; next !== undefined && next.due <= now + 0.5;) {
        this.#queue.shift();
        this.deliver(next.chunk);
        next = this.#queue[0];
      }
      if (this.#queue.length > 0) this.#schedule();
      else if (this.#ended) this.finish();
    }, Math.max(0, head.due - performance.now()));
  }
}

/**
 * Starts a relay on `hostname` (any free port) that forwards to `target`.
 *
 * @param target Where the emulator listens.
 * @param options The host to bind and the network to play.
 * @returns The relay.
 */
export async function startNetworkRelay(
  target: { readonly host: string; readonly port: number },
  options: { readonly hostname: string; readonly port?: number } & NetworkOptions,
): Promise<NetworkRelay> {
  const latencyMs = options.latencyMs ?? 0;
  const counts = { connections: 0, closed: 0, closedInUse: 0, bytesUp: 0, bytesDown: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    counts.connections++;
    const opened = performance.now();
    client.setNoDelay(true);
    const upstream = net.connect({ host: target.host, port: target.port });
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    const up = new DelayLine(
      latencyMs,
      (chunk) => {
        counts.bytesUp += chunk.length;
        upstream.write(chunk);
      },
      () => upstream.end(),
      latencyMs === 0 ? 0 : opened + 3 * latencyMs,
    );
    const down = new DelayLine(latencyMs, (chunk) => {
      counts.bytesDown += chunk.length;
      client.write(chunk);
    }, () => client.end());
    let lastBytes = opened;
    client.on("data", (chunk: Uint8Array) => {
      lastBytes = performance.now();
      up.push(chunk);
    });
    upstream.on("data", (chunk: Uint8Array) => {
      lastBytes = performance.now();
      down.push(chunk);
    });
    // An end or a close travels like data: after what was sent before it.
    client.on("close", () => {
      counts.closed++;
      if (performance.now() - lastBytes < IN_USE_MS) counts.closedInUse++;
      sockets.delete(client);
      up.end();
    });
    upstream.on("close", () => {
      sockets.delete(upstream);
      down.end();
    });
    client.on("error", () => {});
    upstream.on("error", () => {});
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.hostname, () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    stats: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
