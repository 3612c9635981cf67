/**
 * A long session: 200 sequential turns of one conversation with a tool call every 5th
 * turn, SSE and HTTP/2 side by side, against the emulator on loopback in a separate
 * process. Per-turn cost must not grow with history: on a warm server a turn's client
 * messages (on SSE each one `BidiAppend`) stay flat, so turn time does too.
 *
 * Each turn is played through `doStream` as a host would (tool calls answered with a second
 * pass), so the numbers are the provider's and the server's, not the host framework's (the
 * AI SDK validates the whole prompt on every call). Reports, for turns 10, 100 and 200 on
 * each transport: the turn time and the CPU time of both processes (means of the ten turns
 * ending there, two of them tool turns, the slowest left out; CPU time is steadier on a
 * shared machine) and the client messages the turn sent (BidiAppends on SSE). Goal: turn
 * 200 ÷ turn 10 ≤ 1.5 on both transports.
 *
 * A third, shorter session (SSE, 60 turns) runs against a cold server (a new instance
 * every Run: `--cold-server`), where the history must travel every turn; the client
 * pushes it up front (every 8th turn it probes without, paying the GETs), so its appends
 * stay nearly flat while its bytes grow (means over the ten turns ending at 10 and 60).
 *
 * Prints `long-session: key=value` lines.
 *
 * @module
 */
import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3ToolCall,
} from "@ai-sdk/provider";
import { readFileSync } from "node:fs";
import { cpuUsage } from "node:process";
import { createCursor } from "../../node.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import type { AgentTransport } from "../../src/transport/agent-transport.ts";
import { startEmulatorProcess } from "../lib/emulator-process.ts";

const TURNS = 200;
const COLD_TURNS = 60;
const TOOL_EVERY = 5;
const WINDOW = 10;
const deadline = setTimeout(() => {
  console.error("long-session: gave up after 5 minutes");
  Deno.exit(1);
}, 5 * 60 * 1000);

const bash: LanguageModelV3FunctionTool = {
  type: "function",
  name: "bash",
  description: "Run a shell command",
  inputSchema: {
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
  },
};

/** CPU ms used so far by this process and the emulator process (Linux `/proc`, else 0). */
function cpuMs(emulatorPid: number | undefined): number {
  const own = cpuUsage();
  let child = 0;
  try {
    const fields = readFileSync(`/proc/${emulatorPid}/stat`, "utf8").split(") ")[1]?.split(" ");
    child = (Number(fields?.[11] ?? 0) + Number(fields?.[12] ?? 0)) * 10;
  } catch {
    child = 0;
  }
  return (own.user + own.system) / 1000 + child;
}

/** Counts client messages: SSE BidiAppends through fetch, HTTP/2 frames through the stream. */
function counted(transport: AgentTransport, count: () => void): AgentTransport {
  return {
    kind: transport.kind,
    openRun: async (options) => {
      const stream = await transport.openRun(options);
      return {
        frames: stream.frames,
        close: () => stream.close(),
        send: (message) => {
          count();
          return stream.send(message);
        },
      };
    },
  };
}

interface TurnSample {
  readonly ms: number;
  readonly cpuMs: number;
  readonly messages: number;
  readonly uploaded: number;
  readonly tool: boolean;
}

/** One turn through `doStream`, answering tool calls the way a host does (a second pass). */
async function playTurn(
  model: ReturnType<ReturnType<typeof createCursor>>,
  prompt: LanguageModelV3Prompt,
  sessionId: string,
): Promise<void> {
  for (let pass = 0; pass < 3; pass++) {
    const { stream } = await model.doStream({
      prompt,
      tools: [bash],
      providerOptions: { cursor: { sessionId } },
    });
    let text = "";
    const calls: LanguageModelV3ToolCall[] = [];
    for await (const part of stream) {
      if (part.type === "text-delta") text += part.delta;
      if (part.type === "tool-call") calls.push(part);
      if (part.type === "error") throw part.error;
    }
    prompt.push({
      role: "assistant",
      content: [
        ...(text === "" ? [] : [{ type: "text" as const, text }]),
        ...calls.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: JSON.parse(call.input),
        })),
      ],
    });
    if (calls.length === 0) return;
    prompt.push({
      role: "tool",
      content: calls.map((call) => ({
        type: "tool-result" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "text" as const, value: "ok" },
      })),
    });
  }
}

