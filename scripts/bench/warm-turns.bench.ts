/**
 * Time to first text as a conversation grows, SSE and HTTP/2 side by side in one run,
 * against the emulator on loopback in a separate process (as Cursor is: its work does not
 * share this process's event loop). A 10-turn session on a warm server (it keeps the
 * conversation's blobs, ADR 100): nothing a turn sends grows with the history, so time to
 * first text stays flat; what SSE still pays over HTTP/2 is one HTTP request per client
 * message before the first text (the run request and the request-context answer).
 *
 * Targets: SSE turn 10 ÷ SSE turn 1 ≤ 1.3; SSE turn 10 ÷ HTTP/2 turn 10 ≤ 1.5 (medians
 * over 15 sessions of each, alternating). The emulator runs `--quiet`: its request log
 * costs SSE a stream hop per chunk and a line per append that HTTP/2 does not pay.
 *
 * Prints `warm-turns: key=value` lines.
 *
 * @module
 */
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createCursor } from "../../node.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { startEmulatorProcess } from "../lib/emulator-process.ts";

const TURNS = 10;
const SESSIONS = 15;
const emulator = await startEmulatorProcess({
  args: ["--no-auth", "--quiet"],
  lifetimeMs: 300_000,
});
const http2 = createHttp2Transport();

/** One session of `TURNS` turns; the time to the first text part of each turn, in ms. */
async function session(transport: "sse" | "http2", name: string): Promise<number[]> {
  const cursor = createCursor({
    accessToken: "bench",
    apiBaseURL: emulator.url,
    agentBaseURL: transport === "http2" ? emulator.http2Url : emulator.url,
    allowLoopback: true,
    transport: transport === "http2" ? http2 : "sse",
    env: {},
  });
  const prompt: LanguageModelV3Prompt = [];
  const times: number[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    const text = `Turn ${turn}: ${"some words of history ".repeat(40)}\n::text Reply ${turn}`;
    prompt.push({ role: "user", content: [{ type: "text", text }] });
    const started = performance.now();
    const { stream } = await cursor("gpt-5").doStream({
      prompt,
      providerOptions: { cursor: { sessionId: name } },
    });
    let first = 0;
    let reply = "";
    for await (const part of stream) {
      if (part.type === "text-delta") {
        if (first === 0) first = performance.now() - started;
        reply += part.delta;
      }
      if (part.type === "error") throw part.error;
    }
    times.push(first);
    prompt.push({ role: "assistant", content: [{ type: "text", text: reply }] });
  }
  return times;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

try {
  const runs: Record<"sse" | "http2", number[][]> = { sse: [], http2: [] };
  await session("sse", "warm-up-sse");
  await session("http2", "warm-up-http2");
  for (let i = 0; i < SESSIONS; i++) {
    runs.sse.push(await session("sse", `sse-${i}`));
    runs.http2.push(await session("http2", `http2-${i}`));
  }
  const at = (kind: "sse" | "http2", turn: number) =>
    median(runs[kind].map((times) => times[turn - 1] ?? 0));
  for (const turn of [1, 2, 5, 10]) {
    console.log(
      `warm-turns: turn=${turn} sse_ttft_ms=${at("sse", turn).toFixed(1)} http2_ttft_ms=${
        at("http2", turn).toFixed(1)
      }`,
    );
  }
  console.log(
    `warm-turns: sse_turn10_vs_turn1=${(at("sse", 10) / at("sse", 1)).toFixed(2)} target=1.3`,
  );
  console.log(
    `warm-turns: sse_vs_http2_turn10=${(at("sse", 10) / at("http2", 10)).toFixed(2)} target=1.5`,
  );
  console.log(
    `warm-turns: http2_turn10_vs_turn1=${(at("http2", 10) / at("http2", 1)).toFixed(2)}`,
  );
} finally {
  http2.close();
  await emulator.stop();
}
