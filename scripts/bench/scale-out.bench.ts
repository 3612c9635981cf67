/**
 * Many provider instances behind a load balancer, side by side with one instance in one
 * run. Processes: a real `redis-server` (snapshots through `./stores/redis`), the
 * emulator in its own process (`scale-out/emulator-host.ts`), provider instances under
 * Node (`scale-out/instance.ts`: an AI SDK chat route on the Node entry's `createCursor`)
 * and a round-robin proxy (`scale-out/proxy.ts`, no stickiness). The client
 * (`scale-out/client.ts`) plays conversations with a session id each, the app running its
 * tool and sending the result in the next request.
 *
 * Variants: `single` (one instance), `spread` (the instances behind the proxy), `kill`
 * (the same, one instance killed every 10 turns and started again) and `redis` (the same,
 * Redis restarted halfway, losing every snapshot). Every figure comes from the emulator's
 * Run records (`scale-out/analysis.ts`), never from what the client saw: lost turns,
 * duplicated tool runs, warm continuations, bytes uploaded per turn after the first.
 *
 * Targets: lost=0, duplicated=0, warm ≥ 95 %, bytesRatio ≤ 1.2, chaosLost=0.
 *
 * `BENCH_CONVERSATIONS` (30), `BENCH_TURNS` (6), `BENCH_INSTANCES` (3) and
 * `BENCH_CONCURRENCY` (6) size a run; `BENCH_KEEP_RECORDS=<folder>` keeps each variant's
 * records and the app's view there (`scale-out-<variant>.json`). The last line is
 * `scale-out: lost=N duplicated=N warm=P% bytesRatio=R chaosLost=N`.
 *
 * @module
 */
import { bundleForNode } from "../lib/node-bundle.ts";
import { analyse, type Figures } from "./scale-out/analysis.ts";
import { type ClientConversation, newConversation, playTurn } from "./scale-out/client.ts";
import {
  type EmulatorHost,
  type Instance,
  type Redis,
  startEmulatorHost,
  startInstance,
  startProxy,
  startRedis,
} from "./scale-out/processes.ts";

const count = (name: string, fallback: number) => {
  const value = Number(Deno.env.get(name) ?? fallback);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
const CONVERSATIONS = count("BENCH_CONVERSATIONS", 30);
const TURNS = count("BENCH_TURNS", 6);
const INSTANCES = count("BENCH_INSTANCES", 3);
const CONCURRENCY = count("BENCH_CONCURRENCY", 6);
const KILL_EVERY = 10;
/** Every process dies after this, whatever happens; the bench itself too. */
const LIFETIME_MS = 9 * 60 * 1000;
/** This run's bundles (two runs at once never share one). */
const BUILD = `.build/bench-scale-out/${Deno.pid}`;

type Chaos = "none" | "kill" | "redis";
interface Setup {
  /** The instances' `instance-log:` lines (resets, held Runs, store outcomes). */
  readonly log: string[];
  readonly emulator: EmulatorHost;
  readonly redis: Redis;
  readonly instances: readonly Instance[];
  readonly url: string;
}

/** Runs `task` over `items`, at most `limit` at once. */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Plays every conversation (all first turns, then the rest) and analyses the records. */
async function variant(name: string, setup: Setup, chaos: Chaos): Promise<Figures> {
  await setup.emulator.clear();
  const logFrom = setup.log.length;
  const conversations = Array.from({ length: CONVERSATIONS }, (_, i) => newConversation(i, name));
  const histories = new Map<ClientConversation, Record<string, unknown>[]>(
    conversations.map((c) => [c, []]),
  );
  let played = 0;
  let chaosEvents = 0;
  let chaosWork = Promise.resolve();
  const total = CONVERSATIONS * TURNS;
  const afterTurn = () => {
    played++;
    if (chaos === "kill" && played % KILL_EVERY === 0) {
      const instance = setup.instances[chaosEvents++ % setup.instances.length];
      chaosWork = chaosWork.then(async () => {
        await instance?.kill();
        await instance?.start();
      });
    }
    if (chaos === "redis" && played === Math.floor(total / 2)) {
      chaosEvents++;
      chaosWork = chaosWork.then(() => setup.redis.restart());
    }
  };
  await pool(conversations, CONCURRENCY, async (conversation) => {
    await playTurn(setup.url, conversation, histories.get(conversation) ?? [], 1);
    afterTurn();
  });
  const bytesAfterFirst = await setup.emulator.bytesUp();
  await pool(conversations, CONCURRENCY, async (conversation) => {
    for (let turn = 2; turn <= TURNS; turn++) {
      await playTurn(setup.url, conversation, histories.get(conversation) ?? [], turn);
      afterTurn();
    }
  });
  const bytesLater = (await setup.emulator.bytesUp()) - bytesAfterFirst;
  await chaosWork;
  const records = await setup.emulator.records();
  const keep = Deno.env.get("BENCH_KEEP_RECORDS");
  if (keep !== undefined) {
    const app = conversations.map((c) => ({ ...c, toolRuns: Object.fromEntries(c.toolRuns) }));
    await Deno.writeTextFile(`${keep}/scale-out-${name}.json`, JSON.stringify({ app, records }));
  }
  const figures = analyse(conversations, records, { turns: TURNS, bytesLater, chaosEvents });
  console.log(`scale-out: variant=${name} ${figures.line}`);
  console.log(`scale-out: variant=${name} log ${logCounts(setup.log.slice(logFrom))}`);
  return figures;
}

/** The instances' log lines of one variant, counted by kind and reason. */
function logCounts(lines: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const kind = line.match(/^conversation reset: reason=(\S+)/)?.[1]?.replace(/^/, "reset:") ??
      line.match(/^held Run released: .*reason=(\S+)/)?.[1]?.replace(/^/, "held-released:") ??
      line.match(/^continuation: .*heldRun=(\S+)/)?.[1]?.replace(/^/, "continuation:") ??
      line.match(/^conversation persistence: (\S+(?: \S+)?) sessionKey/)?.[1]?.replace(/ /g, "-");
    if (kind !== undefined) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].sort().map(([kind, n]) => `${kind}=${n}`).join(" ") || "none";
}

