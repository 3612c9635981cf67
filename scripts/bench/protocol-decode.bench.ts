/**
 * Decode throughput of a realistic server stream — 10,000 text-delta frames plus a
 * 1 MiB checkpoint, split into uneven chunks — through the envelope decoder and
 * `fromBinary`, side by side with a bare loop of `fromBinary` over the same pre-split
 * messages (the baseline). Target: ratio ≤ 1.2.
 *
 * Prints `protocol-decode: key=value` lines.
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { encodeEnvelope, EnvelopeDecoder } from "../../src/protocol/envelope.ts";

const DELTAS = 10_000;
const messages: Uint8Array[] = [];
for (let i = 0; i < DELTAS; i++) {
  messages.push(toBinary(
    AgentServerMessageSchema,
    create(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: { message: { case: "textDelta", value: { text: `token ${i} of the answer ` } } },
      },
    }),
  ));
}
const checkpoint = toBinary(
  AgentServerMessageSchema,
  create(AgentServerMessageSchema, {
    message: {
      case: "conversationCheckpointUpdate",
      value: {
        rootPromptMessagesJson: Array.from(
          { length: 32 * 1024 },
          (_, i) => new Uint8Array(32).fill(i & 255),
        ),
        tokenDetails: { usedTokens: 120_000, maxTokens: 200_000 },
      },
    },
  }),
);
messages.push(checkpoint);
const stream = concat(messages.map((m) => encodeEnvelope(m)));
const chunks = unevenChunks(stream);
const totalBytes = stream.length;

function baseline(): number {
  let count = 0;
  for (const message of messages) {
    fromBinary(AgentServerMessageSchema, message);
    count++;
  }
  return count;
}

function decodeStream(): number {
  const decoder = new EnvelopeDecoder();
  let count = 0;
  for (const chunk of chunks) {
    for (const envelope of decoder.push(chunk)) {
      fromBinary(AgentServerMessageSchema, envelope.data);
      count++;
    }
  }
  decoder.finish();
  return count;
}

function measure(run: () => number, rounds: number): number {
  for (let i = 0; i < 3; i++) run();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? 0;
}

const rounds = 15;
const baseMs = measure(baseline, rounds);
const streamMs = measure(decodeStream, rounds);
const frames = messages.length;
console.log(`protocol-decode: frames=${frames} bytes=${totalBytes} chunks=${chunks.length}`);
console.log(
  `protocol-decode: baseline_frames_per_s=${
    Math.round(frames / (baseMs / 1000))
  } baseline_mb_per_s=${(totalBytes / 1e6 / (baseMs / 1000)).toFixed(1)}`,
);
console.log(
  `protocol-decode: stream_frames_per_s=${Math.round(frames / (streamMs / 1000))} stream_mb_per_s=${
    (totalBytes / 1e6 / (streamMs / 1000)).toFixed(1)
  }`,
);
console.log(
  `protocol-decode: ratio_vs_bare_fromBinary=${(streamMs / baseMs).toFixed(3)} target=1.2`,
);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function unevenChunks(bytes: Uint8Array): Uint8Array[] {
  const sizes = [1, 7, 64, 500, 1500, 4096, 16384, 3, 65536];
  const out: Uint8Array[] = [];
  for (let i = 0, k = 0; i < bytes.length; k++) {
    const size = sizes[k % sizes.length] ?? 1024;
    out.push(bytes.subarray(i, i + size));
    i += size;
  }
  return out;
}
