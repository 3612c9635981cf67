/**
 * A local stand-in for Upstash Redis's REST API in front of a real `redis-server`, faithful
 * to Upstash's documented protocol for what it serves: a command as a JSON array POSTed to
 * the root (or as path segments, a POST body appended as the last argument), `/pipeline`
 * with an array of commands; `Authorization: Bearer <token>` or `?_token=`; answers
 * `{"result": …}` (null, integer, string, array) or `{"error": "…"}` with 400, 401 for a
 * missing or wrong token, 405 for a method other than HEAD, GET, POST, PUT; invalid UTF-8
 * in strings replaced by U+FFFD, or every string but `OK` in base64 under
 * `Upstash-Encoding: base64`; an optional request size limit answered
 * `ERR max request size exceeded`. `/multi-exec` and the RESP2 response format are not
 * served (400 saying so).
 */
import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createClient, ErrorReply, RESP_TYPES } from "redis";

/** A running bridge. */
export interface UpstashRestBridge {
  /** The REST URL (`UPSTASH_REDIS_REST_URL`). */
  readonly url: string;
  /** The token it accepts (`UPSTASH_REDIS_REST_TOKEN`). */
  readonly token: string;
  close(): Promise<void>;
}

/** Options of {@link startUpstashRestBridge}. */
export interface UpstashRestBridgeOptions {
  /** The `redis-server` behind it. */
  readonly redisUrl: string;
  /** The largest request body accepted (Upstash's Free databases: about 1 MB); default none. */
  readonly maxRequestBytes?: number;
}

const WRONG_TOKEN = "WRONGPASS invalid or missing auth token";
const METHODS = new Set(["HEAD", "GET", "POST", "PUT"]);
const AS_BUFFERS = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } };

/** Starts the bridge on a free loopback port. */
export async function startUpstashRestBridge(
  options: UpstashRestBridgeOptions,
): Promise<UpstashRestBridge> {
  const client = createClient({ url: options.redisUrl });
  client.on("error", () => {});
  await client.connect();
  const token = `bridge_${crypto.randomUUID().replaceAll("-", "")}`;
  const run = async (command: string[], base64: boolean) => {
    try {
      return { result: toJson(await client.sendCommand(command, AS_BUFFERS), base64) };
    } catch (error) {
      if (error instanceof ErrorReply) return { error: error.message };
      throw error;
    }
  };
  const server = createServer((request, response) => {
    handle(request, response, { token, run, maxRequestBytes: options.maxRequestBytes }).catch(
      (error) => answer(response, 500, { error: `ERR bridge failure: ${String(error)}` }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.close().catch(() => {});
    },
  };
}

interface Context {
  readonly token: string;
  readonly maxRequestBytes: number | undefined;
  run(command: string[], base64: boolean): Promise<{ result?: unknown; error?: string }>;
}

async function handle(request: IncomingMessage, response: ServerResponse, context: Context) {
  if (!METHODS.has(request.method ?? "")) {
    return answer(response, 405, { error: "ERR method not allowed" });
  }
  const url = new URL(request.url ?? "/", "http://bridge");
  const bearer = request.headers.authorization?.replace(/^Bearer /, "");
  if ((bearer ?? url.searchParams.get("_token")) !== context.token) {
    return answer(response, 401, { error: WRONG_TOKEN });
  }
  const body = await readBody(request);
  if (context.maxRequestBytes !== undefined && body.length > context.maxRequestBytes) {
    return answer(response, 400, { error: "ERR max request size exceeded" });
  }
  if (request.headers["upstash-response-format"] !== undefined) {
    return answer(response, 400, { error: "ERR the bridge serves JSON responses only" });
  }
  const base64 = request.headers["upstash-encoding"] === "base64";
  const segments = url.pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
  if (segments[0] === "multi-exec") {
    return answer(response, 400, { error: "ERR the bridge does not serve /multi-exec" });
  }
  if (segments[0] === "pipeline") {
    const commands = parseCommands(body);
    if (commands === undefined) return answer(response, 400, { error: "ERR invalid pipeline" });
    const results = [];
    for (const command of commands) results.push(await context.run(command, base64));
    return answer(response, 200, results);
  }
  const command = segments.length > 0
    ? [...segments, ...(body.length > 0 ? [body.toString("utf8")] : [])]
    : parseCommand(body);
  if (command === undefined || command.length === 0) {
    return answer(response, 400, { error: "ERR invalid command" });
  }
  const outcome = await context.run(command, base64);
  return answer(response, outcome.error === undefined ? 200 : 400, outcome);
}

/** A reply as Upstash's JSON: strings decoded (or base64), integers, null, arrays. */
function toJson(reply: unknown, base64: boolean): unknown {
  if (reply === null || reply === undefined) return null;
  if (Array.isArray(reply)) return reply.map((item) => toJson(item, base64));
  if (Buffer.isBuffer(reply)) {
    return base64 ? reply.toString("base64") : new TextDecoder().decode(reply);
  }
  if (typeof reply === "string") {
    return base64 && reply !== "OK" ? Buffer.from(reply).toString("base64") : reply;
  }
  if (typeof reply === "number") return reply;
  return String(reply);
}

function parseCommand(body: Buffer): string[] | undefined {
  try {
    return asCommand(JSON.parse(body.toString("utf8")));
  } catch {
    return undefined;
  }
}

function parseCommands(body: Buffer): string[][] | undefined {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    if (!Array.isArray(value)) return undefined;
    const commands = value.map(asCommand);
    return commands.every((c) => c !== undefined) ? commands as string[][] : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON array of strings and numbers as a command (numbers as their decimal text). */
function asCommand(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const args = value.map((item) =>
    typeof item === "string" ? item : typeof item === "number" ? String(item) : undefined
  );
  return args.every((arg) => arg !== undefined) ? args as string[] : undefined;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
