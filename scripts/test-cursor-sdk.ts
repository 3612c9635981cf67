/**
 * Runs Cursor's own client, `@cursor/sdk` (installed by `scripts/lib/cursor-sdk-install.ts` into a
 * cache outside the project; a test tool, never a dependency), unmodified against the strict
 * emulator, over SSE (`http://`) and HTTP/2 (`https://` with the local CA), inside a
 * loopback-only network namespace (`unshare -n`), so nothing can leave the machine.
 *
 * The script re-executes itself under `unshare -n`; inside, it starts the emulator in-process
 * (its records and strict violations read directly) and runs a small driver program of ours
 * with the cache's Node for each scenario. The only client knobs: `CURSOR_BACKEND_URL`, the
 * API key, and for HTTPS Node's `NODE_EXTRA_CA_CERTS`. `HOME` points at a scratch folder so
 * the client's local agent store is the test's own (and shared by the driver processes of one
 * transport, which `Agent.resume` needs).
 *
 * Scenarios, per transport: models.list, a text turn, a read + shell tool turn, a warm second
 * turn, `Agent.resume` from a new process, a cold server (blobs forgotten) served from the
 * client's store. Each asserts no new strict violations. Prints `N passed, N failed[, N skipped]`.
 *
 * Usage: `npm run test:cursor-sdk` (or `deno run -A scripts/test-cursor-sdk.ts`).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureCursorSdk } from "./lib/cursor-sdk-install.ts";

const INNER = "--inside-namespace";
const API_KEY = "crsr_sdke2e_0123456789abcdef";
const SUITE_MS = 230_000;
const DRIVER_MS = 45_000;
const TRANSPORTS = ["sse", "http2"] as const;
const SCENARIOS = [
  "models.list",
  "text turn",
  "tool turn (read + shell)",
  "warm second turn",
  "resume in a new process",
  "cold server, blobs from the client",
] as const;

interface Outcome {
  readonly name: string;
  readonly status: "passed" | "failed" | "skipped";
  readonly detail?: string | undefined;
}

function summary(outcomes: readonly Outcome[]): string {
  const count = (status: Outcome["status"]) => outcomes.filter((o) => o.status === status).length;
  const skipped = count("skipped");
  return `${count("passed")} passed, ${count("failed")} failed${
    skipped ? `, ${skipped} skipped` : ""
  }`;
}

function skipAll(reason: string): never {
  const outcomes: Outcome[] = [];
  for (const transport of TRANSPORTS) {
    for (const scenario of SCENARIOS) {
      outcomes.push({ name: `${transport}: ${scenario}`, status: "skipped", detail: reason });
    }
  }
  console.error(`\n*** Cursor SDK suite SKIPPED: ${reason} ***\n`);
  for (const o of outcomes) console.log(`skip ${o.name}`);
  console.log(summary(outcomes));
  const ci = Deno.env.get("CI") === "true";
  if (ci) console.error("CI=true: a skipped Cursor SDK suite fails (CI reaches the registry)");
  Deno.exit(ci ? 1 : 0);
}

/** Runs a command with a timeout; resolves with its exit code and output. */
function run(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs: number; inherit?: boolean; cwd?: string },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      env: options.env ?? Deno.env.toObject(),
      cwd: options.cwd,
      stdio: options.inherit ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout?.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        // The whole group (the child was started detached): a driver's own children too.
        if (child.pid === undefined) child.kill("SIGKILL");
        else process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr: stderr + String(error), timedOut });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, timedOut });
    });
  });
}

async function outer(): Promise<void> {
  const sdk = await ensureCursorSdk();
  if ("skip" in sdk) skipAll(sdk.skip);
  const probe = await run("unshare", ["-n", "sh", "-c", "ip link set lo up && true"], {
    timeoutMs: 10_000,
  });
  if (probe.code !== 0) {
    skipAll(`no loopback-only network namespace (unshare -n failed: ${probe.stderr.trim()})`);
  }
  // Not Deno.execPath() itself: Deno's node:child_process rewrites a child's arguments when
  // they name its own binary (as if it were Node), which breaks the `run` below.
  const deno = existsSync("node_modules/.bin/deno") ? resolve("node_modules/.bin/deno") : "deno";
  const script = resolve("scripts/test-cursor-sdk.ts");
  const inner = await run(
    "unshare",
    ["-n", "sh", "-c", 'ip link set lo up && exec "$0" run -A "$1" "$2"', deno, script, INNER],
    { timeoutMs: SUITE_MS, inherit: true },
  );
  if (inner.timedOut) {
    console.log(`The suite did not finish within ${SUITE_MS} ms`);
    console.log("0 passed, 1 failed");
    Deno.exit(1);
  }
  Deno.exit(inner.code ?? 1);
}

