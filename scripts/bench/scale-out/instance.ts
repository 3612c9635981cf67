/**
 * One provider instance of `scale-out.bench.ts`, run under Node: a small HTTP server
 * whose one route does what an AI SDK chat route does — `generateText` with the app's
 * tools (which run in the app, so a step that calls one ends the request) on the Node
 * entry's `createCursor`, conversation snapshots in Redis through `./stores/redis`.
 *
 * `POST /chat` takes `{ sessionId, messages }` (AI SDK `ModelMessage`s) and answers
 * `{ messages, finishReason, toolCalls }` (the response messages to append), or on failure
 * status 503 (retryable) or 500 with `{ error, retryable }`.
 *
 * The debug log's lines on resets, held Runs and the store go to stdout as `instance-log: …`.
 *
 * Environment: `EMULATOR_URL`, `REDIS_URL`, `PORT` (0: any free; the chosen port is
 * printed as `instance: port=N`), `BENCH_LIFETIME_MS` (exits after it; default 10 min).
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
import { createClient } from "redis";
import { APICallError, generateText, jsonSchema, type ModelMessage, tool } from "ai";
import { createCursor } from "../../../node.ts";
import { createRedisSnapshotStore } from "../../../stores/redis.ts";

const NOTABLE =
  /^(conversation reset|held Run released|continuation|conversation persistence: (save|restore|invalid|expired))/;
const lifetime = setTimeout(
  () => process.exit(3),
  Number(process.env.BENCH_LIFETIME_MS ?? 600_000),
);
const redis = createClient({
  url: process.env.REDIS_URL ?? "",
  // A store that is down answers at once (the turn goes on without it) instead of queueing.
  disableOfflineQueue: true,
  socket: { reconnectStrategy: (retries) => Math.min(50 * (retries + 1), 500) },
});
redis.on("error", () => {});
await redis.connect();

const cursor = createCursor({
  accessToken: "bench",
  apiBaseURL: process.env.EMULATOR_URL,
  allowLoopback: true,
  env: {},
  imageStaging: false,
  conversationSnapshots: createRedisSnapshotStore({ client: redis }),
  // Why a turn went cold or a held Run ended: the bench counts these lines per variant.
  debug: {
    enabled: true,
    line: (text) => {
      if (NOTABLE.test(text)) console.log(`instance-log: ${text}`);
    },
  },
});
const tools = {
  lookup: tool({
    description: "Looks a key up in the app's records",
    inputSchema: jsonSchema<{ key: string }>({
      type: "object",
      properties: { key: { type: "string" } },
      required: ["key"],
    }),
    outputSchema: jsonSchema<string>({ type: "string" }),
  }),
};

async function body(request: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of request) text += String(chunk);
  return text;
}

function retryable(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  return typeof error === "object" && error !== null &&
    (error as { isRetryable?: unknown }).isRetryable === true;
}

async function chat(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { sessionId, messages } = JSON.parse(await body(request)) as {
    sessionId: string;
    messages: ModelMessage[];
  };
  try {
    const result = await generateText({
      model: cursor("gpt-5"),
      messages,
      tools,
      maxRetries: 0,
      providerOptions: { cursor: { sessionId } },
    });
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({
      messages: result.response.messages,
      finishReason: result.finishReason,
      toolCalls: result.toolCalls.map((call) => ({
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input,
      })),
    }));
  } catch (error) {
    const again = retryable(error);
    response.writeHead(again ? 503 : 500, { "content-type": "application/json" });
    response.end(JSON.stringify({
      error: error instanceof Error ? error.message : String(error),
      retryable: again,
    }));
  }
}

const server = createServer((request, response) => {
  if (request.method === "POST" && request.url === "/chat") {
    chat(request, response).catch((error) => {
      response.writeHead(500).end(String(error));
    });
  } else {
    response.writeHead(request.url === "/health" ? 200 : 404).end();
  }
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  console.log(`instance: port=${port}`);
});
const stop = () => {
  clearTimeout(lifetime);
  server.close();
  server.closeAllConnections();
  void redis.close().catch(() => {}).finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
