/**
 * A small HTTP CONNECT proxy on loopback, for tests of the proxied transports: it opens
 * tunnels to loopback destinations only, and prints one line per CONNECT
 * (`proxy: connect target=host:port auth=none|ok|wrong status=N`). `--refuse` answers
 * every CONNECT with 403; `--auth user:password` wants those credentials (407 without or
 * with others). Prints `proxy: port=N` and `proxy: ready` once listening.
 *
 * Usage: `deno run -A scripts/connect-proxy.ts [--refuse] [--auth user:password]`
 *
 * @module
 */
import net from "node:net";

const args = [...Deno.args];
const refuse = args.includes("--refuse");
const authIndex = args.indexOf("--auth");
const wanted = authIndex >= 0 ? `Basic ${btoa(args[authIndex + 1] ?? "")}` : undefined;

const server = net.createServer((client) => {
  let head = "";
  const onData = (chunk: Uint8Array) => {
    head += new TextDecoder("latin1").decode(chunk);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    client.off("data", onData);
    const [requestLine = "", ...lines] = head.slice(0, end).split("\r\n");
    const target = /^CONNECT (\S+) HTTP\/1\.[01]$/.exec(requestLine)?.[1];
    const given = lines.find((line) => /^proxy-authorization:/i.test(line))?.replace(
      /^[^:]*:\s*/,
      "",
    );
    const auth = given === undefined ? "none" : given === wanted ? "ok" : "wrong";
    const [host = "", port = ""] = target?.match(/^\[?([^\]]*)\]?:(\d+)$/)?.slice(1) ?? [];
    const status = target === undefined
      ? 400
      : refuse
      ? 403
      : wanted !== undefined && auth !== "ok"
      ? 407
      : !["127.0.0.1", "localhost", "::1"].includes(host)
      ? 403
      : 200;
    console.log(`proxy: connect target=${target ?? "-"} auth=${auth} status=${status}`);
    if (status !== 200) {
      const extra = status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : "";
      client.end(`HTTP/1.1 ${status} No\r\n${extra}Content-Length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect({ host, port: Number(port) }, () => {
      client.write("HTTP/1.1 200 Connection established\r\n\r\n");
      const rest = head.slice(end + 4);
      if (rest.length > 0) upstream.write(new TextEncoder().encode(rest));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  };
  client.on("data", onData);
  client.on("error", () => {});
});
server.listen(0, "127.0.0.1", () => {
  console.log(`proxy: port=${(server.address() as net.AddressInfo).port}`);
  console.log("proxy: ready");
});
const stop = () => {
  server.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