async function session(
  kind: "sse" | "http2",
  emulator: { url: string; http2Url: string; pid: number | undefined },
  turns: number,
  http2: AgentTransport,
): Promise<TurnSample[]> {
  let appends = 0;
  let frames = 0;
  let uploaded = 0;
  const countingFetch: typeof fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.endsWith("BidiService/BidiAppend")) {
      appends++;
      if (init?.body instanceof Uint8Array) uploaded += init.body.length;
    }
    return fetch(input, init);
  };
  const cursor = createCursor({
    accessToken: "bench",
    apiBaseURL: emulator.url,
    agentBaseURL: kind === "http2" ? emulator.http2Url : emulator.url,
    allowLoopback: true,
    transport: kind === "http2" ? counted(http2, () => frames++) : "sse",
    fetch: countingFetch,
    env: {},
    conversationSnapshots: false,
  });
  const model = cursor("gpt-5");
  const prompt: LanguageModelV3Prompt = [];
  const samples: TurnSample[] = [];
  const sessionId = `long-${kind}-${crypto.randomUUID()}`;
  for (let turn = 1; turn <= turns; turn++) {
    const tool = turn % TOOL_EVERY === 0;
    const directive = tool ? `::shell echo step-${turn}\n` : "";
    const text = `${directive}::text Turn ${turn} done. Step ${turn} of the plan is complete.`;
    prompt.push({ role: "user", content: [{ type: "text", text }] });
    const before = { appends, frames, uploaded, cpu: cpuMs(emulator.pid) };
    const started = performance.now();
    await playTurn(model, prompt, sessionId);
    samples.push({
      ms: performance.now() - started,
      cpuMs: cpuMs(emulator.pid) - before.cpu,
      messages: kind === "sse" ? appends - before.appends : frames - before.frames,
      uploaded: uploaded - before.uploaded,
      tool,
    });
  }
  return samples;
}

/** Mean of the `WINDOW` turns ending at `turn` (two of them tool turns), the slowest left out. */
function windowMean(
  samples: readonly TurnSample[],
  turn: number,
  metric: "ms" | "cpuMs" = "ms",
): number {
  const values = samples.slice(Math.max(0, turn - WINDOW), turn).map((sample) => sample[metric])
    .sort((a, b) => a - b).slice(0, -1);
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

const line = (key: string, value: string | number) => console.log(`long-session: ${key}=${value}`);
const warm = await startEmulatorProcess({ args: ["--no-auth", "--quiet"], lifetimeMs: 300_000 });
const cold = await startEmulatorProcess({
  args: ["--no-auth", "--quiet", "--cold-server"],
  lifetimeMs: 300_000,
});
const http2 = createHttp2Transport();
try {
  const started = performance.now();
  await session("sse", warm, 5, http2);
  await session("http2", warm, 5, http2);
  const runs = {
    sse: await session("sse", warm, TURNS, http2),
    http2: await session("http2", warm, TURNS, http2),
  };
  for (const turn of [10, 100, 200]) {
    const at = (kind: "sse" | "http2") =>
      `${kind}_ms=${windowMean(runs[kind], turn).toFixed(1)} ${kind}_cpu_ms=${
        windowMean(runs[kind], turn, "cpuMs").toFixed(1)
      } ${kind === "sse" ? "sse_appends" : "http2_client_messages"}=${
        runs[kind][turn - 1]?.messages
      }`;
    line(`turn${turn}`, `${at("sse")} ${at("http2")}`);
  }
  for (const kind of ["sse", "http2"] as const) {
    const ratio = (metric: "ms" | "cpuMs") =>
      (windowMean(runs[kind], 200, metric) / windowMean(runs[kind], 10, metric)).toFixed(2);
    line(`${kind}_turn200_vs_turn10`, `${ratio("ms")} cpu=${ratio("cpuMs")} target=1.5`);
  }
  const coldRun = await session("sse", cold, COLD_TURNS, http2);
  for (const turn of [10, COLD_TURNS]) {
    const window = coldRun.slice(turn - WINDOW, turn);
    const mean = (pick: (sample: TurnSample) => number) =>
      (window.reduce((sum, sample) => sum + pick(sample), 0) / window.length).toFixed(0);
    line(
      `cold_server_turn${turn}`,
      `sse_ms=${windowMean(coldRun, turn).toFixed(1)} sse_appends_mean=${
        mean((sample) => sample.messages)
      } sse_uploaded_bytes_mean=${mean((sample) => sample.uploaded)}`,
    );
  }
  line("seconds", ((performance.now() - started) / 1000).toFixed(1));
} finally {
  clearTimeout(deadline);
  http2.close();
  await warm.stop();
  await cold.stop();
}