// ---------------------------------------------------------------------------------------------
// The driver: our own Node program that uses Cursor's client. Written to a temp folder per run.

const DRIVER = String.raw`
const [sdkUrl, planJson] = process.argv.slice(2);
const { Agent, Cursor } = await import(sdkUrl);
const plan = JSON.parse(planJson);
const apiKey = process.env.CURSOR_API_KEY;
const out = (value) => process.stdout.write("RESULT " + JSON.stringify(value) + "\n");
let agent;
async function firstModel() {
  const models = await Cursor.models.list({ apiKey });
  return models[0]?.id ?? "default";
}
try {
  for (const step of plan) {
    if (step.op === "models") {
      const models = await Cursor.models.list({ apiKey });
      out({ op: "models", ids: models.map((m) => m.id) });
    } else if (step.op === "create") {
      agent = await Agent.create({ apiKey, model: { id: await firstModel() }, local: { cwd: step.cwd } });
      out({ op: "create", agentId: agent.agentId });
    } else if (step.op === "resume") {
      agent = await Agent.resume(step.agentId, {
        apiKey, model: { id: await firstModel() }, local: { cwd: step.cwd } });
      out({ op: "resume", agentId: agent.agentId });
    } else if (step.op === "send") {
      const run = await agent.send(step.text);
      let text = "";
      const kinds = [];
      for await (const message of run.stream()) {
        kinds.push(message.type);
        if (message.type === "assistant") {
          for (const block of message.message.content) if (block.type === "text") text += block.text;
        }
      }
      const result = await run.wait();
      out({ op: "send", text, kinds, status: result.status, result: result.result ?? null,
        error: result.error ? String(result.error.message ?? JSON.stringify(result.error)) : null });
    }
  }
  agent?.close();
  setTimeout(() => process.exit(0), 200).unref();
} catch (error) {
  out({ op: "error", error: String(error?.message ?? error) });
  process.exit(3);
}
`;

interface DriverStep {
  readonly op: "models" | "create" | "resume" | "send";
  readonly cwd?: string;
  readonly agentId?: string;
  readonly text?: string;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// deno-lint-ignore no-explicit-any
type Result = Record<string, any>;

async function inner(): Promise<void> {
  const started = Date.now();
  const sdk = await ensureCursorSdk();
  if ("skip" in sdk) skipAll(sdk.skip);
  const { startCursorEmulator, defaultCatalog } = await import("../src/testing/mod.ts");
  const scratch = mkdtempSync(join(tmpdir(), "cursor-sdk-e2e-"));
  const driverFile = join(scratch, "driver.mjs");
  writeFileSync(driverFile, DRIVER);
  const sdkUrl = new URL(`file://${join(sdk.sdkDir, "dist", "esm", "index.js")}`).href;
  const outcomes: Outcome[] = [];
  const ca = resolve("test/testing/fixtures/local-ca.pem");
  const catalogIds = defaultCatalog().map((model) => model.id);

  for (const transport of TRANSPORTS) {
    const tls = transport === "http2"
      ? {
        cert: await Deno.readTextFile("test/testing/fixtures/local-ca-localhost-cert.pem"),
        key: await Deno.readTextFile("test/testing/fixtures/local-ca-localhost-key.pem"),
      }
      : undefined;
    const emulator = await startCursorEmulator({
      hostname: "127.0.0.1",
      port: 0,
      strict: true,
      ...(tls ? { tls } : {}),
    });
    const origin = transport === "http2"
      ? emulator.url.replace("127.0.0.1", "localhost").replace(/\/$/, "")
      : emulator.url.replace(/\/$/, "");
    const home = join(scratch, `home-${transport}`);
    const workspace = join(scratch, `workspace-${transport}`);
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace, { recursive: true });
    const notes = `hello from notes ${transport}\n`;
    writeFileSync(join(workspace, "notes.txt"), notes);
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      CURSOR_BACKEND_URL: origin,
      CURSOR_API_KEY: API_KEY,
      ...(transport === "http2" ? { NODE_EXTRA_CA_CERTS: ca } : {}),
    };
    const driver = async (steps: readonly DriverStep[]) => {
      const result = await run(sdk.nodeBin, [driverFile, sdkUrl, JSON.stringify(steps)], {
        env,
        timeoutMs: DRIVER_MS,
        cwd: workspace,
      });
      const results: Result[] = result.stdout.split("\n").filter((l) => l.startsWith("RESULT "))
        .map((l) => JSON.parse(l.slice(7)));
      const failure = results.find((r) => r.op === "error")?.error ??
        (result.timedOut
          ? `driver timed out after ${DRIVER_MS} ms`
          : result.code !== 0
          ? `driver exited ${result.code}: ${result.stderr.slice(-1500)}`
          : undefined);
      return { results, failure, stderr: result.stderr };
    };
    const json = (value: unknown) =>
      JSON.stringify(value, (_k, v) => typeof v === "bigint" ? String(v) : v);
    const scenario = async (name: string, body: () => Promise<void> | void) => {
      const before = emulator.violations().length;
      const t0 = Date.now();
      let detail: string | undefined;
      try {
        await body();
        await emulator.idle(5_000).catch(() => {});
        const fresh = emulator.violations().slice(before);
        if (fresh.length > 0) {
          detail = `${fresh.length} strict violation(s): ${
            fresh.map((v) => `${v.rule}: ${v.message}`).join("; ")
          }`;
        }
      } catch (error) {
        detail = error instanceof Error ? error.message : String(error);
        const fresh = emulator.violations().slice(before);
        if (fresh.length > 0) {
          detail += ` | violations: ${fresh.map((v) => `${v.rule}: ${v.message}`).join("; ")}`;
        }
      }
      const full = `${transport}: ${name}`;
      const ms = Date.now() - t0;
      outcomes.push({ name: full, status: detail ? "failed" : "passed", detail });
      console.log(
        `${detail ? "FAIL" : "ok  "} ${full} (${ms} ms)${detail ? `\n     ${detail}` : ""}`,
      );
    };
    const sends = (results: Result[]) => results.filter((r) => r.op === "send");
    const runsSince = (count: number) => emulator.runs().slice(count);

