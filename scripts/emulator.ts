/**
 * Runs the Cursor emulator from the command line until interrupted: prints its URLs, a
 * ready-to-use access token and a ready-to-paste OpenCode set-up, then one line per
 * request (method, RPC path, status, ms) unless `--quiet`. `--help` lists the options.
 * Ctrl-C (SIGINT) or SIGTERM closes it.
 *
 * The request log wraps the emulator's public fetch handler: a front server on the
 * requested port serves `emulator.fetch` through {@link loggedHandler}, and the
 * emulator announces the front URL as its agent URL. HTTP/2 Runs are reported from the
 * emulator's Run records. With TLS the emulator serves everything on one port itself,
 * so only its HTTP/2 Runs are reported.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import {
  type Http2ConfigName,
  startCursorEmulator,
  type StartEmulatorOptions,
} from "../src/testing/mod.ts";
import { parseCommandLine } from "../src/adapters/node/commands/command-line.ts";
import {
  formatRequestLine,
  loggedHandler,
  type RequestLine,
  watchHttp2Runs,
} from "./emulator/request-log.ts";
import { openCodeSetupLines } from "./emulator/opencode-setup.ts";

const command = parseCommandLine({
  invocation: "npm run emulator --",
  summary: "Serves the strict Cursor emulator on loopback until Ctrl-C: the agent protocol " +
    "(RunSSE + BidiAppend, HTTP/2 Run), models, server config, login and token exchange.",
  options: {
    port: { type: "string", value: "<n>", default: "0", description: "main port (0: any free)" },
    host: { type: "string", value: "<host>", default: "127.0.0.1", description: "host to bind" },
    "http2-port": { type: "string", value: "<n>", description: "port of the HTTP/2 Run server" },
    "no-http2": { type: "boolean", description: "no HTTP/2 Run server" },
    tls: {
      type: "boolean",
      description: "serve over TLS with the test certificate of the local CA in " +
        "test/testing/fixtures (trust it with NODE_EXTRA_CA_CERTS=<printed ca>)",
    },
    latency: {
      type: "string",
      value: "<ms>",
      description: "one-way network delay each direction, per chunk (e.g. 30 or 30ms); " +
        "a line `network` on stdin prints the connections and bytes so far",
    },
    "tls-cert": { type: "string", value: "<file>", description: "serve over TLS (with --tls-key)" },
    "tls-key": { type: "string", value: "<file>", description: "private key for --tls-cert" },
    "no-auth": { type: "boolean", description: "accept requests without a token" },
    "no-strict": { type: "boolean", description: "do not enforce the protocol rules" },
    "cold-server": {
      type: "boolean",
      description: "keep no blobs between Runs: every warm Run GETs the blobs it needs",
    },
    "token-lifetime": { type: "string", value: "<ms>", description: "access token lifetime" },
    "reply-deadline": {
      type: "string",
      value: "<ms>",
      description: "how long a tool request may stay unanswered",
    },
    "http2-config": {
      type: "string",
      value: "<value>",
      description: "GetServerConfig's http2_config: unspecified (default), force-all-disabled, " +
        "force-all-enabled, force-bidi-disabled or force-bidi-enabled",
    },
    quiet: { type: "boolean", description: "no per-request lines" },
  },
  examples: [
    ["npm run emulator", "serve on a free port, log each request"],
    ["npm run emulator -- --port 8787 --quiet", "a fixed port, no request lines"],
    ["npm run emulator -- --token-lifetime 60000", "tokens that expire after a minute"],
    ["npm run emulator -- --tls --latency 30ms", "HTTPS with ALPN h2, 30 ms each way"],
  ],
  notes: [
    "Point a client at it with apiBaseURL=<url> and allowLoopback=true; the printed " +
    "OpenCode set-up does that for OpenCode. Reference: docs/emulator.md.",
  ],
}, Deno.args);
if (command.kind === "help") {
  console.log(command.text);
  Deno.exit(0);
}
if (command.kind === "error") {
  console.error(command.message);
  Deno.exit(2);
}
const { values } = command as Extract<typeof command, { kind: "run" }>;
const text = (name: string) => typeof values[name] === "string" ? values[name] : undefined;

function number(name: string): number | undefined {
  const value = text(name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    console.error(`Option --${name} needs a non-negative integer, got ${JSON.stringify(value)}`);
    Deno.exit(2);
  }
  return parsed;
}

const LOCAL_CA = "test/testing/fixtures/local-ca.pem";
const cert = values.tls ? "test/testing/fixtures/local-ca-localhost-cert.pem" : text("tls-cert");
const key = values.tls ? "test/testing/fixtures/local-ca-localhost-key.pem" : text("tls-key");
if ((cert === undefined) !== (key === undefined)) {
  console.error("Options --tls-cert and --tls-key go together");
  Deno.exit(2);
}
const latencyText = text("latency");
const latencyMs = latencyText === undefined ? undefined : Number(latencyText.replace(/ms$/, ""));
if (latencyMs !== undefined && !(Number.isFinite(latencyMs) && latencyMs >= 0)) {
  console.error(
    `Option --latency needs a non-negative number of ms, got ${JSON.stringify(latencyText)}`,
  );
  Deno.exit(2);
}
const HTTP2_CONFIGS: readonly Http2ConfigName[] = [
  "unspecified",
  "force-all-disabled",
  "force-all-enabled",
  "force-bidi-disabled",
  "force-bidi-enabled",
];
const http2ConfigText = text("http2-config");
const http2Config = HTTP2_CONFIGS.find((name) => name === http2ConfigText);
if (http2ConfigText !== undefined && http2Config === undefined) {
  console.error(
    `Option --http2-config needs one of ${HTTP2_CONFIGS.join(", ")}, got ${
      JSON.stringify(http2ConfigText)
    }`,
  );
  Deno.exit(2);
}
const hostname = text("host") ?? "127.0.0.1";
const port = number("port") ?? 0;
const http2Port = number("http2-port");
const lifetime = number("token-lifetime");
const deadline = number("reply-deadline");
const options: StartEmulatorOptions = {
  hostname,
  http2: values["no-http2"] ? false : http2Port === undefined ? true : { port: http2Port },
  strict: !values["no-strict"],
  auth: {
    required: !values["no-auth"],
    ...(lifetime === undefined ? {} : { accessTokenLifetimeMs: lifetime }),
  },
  ...(deadline === undefined ? {} : { replyDeadlineMs: deadline }),
  ...(values["cold-server"] ? { serverBlobCache: false as const } : {}),
  ...(http2Config === undefined ? {} : { http2Config }),
  ...(latencyMs === undefined ? {} : { network: { latencyMs } }),
};
const report = (line: RequestLine) => {
  console.log(`${new Date().toISOString().slice(11, 23)} ${formatRequestLine(line)}`);
};

function origin(host: string, boundPort: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`;
}

async function startServed() {
  if (cert !== undefined && key !== undefined) {
    const tls = { cert: await Deno.readTextFile(cert), key: await Deno.readTextFile(key) };
    const emulator = await startCursorEmulator({ ...options, port, tls });
    return { emulator, url: emulator.url, close: () => emulator.close() };
  }
  if (latencyMs !== undefined) {
    // The network sits before the emulator's own listeners: no request-log front.
    const emulator = await startCursorEmulator({ ...options, port });
    return { emulator, url: emulator.url, close: () => emulator.close() };
  }
  const handler = Promise.withResolvers<(request: Request) => Promise<Response>>();
  const front = Deno.serve(
    { port, hostname, onListen: () => {} },
    async (request) => (await handler.promise)(request),
  );
  const url = origin(hostname, front.addr.port);
  const emulator = await startCursorEmulator({ ...options, port: 0, agentUrl: url });
  // Quiet serves the emulator's handler itself: the log wrapper costs a stream hop per
  // RunSSE chunk and a line per append, which timing measurements must not pay.
  handler.resolve(values.quiet ? emulator.fetch : loggedHandler(emulator.fetch, report));
  return {
    emulator,
    url,
    close: async () => {
      await emulator.close();
      await front.shutdown();
    },
  };
}

const served = await startServed();
const { emulator, url } = served;
const stopWatching = values.quiet ? () => {} : watchHttp2Runs(emulator, report);
const { accessToken, refreshToken } = await emulator.auth.issueTokens();
const checkout = resolve(".");
console.log(`emulator: url=${url}`);
console.log(`emulator: http2_url=${emulator.http2Url ?? "(disabled)"}`);
console.log(`emulator: server=${emulator.server}`);
if (values.tls) console.log(`emulator: ca=${resolve(LOCAL_CA)}`);
if (latencyMs !== undefined) console.log(`emulator: latency_ms=${latencyMs}`);
console.log(`emulator: access_token=${accessToken}`);
console.log(`emulator: refresh_token=${refreshToken}`);
for (const line of openCodeSetupLines({ url, checkout, built: existsSync("npm/node.js") })) {
  console.log(line);
}
console.log(
  `emulator: ready (Ctrl-C to stop)${values.quiet ? "" : "; one line per request follows"}`,
);

if (latencyMs !== undefined) void answerNetworkQueries();

/** With a network: each `network` line on stdin prints the traffic so far. */
async function answerNetworkQueries(): Promise<void> {
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let pending = "";
  for await (const chunk of lines) {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    for (const line of parts) {
      if (line.trim() !== "network") continue;
      const stats = emulator.network();
      console.log(
        `emulator: network connections=${stats?.connections ?? 0} bytes_up=${
          stats?.bytesUp ?? 0
        } bytes_down=${stats?.bytesDown ?? 0}`,
      );
    }
  }
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  stopWatching();
  await served.close();
  console.log("emulator: closed");
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
