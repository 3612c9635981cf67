/**
 * One agent origin in front of the emulator's two ports, as Cursor's agent host serves
 * both protocols on one origin: a connection that opens with the HTTP/2 preface goes to
 * the emulator's HTTP/2 port, any other to its main (HTTP/1.1) port. It counts the HTTP/2
 * connection attempts and can play a network that does not carry HTTP/2 (a proxy that
 * speaks only HTTP/1.1: the connection is closed at the preface).
 */
import net from "node:net";
import type { AddressInfo } from "node:net";

const PREFACE = "PRI * HTTP/2.0";

/** What the front does with an HTTP/2 connection. */
export type FrontMode = "both" | "refuse-http2";

/** A running front. */
export interface AgentOriginFront {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** HTTP/2 connections attempted so far (refused ones included). */
  http2Attempts(): number;
  /** Points the front at the emulator's ports. */
  target(mainUrl: string, http2Url: string): void;
  mode: FrontMode;
  close(): Promise<void>;
}

/** Starts a front on a free loopback port (targets are set once the emulator runs). */
export async function startAgentOriginFront(): Promise<AgentOriginFront> {
  let main = 0;
  let h2 = 0;
  let attempts = 0;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const front: AgentOriginFront = {
    url: "",
    mode: "both",
    http2Attempts: () => attempts,
    target(mainUrl, http2Url) {
      main = Number(new URL(mainUrl).port);
      h2 = Number(new URL(http2Url).port);
    },
    close: () => Promise.resolve(),
  };
  const server = net.createServer((socket) => {
    track(socket);
    socket.once("data", (first: Uint8Array) => {
      const isHttp2 = new TextDecoder().decode(first.subarray(0, PREFACE.length)) === PREFACE;
      if (isHttp2) attempts++;
      if (isHttp2 && front.mode === "refuse-http2") {
        socket.destroy();
        return;
      }
      const upstream = net.connect(isHttp2 ? h2 : main, "127.0.0.1");
      track(upstream);
      upstream.write(first);
      socket.pipe(upstream);
      upstream.pipe(socket);
      upstream.on("close", () => socket.destroy());
      socket.on("close", () => upstream.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(front, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
