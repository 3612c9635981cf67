/**
 * The load balancer of `scale-out.bench.ts`, run under Node: a loopback HTTP proxy that
 * sends each request to the next instance in turn (round robin, no stickiness). An
 * instance that refuses the connection or dies before answering gets the client a 502;
 * one that dies while answering cuts the client's response.
 *
 * Environment: `BACKENDS` (comma-separated ports), `BENCH_LIFETIME_MS` (exits after it;
 * default 10 min). Prints `proxy: port=N` once it listens.
 *
 * @module
 */
import { createServer, request as forward } from "node:http";
import process from "node:process";

const lifetime = setTimeout(
  () => process.exit(3),
  Number(process.env.BENCH_LIFETIME_MS ?? 600_000),
);
const backends = (process.env.BACKENDS ?? "").split(",").map(Number).filter((port) => port > 0);
let next = 0;

const server = createServer((incoming, outgoing) => {
  const port = backends[next++ % backends.length];
  const upstream = forward({
    host: "127.0.0.1",
    port,
    method: incoming.method,
    path: incoming.url,
    headers: incoming.headers,
  }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(outgoing);
    answer.on("error", () => outgoing.destroy());
    answer.on("aborted", () => outgoing.destroy());
  });
  upstream.on("error", (error) => {
    if (outgoing.headersSent) outgoing.destroy();
    else outgoing.writeHead(502).end(`instance ${port}: ${error.message}`);
  });
  incoming.pipe(upstream);
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(`proxy: port=${typeof address === "object" && address !== null ? address.port : 0}`);
});
const stop = () => {
  clearTimeout(lifetime);
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
