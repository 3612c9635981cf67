/**
 * How fast the emulator streams: a 10,000-delta reply (`::deltas 10000`, so 20,000
 * text/token-delta frames plus the protocol frames around them) through RunSSE, read by
 * the client's own Run driver (every frame decoded, the Run's KV and request-context
 * requests answered) — side by side with a baseline: the same number of pre-encoded frames served
 * by a bare fetch handler on the same runtime. Also the same reply over the HTTP/2 Run.
 *
 * Usage: `deno run -A scripts/bench/emulator.bench.ts`
 *
 * Prints `emulator: <metric>=<value>` lines; capped at 60 seconds.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { decodeErrorDetail } from "../../src/protocol/error-detail.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { readFrames } from "../../src/transport/frame-stream.ts";
import { startCursorEmulator } from "../../src/testing/mod.ts";
import { AgentRunRequestSchema } from "../../src/gen/agent/v1/run_request_pb.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { encodeRunRequestMessage } from "../../src/protocol/run-request-bytes.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { AgentRun } from "../../src/agent-run/agent-run.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import type { AgentRunStream, AgentTransport } from "../../src/transport/agent-transport.ts";
import { createSseTransport } from "../../src/transport/sse-transport.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";

const TIME_LIMIT_MS = 60_000;
const DELTAS = 10_000;
const ROUNDS = 3;

const deadline = setTimeout(() => {
  console.error(`emulator: aborted after ${TIME_LIMIT_MS} ms`);
  Deno.exit(1);
}, TIME_LIMIT_MS);

/** One `::deltas` turn through the product's Run driver; the number of frames read. */
async function clientTurn(transport: AgentTransport, agentBaseURL: string): Promise<number> {
  const stream = await transport.openRun({
    agentBaseURL,
    headers: { authorization: "Bearer bench" },
    requestId: crypto.randomUUID(),
  });
  let frames = 0;
  const counted: AgentRunStream = {
    send: (message) => stream.send(message),
    close: () => stream.close(),
    frames: (async function* () {
      for await (const frame of stream.frames) {
        frames++;
        yield frame;
      }
    })(),
  };
  const run = new AgentRun(counted, {
    blobs: createMemoryBlobStore(),
    requestContext: create(RequestContextSchema, {}),
    logger: silentLogger,
  });
  const request = create(AgentRunRequestSchema, {
    conversationId: crypto.randomUUID(),
    action: {
      action: {
        case: "userMessageAction",
        value: { userMessage: { text: `::deltas ${DELTAS}`, messageId: crypto.randomUUID() } },
      },
    },
    requestedModel: { modelId: "gpt-5" },
  });
  await run.start(encodeRunRequestMessage(request, new Uint8Array(0)));
  let ended = false;
  for await (const event of run.events()) if (event.type === "turn-ended") ended = true;
  if (!ended) throw new Error("The benchmark turn did not end");
  return frames;
}

async function emulatorRound(transport: "sse" | "http2"): Promise<{ frames: number; ms: number }> {
  const emulator = await startCursorEmulator({
    auth: { required: false },
    log: false,
    runLimit: 10,
  });
  try {
    const http2 = createHttp2Transport();
    const sse = createSseTransport();
    const started = performance.now();
    const frames = transport === "http2"
      ? await clientTurn(http2, emulator.http2Url ?? "").finally(() => http2.close())
      : await clientTurn(sse, emulator.url);
    const ms = performance.now() - started;
    return { frames, ms };
  } finally {
    await emulator.close();
  }
}

async function baselineRound(frames: number): Promise<{ frames: number; ms: number }> {
  const frame = encodeEnvelope(toBinary(
    AgentServerMessageSchema,
    create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: { message: { case: "textDelta", value: { text: "d1 " } } },
      },
    }),
  ));
  const end = encodeEnvelope(new TextEncoder().encode("{}"), FLAG_END_STREAM);
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent < frames) {
          sent++;
          controller.enqueue(frame);
        } else {
          controller.enqueue(end);
          controller.close();
        }
      },
    }, { highWaterMark: 0 });
    return new Response(body, { headers: { "content-type": "application/connect+proto" } });
  });
  try {
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, { method: "POST" });
    let count = 0;
    for await (
      const item of readFrames(response.body ?? new ReadableStream(), {
        decodeDetail: decodeErrorDetail,
      })
    ) {
      if (item.kind === "message") {
        fromBinary(AgentServerMessageSchema, item.bytes); // the same decode work as the emulator's reader
        count++;
      }
    }
    return { frames: count, ms: performance.now() - started };
  } finally {
    await server.shutdown();
  }
}

function best(
  rounds: { frames: number; ms: number }[],
): { frames: number; ms: number; perSecond: number } {
  const fastest = rounds.reduce((a, b) => (a.frames / a.ms >= b.frames / b.ms ? a : b));
  return { ...fastest, perSecond: Math.round((fastest.frames / fastest.ms) * 1000) };
}

const sse: { frames: number; ms: number }[] = [];
const http2: { frames: number; ms: number }[] = [];
const baseline: { frames: number; ms: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  sse.push(await emulatorRound("sse"));
  http2.push(await emulatorRound("http2"));
  baseline.push(await baselineRound(sse[0]?.frames ?? DELTAS * 2));
}
const sseBest = best(sse);
const http2Best = best(http2);
const baselineBest = best(baseline);
clearTimeout(deadline);
console.log(`emulator: deltas=${DELTAS} frames=${sseBest.frames} rounds=${ROUNDS}`);
console.log(
  `emulator: frames_per_s=${sseBest.perSecond} transport=sse ms=${Math.round(sseBest.ms)}`,
);
console.log(`emulator: http2_frames_per_s=${http2Best.perSecond} ms=${Math.round(http2Best.ms)}`);
console.log(
  `emulator: baseline_frames_per_s=${baselineBest.perSecond} (bare fetch handler, same frame count)`,
);
console.log(
  `emulator: ratio_vs_baseline=${(baselineBest.perSecond / sseBest.perSecond).toFixed(2)}`,
);