    // (1) models.list
    await scenario("models.list", async () => {
      const { results, failure } = await driver([{ op: "models" }]);
      check(!failure, failure ?? "");
      const ids: string[] = results.find((r) => r.op === "models")?.ids ?? [];
      check(ids.length > 0, "models.list returned no models");
      check(
        JSON.stringify([...ids].sort()) === JSON.stringify([...catalogIds].sort()),
        `models.list gave ${ids.join(", ")}; the emulator's catalogue is ${catalogIds.join(", ")}`,
      );
    });

    // (2) text turn and (4) warm second turn, one driver process
    let agentId: string | undefined;
    let conversationId: string | undefined;
    let twoTurns: { results: Result[]; failure: string | undefined } | undefined;
    let runsBefore = emulator.runs().length;
    await scenario("text turn", async () => {
      twoTurns = await driver([
        { op: "create", cwd: workspace },
        { op: "send", text: "::text Hello from the emulator" },
        { op: "send", text: "::text Second turn, warm" },
      ]);
      agentId = twoTurns.results.find((r) => r.op === "create")?.agentId;
      const first = sends(twoTurns.results)[0];
      check(first, `no first turn: ${twoTurns.failure}`);
      check(first.status === "finished", `turn status ${first.status} (${first.error})`);
      check(
        first.text === "Hello from the emulator",
        `streamed text ${JSON.stringify(first.text)}, expected "Hello from the emulator"`,
      );
      const record = runsSince(runsBefore)[0];
      check(
        record?.status === "ok",
        `emulator run status ${record?.status} ${record?.error ?? ""}`,
      );
      conversationId = record?.conversationId;
    });
    await scenario("warm second turn", () => {
      check(twoTurns, "no driver run");
      const second = sends(twoTurns.results)[1];
      check(second, `no second turn: ${twoTurns.failure}`);
      check(second.status === "finished", `turn status ${second.status} (${second.error})`);
      check(second.text === "Second turn, warm", `streamed text ${JSON.stringify(second.text)}`);
      check(!twoTurns.failure, twoTurns.failure ?? "");
      const record = runsSince(runsBefore)[1];
      check(record, "the emulator saw no second Run");
      check(
        record.continuity === "warm" && record.checkpointSupplied,
        `second Run continuity=${record.continuity} checkpointSupplied=${record.checkpointSupplied}`,
      );
      check(record.kv.gets === 0, `warm Run fetched ${record.kv.gets} blob(s) (rebuild)`);
      check(record.status === "ok", `emulator run status ${record.status} ${record.error ?? ""}`);
    });

