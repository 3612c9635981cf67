/**
 * A 50 MB tool result on its way to Cursor, two ways, side by side with a baseline (one
 * `TextEncoder.encode` of the result: the least any client must touch):
 *
 * 1. End to end: a turn over SSE against the emulator in a separate process, in which the
 *    host's shell tool answers `::shell` with 50 MB of output. While the provider turns it
 *    into exec results (bounded, ADR 091) and sends them as BidiAppends, a 1 ms timer
 *    measures the longest event-loop block and RSS is sampled for the peak growth.
 * 2. The encoder alone: one 50 MB message hex-encoded into a `BidiAppend` a MiB at a time
 *    (what any message that large would cost): the longest synchronous slice, and peak
 *    memory growth ÷ message size.
 *
 * Targets: a few ms per MB of result; memory ÷ size ≤ 3.
 *
 * Prints `tool-output: key=value` lines.
 *
 * @module
 */
import type { LanguageModelV3Prompt, LanguageModelV3ToolCall } from "@ai-sdk/provider";
import { createCursor } from "../../node.ts";
import { encodeBidiAppendInSteps } from "../../src/protocol/bidi-append.ts";
import { startEmulatorProcess } from "../lib/emulator-process.ts";

const SIZE = 50 * 1024 * 1024;
const MB = SIZE / (1024 * 1024);
const line = (key: string, value: string | number) => console.log(`tool-output: ${key}=${value}`);

/** Watches the event loop and RSS until stopped. */
function watchLoop(): () => { longestBlockMs: number; peakRss: number } {
  let last = performance.now();
  let longest = 0;
  let peak = Deno.memoryUsage().rss;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    peak = Math.max(peak, Deno.memoryUsage().rss);
  }, 1);
  return () => {
    clearInterval(timer);
    return { longestBlockMs: longest, peakRss: Math.max(peak, Deno.memoryUsage().rss) };
  };
}

function bigOutput(): string {
  // A flat string, as the host's JSON gives it.
  return ["0123456789abcdef\n".repeat(Math.ceil(SIZE / 17)).slice(0, SIZE)].join("");
}

function baseline(output: string): { ms: number; rssGrowth: number } {
  const before = Deno.memoryUsage().rss;
  const started = performance.now();
  const bytes = new TextEncoder().encode(output);
  const ms = performance.now() - started;
  const rssGrowth = Math.max(0, Deno.memoryUsage().rss - before);
  if (bytes.length !== SIZE) throw new Error("unexpected size");
  return { ms, rssGrowth };
}

async function endToEnd(output: string): Promise<{ longestBlockMs: number; rssGrowth: number }> {
  const emulator = await startEmulatorProcess({ args: ["--no-auth", "--quiet"] });
  try {
    const cursor = createCursor({
      accessToken: "bench",
      apiBaseURL: emulator.url,
      allowLoopback: true,
      transport: "sse",
      env: {},
      conversationSnapshots: false,
    });
    const model = cursor("gpt-5");
    const bash = {
      type: "function" as const,
      name: "bash",
      inputSchema: { type: "object" as const, properties: { command: { type: "string" } } },
    };
    const prompt: LanguageModelV3Prompt = [
      { role: "user", content: [{ type: "text", text: "::shell cat big.log\n::text done" }] },
    ];
    const options = { tools: [bash], providerOptions: { cursor: { sessionId: "big" } } };
    const calls: LanguageModelV3ToolCall[] = [];
    for await (const part of (await model.doStream({ prompt, ...options })).stream) {
      if (part.type === "tool-call") calls.push(part);
    }
    const call = calls[0];
    if (call === undefined) throw new Error("no tool call");
    const nonce = /__CURSOR_EXEC_EXIT_([A-Za-z0-9]+)=/.exec(call.input)?.[1] ?? "";
    prompt.push(
      {
        role: "assistant",
        content: [{
          type: "tool-call",
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: JSON.parse(call.input),
        }],
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: { type: "text", value: `${output}\n__CURSOR_EXEC_EXIT_${nonce}=0__\n` },
        }],
      },
    );
    const before = Deno.memoryUsage().rss;
    const stop = watchLoop();
    let text = "";
    for await (const part of (await model.doStream({ prompt, ...options })).stream) {
      if (part.type === "text-delta") text += part.delta;
      if (part.type === "error") throw part.error;
    }
    const seen = stop();
    if (!/done/.test(text)) throw new Error(`the turn did not finish: ${text}`);
    return { longestBlockMs: seen.longestBlockMs, rssGrowth: Math.max(0, seen.peakRss - before) };
  } finally {
    await emulator.stop();
  }
}

function encoderAlone(): { longestSliceMs: number; totalMs: number; rssGrowth: number } {
  const message = new Uint8Array(SIZE).fill(0x5a);
  const before = Deno.memoryUsage().rss;
  const steps = encodeBidiAppendInSteps("bench", 1, message);
  let longest = 0;
  const started = performance.now();
  for (;;) {
    const sliceStarted = performance.now();
    const step = steps.next();
    longest = Math.max(longest, performance.now() - sliceStarted);
    if (step.done === true) {
      if (step.value.length < SIZE * 2) throw new Error("short body");
      break;
    }
  }
  const totalMs = performance.now() - started;
  return {
    longestSliceMs: longest,
    totalMs,
    rssGrowth: Math.max(0, Deno.memoryUsage().rss - before),
  };
}

const output = bigOutput();
const base = baseline(output);
const turn = await endToEnd(output);
const encoder = encoderAlone();
line("result_mb", MB);
line("baseline_encode_ms", base.ms.toFixed(1));
line("turn_longest_block_ms", turn.longestBlockMs.toFixed(1));
line("turn_block_ms_per_mb", (turn.longestBlockMs / MB).toFixed(2));
line("turn_block_vs_baseline", (turn.longestBlockMs / base.ms).toFixed(2));
line("turn_peak_memory_over_size", (turn.rssGrowth / SIZE).toFixed(2));
line("append_encode_total_ms", encoder.totalMs.toFixed(1));
line("append_longest_slice_ms", encoder.longestSliceMs.toFixed(1));
line("append_peak_memory_over_size", (encoder.rssGrowth / SIZE).toFixed(2));
