/**
 * Runs the Cursor emulator from the command line until interrupted.
 *
 * Usage: `npm run emulator -- [--port N] [--host H] [--http2-port N] [--no-http2]
 * [--tls-cert FILE --tls-key FILE] [--no-auth] [--no-strict] [--token-lifetime MS]
 * [--reply-deadline MS]`
 *
 * Prints `emulator: url=…`, `emulator: http2_url=…` and a ready-to-use access token,
 * then keeps serving; Ctrl-C (SIGINT) or SIGTERM closes it.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startCursorEmulator, type StartEmulatorOptions } from "../src/testing/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    "http2-port": { type: "string" },
    "no-http2": { type: "boolean", default: false },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    "no-auth": { type: "boolean", default: false },
    "no-strict": { type: "boolean", default: false },
    "token-lifetime": { type: "string" },
    "reply-deadline": { type: "string" },
  },
});

function number(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`Option --${name} needs a non-negative integer, got ${JSON.stringify(text)}`);
    Deno.exit(2);
  }
  return value;
}

const cert = values["tls-cert"];
const key = values["tls-key"];
if ((cert === undefined) !== (key === undefined)) {
  console.error("Options --tls-cert and --tls-key go together");
  Deno.exit(2);
}
const http2Port = number("http2-port", values["http2-port"]);
const lifetime = number("token-lifetime", values["token-lifetime"]);
const deadline = number("reply-deadline", values["reply-deadline"]);
const options: StartEmulatorOptions = {
  hostname: values.host,
  port: number("port", values.port) ?? 0,
  http2: values["no-http2"] ? false : http2Port === undefined ? true : { port: http2Port },
  strict: !values["no-strict"],
  auth: {
    required: !values["no-auth"],
    ...(lifetime === undefined ? {} : { accessTokenLifetimeMs: lifetime }),
  },
  ...(deadline === undefined ? {} : { replyDeadlineMs: deadline }),
  ...(cert !== undefined && key !== undefined
    ? { tls: { cert: await Deno.readTextFile(cert), key: await Deno.readTextFile(key) } }
    : {}),
};

const emulator = await startCursorEmulator(options);
const { accessToken, refreshToken } = await emulator.auth.issueTokens();
console.log(`emulator: url=${emulator.url}`);
console.log(`emulator: http2_url=${emulator.http2Url ?? "(disabled)"}`);
console.log(`emulator: server=${emulator.server}`);
console.log(`emulator: access_token=${accessToken}`);
console.log(`emulator: refresh_token=${refreshToken}`);
console.log("emulator: ready (Ctrl-C to stop)");

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await emulator.close();
  console.log("emulator: closed");
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