    // (3) tool turn: read + shell
    runsBefore = emulator.runs().length;
    await scenario("tool turn (read + shell)", async () => {
      const marker = `shell-out-${transport}`;
      const { results, failure } = await driver([
        { op: "create", cwd: workspace },
        { op: "send", text: `::read notes.txt\n::shell echo ${marker}\n::text Tools done` },
      ]);
      const record = runsSince(runsBefore).find((r) => r.execs.length > 1);
      check(record, "the emulator saw no Run with tool execs");
      const read = record.execs.find((e) => e.requestCase === "readArgs");
      const seen = [
        ...new Set(emulator.log({ runId: record.runId, direction: "client" }).map((e) => e.kind)),
      ].join(", ");
      const routes = [...new Set(emulator.log({ direction: "http" }).map((e) => e.rpc))]
        .join(", ");
      const context = ` (client sent: ${seen}; HTTP routes asked for: ${routes})`;
      const shell = record.execs.find((e) => e.requestCase === "shellStreamArgs");
      check(read, "no read exec");
      check(!read.thrown, `the client threw on read: ${read.thrown}${context}`);
      check(
        read.resultCase && read.streamClosed,
        `read ended ${read.resultCase}, stream_close ${read.streamClosed}${context}`,
      );
      check(shell, "no shell exec");
      check(!shell.thrown, `the client threw on shell: ${shell.thrown}`);
      check(shell.streamClosed, "no stream_close after the shell");
      const client = json(emulator.log({ runId: record.runId, direction: "client" }));
      check(client.includes(notes.trim()), "the read result did not carry notes.txt's content");
      check(client.includes(marker), "the shell output did not reach the emulator");
      const exits = emulator.log({ runId: record.runId, direction: "client" })
        .filter((e) => json(e.message).includes('"exit"'));
      check(exits.length > 0, "no shell exit reached the emulator");
      // proto3 zero values may be left out of the decoded message: no non-zero code is the check.
      check(!/"code":[1-9]/.test(json(exits.map((e) => e.message))), "shell exit code not 0");
      const turn = sends(results)[0];
      check(turn, `no turn: ${failure}`);
      check(turn.status === "finished", `turn status ${turn.status} (${turn.error})`);
      check(turn.text.includes("Tools done"), `streamed text ${JSON.stringify(turn.text)}`);
      check(
        record.status === "ok",
        `emulator run status ${record.status} ${record.error ?? ""}`,
      );
      check(!failure, failure ?? "");
    });

    // (5) resume from a new process
    runsBefore = emulator.runs().length;
    await scenario("resume in a new process", async () => {
      check(agentId, "no agent from the text turn");
      const { results, failure } = await driver([
        { op: "resume", agentId, cwd: workspace },
        { op: "send", text: "::text Resumed" },
      ]);
      const turn = sends(results)[0];
      check(turn, `no turn: ${failure}`);
      check(turn.status === "finished", `turn status ${turn.status} (${turn.error})`);
      check(turn.text === "Resumed", `streamed text ${JSON.stringify(turn.text)}`);
      const record = runsSince(runsBefore)[0];
      check(record, "no Run");
      check(record.conversationId === conversationId, "a different conversation");
      check(
        record.checkpointSupplied && record.continuity === "warm",
        `continuity ${record.continuity}, checkpointSupplied ${record.checkpointSupplied}`,
      );
      check(record.status === "ok", `emulator run status ${record.status} ${record.error ?? ""}`);
      check(!failure, failure ?? "");
    });

    // (6) cold server: the emulator forgets the blobs, the client serves get_blob
    runsBefore = emulator.runs().length;
    await scenario("cold server, blobs from the client", async () => {
      check(agentId && conversationId, "no agent from the text turn");
      emulator.forgetServerBlobs(conversationId);
      const { results, failure } = await driver([
        { op: "resume", agentId, cwd: workspace },
        { op: "send", text: "::text After a cold server" },
      ]);
      const turn = sends(results)[0];
      check(turn, `no turn: ${failure}`);
      check(turn.status === "finished", `turn status ${turn.status} (${turn.error})`);
      check(turn.text === "After a cold server", `streamed text ${JSON.stringify(turn.text)}`);
      const record = runsSince(runsBefore)[0];
      check(record, "no Run");
      check(record.kv.gets > 0, `the cold server fetched no blobs (gets ${record.kv.gets})`);
      check(record.kv.misses === 0, `${record.kv.misses} blob miss(es)`);
      check(record.status === "ok", `emulator run status ${record.status} ${record.error ?? ""}`);
      check(!failure, failure ?? "");
    });

    await emulator.close();
  }
  rmSync(scratch, { recursive: true, force: true });
  for (const o of outcomes.filter((o) => o.status === "failed")) console.log(`failed: ${o.name}`);
  console.log(`run time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(summary(outcomes));
  Deno.exit(outcomes.some((o) => o.status === "failed") ? 1 : 0);
}

if (Deno.args.includes(INNER)) await inner();
else await outer();
