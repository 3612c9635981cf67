/**
 * One agent origin in front of the emulator's two ports, as Cursor's agent host serves
 * both protocols on one origin: a connection that opens with the HTTP/2 preface goes to
 * the emulator's HTTP/2 port, any other to its main (HTTP/1.1) port. It counts the HTTP/2
 * connection attempts and can play a network that does not carry HTTP/2 (a proxy that
 * speaks only HTTP/1.1: the connection is closed at the preface), or one that speaks HTTP/2
 * to the client and HTTP/1.1 upstream (every Run answered with the load balancer's 464).
 */
import http2 from "node:http2";
import net from "node:net";
import type { AddressInfo } from "node:net";

const PREFACE = "PRI * HTTP/2.0";

/** What the front does with an HTTP/2 connection. */
export type FrontMode = "both" | "refuse-http2" | "answer-464";

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
  // A downgrading proxy: speaks HTTP/2, and the load balancer behind it refuses the Run.
  const downgrading = http2.createServer();
  downgrading.on("stream", (stream) => {
    stream.on("error", () => {});
    stream.respond({ ":status": 464, "content-type": "text/plain" });
    stream.end();
  });
  downgrading.on("session", (session) => session.on("error", () => {}));
  await new Promise<void>((resolve) => downgrading.listen(0, "127.0.0.1", resolve));
  const downgradingPort = (downgrading.address() as AddressInfo).port;
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
      const port = !isHttp2 ? main : front.mode === "answer-464" ? downgradingPort : h2;
      const upstream = net.connect(port, "127.0.0.1");
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
        downgrading.close();
        server.close(() => resolve());
      }),
  });
}
