/**
 * Both transports, and the Node entry's default (no `transport` setting), over a real
 * network, side by side in one run: the emulator in its own
 * process over TLS (ALPN h2 and http/1.1 on one port, as Cursor serves), behind its
 * emulated network at 0 ms and at 30 ms one-way latency; the client is the Node entry
 * under Node (`scripts/bench/network/client.ts`, trusting the emulator's local CA through
 * `NODE_EXTRA_CA_CERTS`). Per transport: first text at turn 1 (a new conversation) and
 * turn 10 of 10-turn sessions, new connections per warm turn, bytes uploaded at turn 10,
 * and the client's CPU for a 10,000-delta reply.
 *
 * Targets at 30 ms: turn-10 first text on the default transport ≤ 1.1× HTTP/2's and
 * ≤ 2.5 round trips; 0 new connections per warm turn on either transport; HTTP/2 CPU per
 * 10k deltas ≤ 1.0× SSE's.
 *
 * `BENCH_SESSIONS` (default 15) and `BENCH_CPU_ROUNDS` (default 3) shorten a run.
 * Prints `network: key=value` lines, the last one
 * `network: defaultTurn10OverH2=R roundTrips=R newConnsPerWarmTurn=N h2CpuOverSse=R`.
 *
 * @module
 */
import { bundleForNode } from "../lib/node-bundle.ts";
import { runCaptured } from "../lib/test-files.ts";

const LATENCIES = [0, 30];
const CA = "test/testing/fixtures/local-ca.pem";

interface Figures {
  readonly turn1Ms: number;
  readonly turn10Ms: number;
  readonly turn1Connections: number;
  readonly connectionsPerWarmTurn: number;
  readonly bytesUpTurn10: number;
  readonly cpuPer10kDeltasMs: number;
}
interface ClientResult {
  readonly latencyMs: number;
  readonly sse: Figures;
  readonly http2: Figures;
  /** The Node entry with no `transport` setting (`"auto"`, ADR 182). */
  readonly default: Figures;
}

const client = (await bundleForNode(["scripts/bench/network/client.ts"], ".build/bench-network"))
  ?.[0];
if (client === undefined) {
  console.error("network: esbuild failed");
  Deno.exit(1);
}

async function measure(client: string, latencyMs: number): Promise<ClientResult> {
  const env = { NODE_EXTRA_CA_CERTS: CA, BENCH_LATENCY_MS: `${latencyMs}` };
  const run = await runCaptured("node", [client], 9 * 60 * 1000, env);
  const line = run.output.split("\n").find((text) => text.startsWith("network-client: "));
  if (run.code !== 0 || line === undefined) {
    throw new Error(
      `The client at ${latencyMs} ms failed (${run.code}): ${run.output.slice(-2000)}`,
    );
  }
  return JSON.parse(line.slice("network-client: ".length)) as ClientResult;
}

const ms = (value: number) => value.toFixed(1);
const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b).toFixed(2);

let last: ClientResult | undefined;
for (const latencyMs of LATENCIES) {
  const result = await measure(client, latencyMs);
  last = result;
  const { sse, http2 } = result;
  const byDefault = result.default;
  const at = `latency_ms=${latencyMs}`;
  console.log(
    `network: ${at} turn1_sse_ms=${ms(sse.turn1Ms)} turn1_http2_ms=${ms(http2.turn1Ms)} ratio=${
      ratio(sse.turn1Ms, http2.turn1Ms)
    }`,
  );
  console.log(
    `network: ${at} turn10_sse_ms=${ms(sse.turn10Ms)} turn10_http2_ms=${ms(http2.turn10Ms)} ratio=${
      ratio(sse.turn10Ms, http2.turn10Ms)
    }`,
  );
  console.log(
    `network: ${at} cpu_10k_deltas_sse_ms=${ms(sse.cpuPer10kDeltasMs)} cpu_10k_deltas_http2_ms=${
      ms(http2.cpuPer10kDeltasMs)
    } ratio=${ratio(http2.cpuPer10kDeltasMs, sse.cpuPer10kDeltasMs)}`,
  );
  console.log(
    `network: ${at} bytes_up_turn10_sse=${sse.bytesUpTurn10} bytes_up_turn10_http2=${http2.bytesUpTurn10} ratio=${
      ratio(sse.bytesUpTurn10, http2.bytesUpTurn10)
    }`,
  );
  console.log(
    `network: ${at} default_turn1_ms=${ms(byDefault.turn1Ms)} default_turn10_ms=${
      ms(byDefault.turn10Ms)
    } default_bytes_up_turn10=${byDefault.bytesUpTurn10} default_cpu_10k_deltas_ms=${
      ms(byDefault.cpuPer10kDeltasMs)
    } default_new_conns_per_warm_turn=${byDefault.connectionsPerWarmTurn.toFixed(2)}`,
  );
  console.log(
    `network: ${at} new_conns_turn1_sse=${sse.turn1Connections} new_conns_turn1_http2=${http2.turn1Connections} new_conns_per_warm_turn_sse=${
      sse.connectionsPerWarmTurn.toFixed(2)
    } new_conns_per_warm_turn_http2=${http2.connectionsPerWarmTurn.toFixed(2)}`,
  );
}
if (last !== undefined) {
  const byDefault = last.default;
  const roundTripMs = 2 * last.latencyMs;
  const warm = Math.max(
    last.sse.connectionsPerWarmTurn,
    last.http2.connectionsPerWarmTurn,
    byDefault.connectionsPerWarmTurn,
  );
  console.log(`network: default_transport=auto (no setting) at latency_ms=${last.latencyMs}`);
  console.log(
    `network: defaultTurn10OverH2=${ratio(byDefault.turn10Ms, last.http2.turn10Ms)} roundTrips=${
      ratio(byDefault.turn10Ms, roundTripMs)
    } newConnsPerWarmTurn=${warm.toFixed(2)} h2CpuOverSse=${
      ratio(last.http2.cpuPer10kDeltasMs, last.sse.cpuPer10kDeltasMs)
    }`,
  );
}
