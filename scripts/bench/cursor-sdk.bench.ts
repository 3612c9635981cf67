/**
 * Our client side by side with Cursor's own, `@cursor/sdk` (installed by
 * `scripts/lib/cursor-sdk-install.ts` into a cache outside the project; a test tool, never a
 * dependency), against one strict emulator over both transports: SSE over `http://` and
 * HTTP/2 over `https://` (the local CA, trusted with `NODE_EXTRA_CA_CERTS`).
 *
 * Every sample is a fresh Node process with a fresh `HOME`, so each pays the cold first turn
 * as a new user does. Two times, taken inside the process:
 *
 * - new agent: from just before the first call (ours: `createCursor`; the SDK's:
 *   `Agent.create`) to the first text of a short turn (ours: `doStream`'s first text delta;
 *   the SDK's: `send` and its stream's first assistant text);
 * - warm turn: the second turn of the same conversation (ours: the same provider, the
 *   history in the prompt and one `sessionId`; the SDK's: the same agent), call to first
 *   text.
 *
 * Our client runs as an npm app runs it: the npm package built once at the start
 * (`scripts/build.ts --out .build/bench-npm-cursor-sdk`), its `node.js` imported by a Node
 * program. Both clients run on the same Node, the one the cache holds for the SDK
 * (22.23.5), so the runtime is not the difference; both get the same environment (only
 * `HOME`, `PATH`, `CURSOR_BACKEND_URL`, `CURSOR_API_KEY`, and for HTTPS
 * `NODE_EXTRA_CA_CERTS`; ours is handed the same URL and key as settings). Imports happen
 * before the clock starts. The emulator (strict, API-key auth, no message log) is one TLS
 * emulator with a cleartext front serving its fetch handler; it runs in this script's
 * process, apart from every client's (which waits while a sample runs). Each sample's Runs
 * are checked: on the transport asked for, `ok`, the second one warm.
 *
 * Cursor's client runs only inside a loopback-only network namespace: the script
 * re-executes itself under `unshare -n` (`scripts/lib/loopback-namespace.ts`), so nothing
 * leaves the machine; without namespaces (or without the SDK) it prints a skip line and
 * exits 0. Samples alternate ours, the SDK's, per transport, after one warm-up of each;
 * medians of `SAMPLES` each.
 *
 * Targets (ours ÷ the SDK's median, the worse transport): new agent ≤ 0.3, warm turn ≤ 0.5.
 * The bench reports them; it does not fail on a miss.
 *
 * Prints `cursor-sdk: transport=… oursNewAgentMs=… sdkNewAgentMs=… oursWarmMs=… sdkWarmMs=…`
 * a transport, then `cursor-sdk: newAgentOverSdk=R warmOverSdk=R`.
 *
 * @module
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCaptured } from "../lib/test-files.ts";
import { type CursorSdkInstall, ensureCursorSdk } from "../lib/cursor-sdk-install.ts";
import { cursorSdkDriver, type DriverRun } from "../lib/cursor-sdk-driver.ts";
import { runInLoopbackNamespace } from "../lib/loopback-namespace.ts";
import { oursDriver } from "./cursor-sdk/ours-driver.ts";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";

const INNER = "--inside-namespace";
const SAMPLES = 7;
const BUILD = ".build/bench-npm-cursor-sdk";
const API_KEY = "crsr_bench_0123456789abcdef";
const MODEL = "default";
const TEXTS = ["::text Hello from the emulator", "::text Second turn, warm"] as const;
const SAMPLE_MS = 30_000;
const INNER_MS = 6 * 60_000;
const TRANSPORTS = ["sse", "http2"] as const;
const CLIENTS = ["ours", "sdk"] as const;
type Transport = (typeof TRANSPORTS)[number];
type Client = (typeof CLIENTS)[number];

/** One sample's two times, in ms. */
interface Times {
  readonly newAgent: number;
  readonly warm: number;
}

function skip(reason: string): never {
  console.log(`cursor-sdk: skipped (${reason})`);
  Deno.exit(0);
}

async function outer(): Promise<void> {
  const sdk = await ensureCursorSdk();
  if ("skip" in sdk) skip(sdk.skip);
  const build = await runCaptured(
    "deno",
    ["run", "-A", "scripts/build.ts", "--out", BUILD],
    5 * 60_000,
  );
  if (build.code !== 0) throw new Error(`Building ${BUILD} failed`);
  const inner = await runInLoopbackNamespace("scripts/bench/cursor-sdk.bench.ts", INNER, INNER_MS);
  if ("skip" in inner) skip(inner.skip);
  if (inner.timedOut) console.error(`cursor-sdk: the inner run took over ${INNER_MS} ms`);
  Deno.exit(inner.code ?? 1);
}

/** The emulator, served over TLS and through a cleartext front; each transport's origin. */
async function startEmulator(): Promise<{
  emulator: CursorEmulator;
  origins: Record<Transport, string>;
  close(): Promise<void>;
}> {
  const emulator = await startCursorEmulator({
    hostname: "127.0.0.1",
    port: 0,
    strict: true,
    log: false,
    tls: {
      cert: await Deno.readTextFile("test/testing/fixtures/local-ca-localhost-cert.pem"),
      key: await Deno.readTextFile("test/testing/fixtures/local-ca-localhost-key.pem"),
    },
  });
  const front = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, emulator.fetch);
  return {
    emulator,
    origins: {
      sse: `http://127.0.0.1:${front.addr.port}`,
      http2: emulator.url.replace("127.0.0.1", "localhost").replace(/\/$/, ""),
    },
    close: async () => {
      await front.shutdown();
      await emulator.close();
    },
  };
}

