/**
 * How fast the emulator streams: a 10,000-delta reply (`::deltas 10000`, so 20,000
 * text/token-delta frames plus the protocol frames around them) through RunSSE, read by
 * a raw fetch reader that decodes every frame and answers the Run's KV and exec
 * requests — side by side with a baseline: the same number of pre-encoded frames served
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
import { driveTurn, newHostState } from "../../test/testing/support/host.ts";

const TIME_LIMIT_MS = 60_000;
const DELTAS = 10_000;
const ROUNDS = 3;

const deadline = setTimeout(() => {
  console.error(`emulator: aborted after ${TIME_LIMIT_MS} ms`);
  Deno.exit(1);
}, TIME_LIMIT_MS);

async function emulatorRound(transport: "sse" | "http2"): Promise<{ frames: number; ms: number }> {
  const emulator = await startCursorEmulator({
    auth: { required: false },
    log: false,
    runLimit: 10,
  });
  try {
    const target = {
      transport,
      url: emulator.url,
      ...(emulator.http2Url ? { http2Url: emulator.http2Url } : {}),
    };
    const started = performance.now();
    const outcome = await driveTurn(target, newHostState(), { text: `::deltas ${DELTAS}` }, {
      frameTimeoutMs: 30_000,
    });
    const ms = performance.now() - started;
    if (outcome.turnEnded === undefined) throw new Error("The benchmark turn did not end");
    return { frames: outcome.frames.length, ms };
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
