/**
 * The provider's own cost, side by side with a baseline in the same run, against the
 * emulator on loopback:
 *
 * - time to first text: `doStream` to the first `text-delta` part, minus the time a bare
 *   transport client (RunSSE + BidiAppend, frames decoded, nothing else) takes to see the
 *   first text frame of the same reply (p50, p99). Target: ≤ 5 ms p50 overhead.
 * - streaming cost: a 10,000-delta reply through the provider, as a ratio to the bare
 *   client reading the same reply (target ≤ 1.5).
 *
 * Prints `provider: key=value` lines.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { AgentRunRequestSchema } from "../../src/gen/agent/v1/run_request_pb.ts";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { encodeRunRequestMessage } from "../../src/protocol/run-request-bytes.ts";
import { createSseTransport } from "../../src/transport/sse-transport.ts";
import { createCursor } from "../../node.ts";
import { startCursorEmulator } from "../../src/testing/mod.ts";
import process from "node:process";

const emulator = await startCursorEmulator({ auth: { required: false }, log: false });
const cursor = createCursor({
  accessToken: "bench",
  apiBaseURL: emulator.url,
  agentBaseURL: emulator.url,
  allowLoopback: true,
  env: {},
});
const transport = createSseTransport();

/** Bare client: open a Run, send the request, read frames until `stop` says so. */
async function bareRun(
  text: string,
  stop: (frames: number, hasText: boolean) => boolean,
): Promise<number> {
  const started = performance.now();
  const stream = await transport.openRun({
    agentBaseURL: emulator.url,
    headers: { authorization: "Bearer bench" },
    requestId: crypto.randomUUID(),
  });
  const request = create(AgentRunRequestSchema, {
    conversationId: crypto.randomUUID(),
    action: {
      action: {
        case: "userMessageAction",
        value: { userMessage: { text, messageId: crypto.randomUUID() } },
      },
    },
    requestedModel: { modelId: "gpt-5" },
  });
  await stream.send(encodeRunRequestMessage(request, new Uint8Array(0)));
  let frames = 0;
  let elapsed = 0;
  for await (const frame of stream.frames) {
    if (frame.kind !== "message") break;
    const message = fromBinary(AgentServerMessageSchema, frame.bytes);
    if (
      message.message.case === "execServerMessage" &&
      message.message.value.message.case === "requestContextArgs"
    ) {
      await stream.send(replyRequestContext(message.message.value.id));
    }
    if (message.message.case === "kvServerMessage") {
      await stream.send(ackBlob(message.message.value.id));
    }
    const hasText = message.message.case === "interactionUpdate" &&
      message.message.value.message.case === "textDelta";
    if (hasText) frames++;
    if (stop(frames, hasText)) {
      elapsed = performance.now() - started;
      break;
    }
  }
  stream.close();
  return elapsed || performance.now() - started;
}

function replyRequestContext(id: number): Uint8Array {
  return toBinary(
    AgentClientMessageSchema,
    create(AgentClientMessageSchema, {
      message: {
        case: "execClientMessage",
        value: {
          id,
          message: {
            case: "requestContextResult",
            value: { result: { case: "success", value: { requestContext: {} } } },
          },
        },
      },
    }),
  );
}

/** The bare client holds no blob store; it acknowledges SETs (GETs do not occur on a cold Run). */
function ackBlob(id: number): Uint8Array {
  return toBinary(
    AgentClientMessageSchema,
    create(AgentClientMessageSchema, {
      message: {
        case: "kvClientMessage",
        value: { id, message: { case: "setBlobResult", value: {} } },
      },
    }),
  );
}

async function providerRun(text: string, stopAtFirstText: boolean): Promise<number> {
  const started = performance.now();
  const controller = new AbortController();
  const { stream } = await cursor("gpt-5").doStream({
    prompt: [{ role: "user", content: [{ type: "text", text }] }],
    abortSignal: controller.signal,
  });
  const reader = stream.getReader();
  let elapsed = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (stopAtFirstText && value.type === "text-delta") {
      elapsed = performance.now() - started;
      controller.abort();
      await reader.cancel();
      break;
    }
  }
  return elapsed || performance.now() - started;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

try {
  const rounds = 40;
  const bare: number[] = [];
  const provider: number[] = [];
  for (let i = 0; i < 5; i++) {
    await bareRun("::text warm up", (_, hasText) => hasText);
    await providerRun("::text warm up", true);
  }
  for (let i = 0; i < rounds; i++) {
    bare.push(await bareRun("::text first words", (_, hasText) => hasText));
    provider.push(await providerRun("::text first words", true));
  }
  const overhead = provider.map((value, i) => value - (bare[i] ?? 0));
  console.log(
    `provider: ttft_bare_p50_ms=${percentile(bare, 50).toFixed(2)} ttft_bare_p99_ms=${
      percentile(bare, 99).toFixed(2)
    }`,
  );
  console.log(
    `provider: ttft_provider_p50_ms=${percentile(provider, 50).toFixed(2)} ttft_provider_p99_ms=${
      percentile(provider, 99).toFixed(2)
    }`,
  );
  console.log(
    `provider: ttft_overhead_p50_ms=${percentile(overhead, 50).toFixed(2)} ttft_overhead_p99_ms=${
      percentile(overhead, 99).toFixed(2)
    } target_p50_ms=5`,
  );

  const deltas = 10_000;
  const bareStream: number[] = [];
  const providerStream: number[] = [];
  let bareCpu = 0;
  let providerCpu = 0;
  for (let i = 0; i < 3; i++) {
    const a = process.cpuUsage();
    bareStream.push(await bareRun(`::deltas ${deltas}`, (frames) => frames >= deltas));
    const b = process.cpuUsage(a);
    bareCpu += b.user + b.system;
    const c = process.cpuUsage();
    providerStream.push(await providerRun(`::deltas ${deltas}`, false));
    const d = process.cpuUsage(c);
    providerCpu += d.user + d.system;
  }
  const bareMs = percentile(bareStream, 50);
  const providerMs = percentile(providerStream, 50);
  console.log(
    `provider: stream_${deltas}_bare_ms=${bareMs.toFixed(1)} stream_${deltas}_provider_ms=${
      providerMs.toFixed(1)
    }`,
  );
  console.log(`provider: stream_ratio_vs_bare=${(providerMs / bareMs).toFixed(3)} target=1.5`);
  console.log(
    `provider: cpu_per_${deltas}_deltas_bare_ms=${
      (bareCpu / 3000).toFixed(1)
    } cpu_per_${deltas}_deltas_provider_ms=${(providerCpu / 3000).toFixed(1)} cpu_ratio_vs_bare=${
      (providerCpu / bareCpu).toFixed(3)
    } (both include the in-process emulator)`,
  );
} finally {
  await emulator.close();
}
