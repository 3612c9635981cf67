/**
 * The client half of `network.bench.ts`, run under Node (the Node entry, as OpenCode and
 * Node apps load it): starts the emulator over TLS behind its emulated network at one
 * one-way latency, then measures both transports side by side — first text at turn 1 (a
 * new conversation on a warm provider) and turn 10, connections and bytes per turn (the
 * emulator's network counts them), and this process's CPU for a 10,000-delta reply.
 * Trusts the emulator through `NODE_EXTRA_CA_CERTS` (set by the bench).
 *
 * Prints one JSON line: `network-client: {...}`.
 *
 * @module
 */
import process from "node:process";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createCursor } from "../../../node.ts";
import { startEmulatorProcess } from "../../lib/emulator-process.ts";

/** `default` is the Node entry with no `transport` setting (`"auto"`: HTTP/2 over TLS). */
type Kind = "sse" | "http2" | "default";
const KINDS: readonly Kind[] = ["sse", "http2", "default"];
const TURNS = 10;
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? "0");
const sessions = Number(process.env.BENCH_SESSIONS ?? "15");
const cpuRounds = Number(process.env.BENCH_CPU_ROUNDS ?? "3");

const emulator = await startEmulatorProcess({
  args: ["--no-auth", "--quiet", "--tls", "--latency", String(latencyMs)],
  lifetimeMs: 600_000,
});
const providers = Object.fromEntries(KINDS.map((kind) => [
  kind,
  createCursor({
    accessToken: "bench",
    apiBaseURL: emulator.url,
    agentBaseURL: emulator.url,
    allowLoopback: true,
    ...(kind === "default" ? {} : { transport: kind }),
    env: {},
  }),
])) as Record<Kind, ReturnType<typeof createCursor>>;

/** One turn: the time to its first text and its whole reply. */
async function turn(
  kind: Kind,
  prompt: LanguageModelV3Prompt,
  sessionId: string,
): Promise<{ first: number; reply: string }> {
  const started = performance.now();
  const { stream } = await providers[kind]("gpt-5").doStream({
    prompt,
    providerOptions: { cursor: { sessionId } },
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
  return { first, reply };
}

interface TurnFigures {
  readonly first: number;
  readonly connections: number;
  readonly bytesUp: number;
}

/** A session of `TURNS` turns, with each turn's network traffic. */
async function session(kind: Kind, name: string): Promise<TurnFigures[]> {
  const prompt: LanguageModelV3Prompt = [];
  const figures: TurnFigures[] = [];
  for (let n = 1; n <= TURNS; n++) {
    const text = `Turn ${n}: ${"some words of history ".repeat(40)}\n::text Reply ${n}`;
    prompt.push({ role: "user", content: [{ type: "text", text }] });
    const before = await emulator.network();
    const { first, reply } = await turn(kind, prompt, name);
    const after = await emulator.network();
    figures.push({
      first,
      connections: after.connections - before.connections,
      bytesUp: after.bytesUp - before.bytesUp,
    });
    prompt.push({ role: "assistant", content: [{ type: "text", text: reply }] });
  }
  return figures;
}

/** This process's CPU (ms) for one 10,000-delta reply. */
async function deltasCpu(kind: Kind, round: number): Promise<number> {
  const prompt: LanguageModelV3Prompt = [
    { role: "user", content: [{ type: "text", text: "::deltas 10000" }] },
  ];
  const started = process.cpuUsage();
  const { reply } = await turn(kind, prompt, `cpu-${kind}-${round}`);
  const used = process.cpuUsage(started);
  if (reply.length === 0) throw new Error(`No reply over ${kind}`);
  return (used.user + used.system) / 1000;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

try {
  const runs: Record<Kind, TurnFigures[][]> = { sse: [], http2: [], default: [] };
  const cpu: Record<Kind, number[]> = { sse: [], http2: [], default: [] };
  for (const kind of KINDS) await session(kind, `warm-up-${kind}`);
  for (let i = 0; i < sessions; i++) {
    for (const kind of KINDS) runs[kind].push(await session(kind, `${kind}-${i}`));
  }
  for (let i = 0; i < cpuRounds; i++) {
    for (const kind of KINDS) cpu[kind].push(await deltasCpu(kind, i));
  }
  const at = (kind: Kind, n: number, pick: (figures: TurnFigures) => number) =>
    median(
      runs[kind].flatMap((figures) => {
        const figure = figures[n - 1];
        return figure === undefined ? [] : [pick(figure)];
      }),
    );
  const warmConnections = (kind: Kind) =>
    runs[kind].reduce(
      (sum, figures) => sum + figures.slice(1).reduce((s, f) => s + f.connections, 0),
      0,
    ) / (runs[kind].length * (TURNS - 1));
  const result = Object.fromEntries(KINDS.map((kind) => [kind, {
    turn1Ms: at(kind, 1, (f) => f.first),
    turn10Ms: at(kind, 10, (f) => f.first),
    turn1Connections: at(kind, 1, (f) => f.connections),
    connectionsPerWarmTurn: warmConnections(kind),
    bytesUpTurn10: at(kind, 10, (f) => f.bytesUp),
    cpuPer10kDeltasMs: median(cpu[kind]),
  }]));
  console.log(`network-client: ${JSON.stringify({ latencyMs, sessions, ...result })}`);
} finally {
  await emulator.stop();
}
