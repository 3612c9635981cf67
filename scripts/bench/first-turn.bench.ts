/**
 * The first turn of a fresh process, and its second (warm) turn, through the built npm
 * package on Node: each sample is a new `node` process that imports the package, creates
 * the provider and streams a short prompt on a new conversation to its first text, then
 * a second prompt on the same conversation, against the emulator in its own process, over
 * SSE and over HTTP/2. Run from the repository (a git work tree), so the first request
 * context reads git facts as it does in a project.
 *
 * Reports medians over alternating samples: `first_ms` (createCursor + doStream to the
 * first text-delta), `warm_ms` (the second turn's doStream to its first text-delta) and
 * `cpu_ms` (the process's CPU from createCursor to the end of the first turn, which the
 * machine's other work does not inflate as much as the wall clock).
 *
 * Usage: `deno run -A scripts/bench/first-turn.bench.ts [--baseline DIR] [--samples N]`;
 * `--baseline` also measures another build (e.g. a copy of an older `npm/`, with a
 * `node_modules` link) in alternation. Prints `first-turn: key=value` lines.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { runCaptured } from "../lib/test-files.ts";
import { startEmulatorProcess } from "../lib/emulator-process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { baseline: { type: "string" }, samples: { type: "string", default: "9" } },
});
const BUILD = ".build/bench-first-turn";
const SAMPLES = Number(values.samples);

/** The child: one fresh process, two turns; prints one JSON line. */
const CHILD = `
const [pkg, transport, apiUrl, agentUrl] = process.argv.slice(1);
const { createCursor } = await import(pkg + "/node.js");
const cpu = process.cpuUsage(); const created = performance.now();
const cursor = createCursor({ accessToken: "bench", apiBaseURL: apiUrl, agentBaseURL: agentUrl,
  allowLoopback: true, transport, env: {} });
const prompt = [];
async function turn(text) {
  prompt.push({ role: "user", content: [{ type: "text", text }] });
  const started = performance.now();
  const { stream } = await cursor("gpt-5").doStream({ prompt,
    providerOptions: { cursor: { sessionId: "first-turn-" + process.pid } } });
  let first = 0, reply = "";
  for await (const part of stream) {
    if (part.type === "error") throw part.error;
    if (part.type === "text-delta") { first ||= performance.now(); reply += part.delta; }
  }
  prompt.push({ role: "assistant", content: [{ type: "text", text: reply }] });
  return { started, first };
}
const one = await turn("Hello\\n::text Reply one");
const used = process.cpuUsage(cpu);
const two = await turn("Again\\n::text Reply two");
console.log(JSON.stringify({ first: one.first - created, warm: two.first - two.started,
  cpu: (used.user + used.system) / 1000 }));
process.exit(0);
`;

interface Sample {
  readonly first: number;
  readonly warm: number;
  readonly cpu: number;
}

async function sample(pkg: string, transport: "sse" | "http2", urls: string[]): Promise<Sample> {
  const url = new URL(pkg, `file://${Deno.cwd()}/`).href;
  const args = ["--input-type=module", "-e", CHILD, url, transport, ...urls];
  const child = await new Deno.Command("node", { args, stdout: "piped", stderr: "piped" })
    .output();
  const line = new TextDecoder().decode(child.stdout).trim().split("\n").pop() ?? "";
  if (!child.success) {
    throw new Error(`${pkg} ${transport}: ${new TextDecoder().decode(child.stderr)}`);
  }
  return JSON.parse(line) as Sample;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const built = await runCaptured("deno", ["run", "-A", "scripts/build.ts", "--out", BUILD], 300_000);
if (built.code !== 0) throw new Error(`Building ${BUILD} failed`);
const emulator = await startEmulatorProcess({
  args: ["--no-auth", "--quiet"],
  lifetimeMs: 540_000,
});
const builds = { current: BUILD, ...(values.baseline ? { baseline: values.baseline } : {}) };
const results = new Map<string, Sample[]>();
try {
  for (let i = 0; i < SAMPLES; i++) {
    for (const [name, pkg] of Object.entries(builds)) {
      for (const transport of ["sse", "http2"] as const) {
        const agent = transport === "http2" ? emulator.http2Url : emulator.url;
        const key = `build=${name} transport=${transport}`;
        results.set(key, [
          ...(results.get(key) ?? []),
          await sample(pkg, transport, [emulator.url, agent]),
        ]);
      }
    }
  }
} finally {
  await emulator.stop();
}
for (const [key, samples] of results) {
  const at = (pick: (s: Sample) => number) => median(samples.map(pick)).toFixed(1);
  console.log(
    `first-turn: ${key} first_ms=${at((s) => s.first)} warm_ms=${at((s) => s.warm)}` +
      ` cpu_ms=${at((s) => s.cpu)} samples=${samples.length}`,
  );
}
