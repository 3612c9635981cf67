/**
 * Warm continuation, measured against the emulator in one run:
 *
 * - upload per warm turn as a function of the new content: a 10-turn session whose user
 *   messages vary in size; a least-squares fit `upload = slope · content + overhead` over
 *   the warm turns of what the client chooses to send (the run request). Target: slope
 *   ≤ 1.1 (the fixed overhead is the request context, the checkpoint and the request's
 *   fields). Blob bodies the server asks for (KV `get_blob`) are reported apart: they
 *   are demanded by the service, whose state lives in the client's blob store. The wire
 *   slope is printed too: BidiAppend carries messages as hex, which doubles every byte.
 * - cache reads: the session's cache-read tokens ÷ the emulator's ideal (longest
 *   byte-identical prefix), target ≥ 0.9.
 *
 * Prints `continuity: key=value` lines.
 *
 * @module
 */
import { fromBinary } from "@bufbuild/protobuf";
import { type ModelMessage, streamText } from "ai";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { decodeBidiAppend } from "../../src/protocol/bidi-append.ts";
import { createCursor } from "../../node.ts";
import { startCursorEmulator } from "../../src/testing/mod.ts";

const SIZES = [200, 2_000, 20_000, 500, 5_000, 50_000, 1_000, 10_000, 100, 30_000];
const emulator = await startCursorEmulator({ auth: { required: false }, log: false });
interface Upload {
  wire: number;
  runRequest: number;
  blobs: number;
  other: number;
}
const uploads = new Map<string, Upload>();

const countingFetch: typeof fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (url.endsWith("/BidiAppend") && init?.body instanceof Uint8Array) {
    const append = decodeBidiAppend(init.body);
    const message = fromBinary(AgentClientMessageSchema, append.message);
    if (message.message.case !== "clientHeartbeat") {
      const entry = uploads.get(append.requestId) ?? { wire: 0, runRequest: 0, blobs: 0, other: 0 };
      if (message.message.case === "runRequest") {
        entry.runRequest += append.message.length;
        entry.wire += init.body.length;
      } else if (message.message.case === "kvClientMessage") entry.blobs += append.message.length;
      else entry.other += append.message.length;
      uploads.set(append.requestId, entry);
    }
  }
  return await fetch(input, init);
};

try {
  const cursor = createCursor({
    accessToken: "bench",
    apiBaseURL: emulator.url,
    agentBaseURL: emulator.url,
    allowLoopback: true,
    fetch: countingFetch,
    env: {},
  });
  const messages: ModelMessage[] = [];
  const contents: number[] = [];
  for (const [turn, size] of SIZES.entries()) {
    const text = `Turn ${turn + 1}: ${"lorem ipsum ".repeat(Math.ceil(size / 12))}`.slice(0, size);
    contents.push(new TextEncoder().encode(text).length);
    messages.push({ role: "user", content: text });
    const result = streamText({
      model: cursor("gpt-5"),
      system: "You are a careful assistant.",
      messages,
      providerOptions: { cursor: { sessionId: "bench" } },
    });
    await result.text;
    messages.push(...(await result.response).messages);
  }
  const runs = emulator.runs();
  const none: Upload = { wire: 0, runRequest: 0, blobs: 0, other: 0 };
  const warm = runs.slice(1).map((run, i) => ({
    content: contents[i + 1] ?? 0,
    upload: uploads.get(run.requestId) ?? none,
  }));
  const fitMessages = fit(warm.map((w) => [w.content, w.upload.runRequest]));
  const fitWire = fit(warm.map((w) => [w.content, w.upload.wire]));
  const cold = uploads.get(runs[0]?.requestId ?? "");
  console.log(
    `continuity: turns=${runs.length} warm_turns=${
      runs.filter((r) => r.continuity === "warm").length
    } cold_run_request_bytes=${cold?.runRequest ?? 0}`,
  );
  console.log(
    `continuity: upload_slope=${fitMessages.slope.toFixed(3)} upload_fixed_overhead_bytes=${
      Math.round(fitMessages.intercept)
    } target_slope=1.1`,
  );
  console.log(
    `continuity: wire_slope=${fitWire.slope.toFixed(3)} wire_fixed_overhead_bytes=${
      Math.round(fitWire.intercept)
    } (hex BidiAppend)`,
  );
  for (const w of warm) {
    console.log(
      `continuity: warm_turn content_bytes=${w.content} run_request_bytes=${w.upload.runRequest} ratio=${
        (w.upload.runRequest / w.content).toFixed(3)
      } blob_bytes_served=${w.upload.blobs} other_bytes=${w.upload.other}`,
    );
  }
  const read = runs.reduce((n, r) => n + r.counters.cacheRead, 0);
  const ideal = runs.reduce((n, r) => n + r.idealCacheRead, 0);
  console.log(
    `continuity: cache_read_tokens=${read} ideal_cache_read_tokens=${ideal} cache_read_vs_ideal=${
      (read / Math.max(ideal, 1)).toFixed(3)
    } target=0.9`,
  );
  console.log(`continuity: violations=${emulator.violations().length}`);
} finally {
  await emulator.close();
}

function fit(points: [number, number][]): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}