const [instanceBundle, proxyBundle] = await bundleForNode(
  ["scripts/bench/scale-out/instance.ts", "scripts/bench/scale-out/proxy.ts"],
  BUILD,
) ?? [];
if (instanceBundle === undefined || proxyBundle === undefined) {
  console.error("scale-out: esbuild failed");
  Deno.exit(1);
}

const deadline = setTimeout(() => {
  console.error(`scale-out: the bench exceeded ${LIFETIME_MS} ms`);
  Deno.exit(1);
}, LIFETIME_MS + 30_000);
const stops: (() => Promise<void>)[] = [];
try {
  const emulator = await startEmulatorHost(LIFETIME_MS);
  stops.push(() => emulator.stop());
  const redis = await startRedis(LIFETIME_MS);
  stops.push(() => redis.stop());
  const env = { EMULATOR_URL: emulator.url, REDIS_URL: redis.url };
  const log: string[] = [];
  const launch = async (n: number) => {
    const instances = await Promise.all(
      Array.from({ length: n }, () => startInstance(instanceBundle, env, LIFETIME_MS, log)),
    );
    for (const instance of instances) stops.push(() => instance.stop());
    const proxy = await startProxy(proxyBundle, instances.map((i) => i.port), LIFETIME_MS);
    stops.push(() => proxy.stop());
    return { log, emulator, redis, instances, url: proxy.url };
  };
  const one = await launch(1);
  const many = await launch(INSTANCES);
  const single = await variant("single", one, "none");
  const spread = await variant("spread", many, "none");
  const kill = await variant("kill", many, "kill");
  const restart = await variant("redis", many, "redis");
  const ratio = single.bytesPerLaterTurn === 0
    ? 0
    : spread.bytesPerLaterTurn / single.bytesPerLaterTurn;
  console.log(
    `scale-out: conversations=${CONVERSATIONS} turns=${TURNS} instances=${INSTANCES} ` +
      `bytes_per_later_turn_single=${single.bytesPerLaterTurn.toFixed(0)} ` +
      `bytes_per_later_turn_spread=${spread.bytesPerLaterTurn.toFixed(0)}`,
  );
  console.log(
    `scale-out: lost=${spread.lost} duplicated=${spread.duplicated} warm=${
      spread.warmPercent.toFixed(1)
    }% bytesRatio=${ratio.toFixed(2)} chaosLost=${kill.lost + restart.lost}`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await Deno.remove(BUILD, { recursive: true }).catch(() => {});
  clearTimeout(deadline);
}