/** What a sample needs: the SDK install, the emulator and where to write. */
interface Bench {
  readonly sdk: CursorSdkInstall;
  readonly emulator: CursorEmulator;
  readonly origins: Record<Transport, string>;
  readonly scratch: string;
  readonly workspace: string;
}

/** One fresh process of `client` over `transport`: two turns, checked, and their times. */
async function sample(bench: Bench, client: Client, transport: Transport): Promise<Times> {
  const origin = bench.origins[transport];
  const env: Record<string, string> = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: mkdtempSync(join(bench.scratch, "home-")),
    CURSOR_BACKEND_URL: origin,
    CURSOR_API_KEY: API_KEY,
    ...(transport === "http2"
      ? { NODE_EXTRA_CA_CERTS: resolve("test/testing/fixtures/local-ca.pem") }
      : {}),
  };
  const place = { scratch: bench.scratch, env, cwd: bench.workspace, timeoutMs: SAMPLE_MS };
  const before = bench.emulator.runs().length;
  let run: DriverRun;
  if (client === "ours") {
    const drive = oursDriver({ ...place, nodeBin: bench.sdk.nodeBin, build: BUILD });
    run = await drive({
      apiBaseURL: origin,
      apiKey: API_KEY,
      model: MODEL,
      sessionId: crypto.randomUUID(),
      texts: TEXTS,
    });
  } else {
    const drive = cursorSdkDriver({ ...place, sdk: bench.sdk });
    run = await drive([
      { op: "create", cwd: bench.workspace, model: MODEL },
      ...TEXTS.map((text) => ({ op: "send" as const, text })),
    ]);
  }
  const what = `${client} over ${transport}`;
  if (run.failure) throw new Error(`${what}: ${run.failure}`);
  checkRuns(bench.emulator, before, transport, what);
  const created = run.results.find((r) => r.op === "create");
  const [first, second] = run.results.filter((r) => r.op === "send");
  if (
    !created || typeof first?.firstTextAt !== "number" || typeof second?.firstTextAt !== "number"
  ) {
    throw new Error(`${what}: no text on both turns (${JSON.stringify(run.results)})`);
  }
  return {
    newAgent: first.firstTextAt - created.startedAt,
    warm: second.firstTextAt - second.startedAt,
  };
}

/** The sample's Runs: two turns on `transport`, both `ok`, the second warm. */
function checkRuns(
  emulator: CursorEmulator,
  before: number,
  transport: Transport,
  what: string,
): void {
  const runs = emulator.runs().slice(before);
  const problem = runs.length !== 2
    ? `${runs.length} Run(s), expected 2`
    : runs.find((r) => r.transport !== transport)
    ? `a Run over ${runs.find((r) => r.transport !== transport)?.transport}`
    : runs.find((r) => r.status !== "ok")
    ? `a Run ended ${runs.find((r) => r.status !== "ok")?.status}`
    : runs[1]?.continuity !== "warm"
    ? `the second Run was ${runs[1]?.continuity}`
    : undefined;
  if (problem) throw new Error(`${what}: ${problem}`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function inner(): Promise<void> {
  const sdk = await ensureCursorSdk();
  if ("skip" in sdk) skip(sdk.skip);
  const served = await startEmulator();
  const scratch = mkdtempSync(join(tmpdir(), "cursor-sdk-bench-"));
  const workspace = join(scratch, "workspace");
  mkdirSync(workspace);
  const bench: Bench = {
    sdk,
    emulator: served.emulator,
    origins: served.origins,
    scratch,
    workspace,
  };
  const times: Record<`${Transport}-${Client}`, Times[]> = {
    "sse-ours": [],
    "sse-sdk": [],
    "http2-ours": [],
    "http2-sdk": [],
  };
  try {
    for (let i = -1; i < SAMPLES; i++) {
      for (const transport of TRANSPORTS) {
        for (const client of CLIENTS) {
          const taken = await sample(bench, client, transport);
          if (i >= 0) times[`${transport}-${client}`].push(taken);
        }
      }
    }
    const violations = served.emulator.violations();
    if (violations.length > 0) {
      console.error(`cursor-sdk: ${violations.length} strict violation(s): ${violations[0]?.rule}`);
    }
  } finally {
    await served.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  report(times);
}

function report(times: Record<`${Transport}-${Client}`, Times[]>): void {
  const at = (key: `${Transport}-${Client}`, field: keyof Times) =>
    median(times[key].map((t) => t[field]));
  let newAgentOverSdk = 0;
  let warmOverSdk = 0;
  for (const transport of TRANSPORTS) {
    const ours = {
      newAgent: at(`${transport}-ours`, "newAgent"),
      warm: at(`${transport}-ours`, "warm"),
    };
    const sdk = {
      newAgent: at(`${transport}-sdk`, "newAgent"),
      warm: at(`${transport}-sdk`, "warm"),
    };
    console.log(
      `cursor-sdk: transport=${transport} oursNewAgentMs=${ours.newAgent.toFixed(1)}` +
        ` sdkNewAgentMs=${sdk.newAgent.toFixed(1)} oursWarmMs=${ours.warm.toFixed(1)}` +
        ` sdkWarmMs=${sdk.warm.toFixed(1)}`,
    );
    newAgentOverSdk = Math.max(newAgentOverSdk, ours.newAgent / sdk.newAgent);
    warmOverSdk = Math.max(warmOverSdk, ours.warm / sdk.warm);
  }
  console.log(
    `cursor-sdk: newAgentOverSdk=${newAgentOverSdk.toFixed(2)} warmOverSdk=${
      warmOverSdk.toFixed(2)
    }`,
  );
}

if (Deno.args.includes(INNER)) await inner();
else await outer();
