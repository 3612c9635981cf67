/**
 * A hostile loopback proxy: passes a connection's first bytes from the server on as they
 * come, then drips the rest one byte at a time, so a frame that was under way never
 * completes in any useful time. The client's bytes pass unchanged.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";

/** A running proxy. */
export interface DrippingProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Connections whose answer is dripping. */
  dripping(): number;
  close(): Promise<void>;
}

/**
 * Starts a proxy in front of `target`.
 *
 * @param target The server's `http://host:port`.
 * @param options After how many answer bytes of a connection the drip starts, how often
 *   bytes pass then, and how many each time (default 1).
 * @returns The proxy.
 */
export async function startDrippingProxy(
  target: string,
  options: { readonly afterBytes: number; readonly everyMs: number; readonly bytes?: number },
): Promise<DrippingProxy> {
  const port = Number(new URL(target).port);
  const sockets = new Set<net.Socket>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  let dripping = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    let passed = 0;
    const held: number[] = [];
    let timer: ReturnType<typeof setInterval> | undefined;
    upstream.on("data", (chunk: Buffer) => {
      if (timer === undefined && passed + chunk.length <= options.afterBytes) {
        passed += chunk.length;
        client.write(chunk);
        return;
      }
      for (const byte of chunk) held.push(byte);
      if (timer !== undefined) return;
      dripping++;
      timer = setInterval(() => {
        const bytes = held.splice(0, options.bytes ?? 1);
        if (bytes.length > 0 && !client.destroyed) client.write(Buffer.from(bytes));
      }, options.everyMs);
      timers.add(timer);
    });
    const stop = () => {
      if (timer !== undefined) clearInterval(timer);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", stop);
    upstream.on("close", stop);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dripping: () => dripping,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
