/**
 * The driver: our own small Node program that uses Cursor's client, `@cursor/sdk` (installed
 * by `cursor-sdk-install.ts`), unmodified. It runs a plan of steps (list the models, create
 * or resume an agent, send a message and read its stream) and prints one `RESULT {json}` line
 * a step, with `performance.now()` stamps: when each step started and, for a send, when the
 * first text arrived. The suite (`scripts/test-cursor-sdk.ts`) and the `cursor-sdk` bench
 * both run it with the cache's Node; {@link nodeDriver}, which runs it, also runs the bench's
 * driver of our own client.
 *
 * @example
 * ```ts ignore
 * const drive = cursorSdkDriver({ sdk, scratch, env, cwd, timeoutMs: 45_000 });
 * const { results, failure } = await drive([{ op: "create", cwd }, { op: "send", text: "Hi" }]);
 * ```
 *
 * @module
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CursorSdkInstall } from "./cursor-sdk-install.ts";
import { runProcess } from "./loopback-namespace.ts";

const DRIVER = String.raw`
const [sdkUrl, planJson] = process.argv.slice(2);
const { Agent, Cursor } = await import(sdkUrl);
const plan = JSON.parse(planJson);
const apiKey = process.env.CURSOR_API_KEY;
const out = (value) => process.stdout.write("RESULT " + JSON.stringify(value) + "\n");
let agent;
async function modelOf(step) {
  if (step.model) return step.model;
  const models = await Cursor.models.list({ apiKey });
  return models[0]?.id ?? "default";
}
try {
  for (const step of plan) {
    const startedAt = performance.now();
    if (step.op === "models") {
      const models = await Cursor.models.list({ apiKey });
      out({ op: "models", ids: models.map((m) => m.id), startedAt });
    } else if (step.op === "create") {
      agent = await Agent.create({ apiKey, model: { id: await modelOf(step) }, local: { cwd: step.cwd } });
      out({ op: "create", agentId: agent.agentId, startedAt });
    } else if (step.op === "resume") {
      agent = await Agent.resume(step.agentId, {
        apiKey, model: { id: await modelOf(step) }, local: { cwd: step.cwd } });
      out({ op: "resume", agentId: agent.agentId, startedAt });
    } else if (step.op === "send") {
      const run = await agent.send(step.text);
      let text = "";
      let firstTextAt = null;
      const kinds = [];
      for await (const message of run.stream()) {
        kinds.push(message.type);
        if (message.type === "assistant") {
          for (const block of message.message.content) {
            if (block.type !== "text") continue;
            if (firstTextAt === null && block.text) firstTextAt = performance.now();
            text += block.text;
          }
        }
      }
      const result = await run.wait();
      out({ op: "send", text, kinds, status: result.status, result: result.result ?? null,
        error: result.error ? String(result.error.message ?? JSON.stringify(result.error)) : null,
        startedAt, firstTextAt });
    }
  }
  agent?.close();
  setTimeout(() => process.exit(0), 200).unref();
} catch (error) {
  out({ op: "error", error: String(error?.message ?? error) });
  process.exit(3);
}
`;

/** One step of a driver plan. `model` skips the models list (else: the first listed). */
export interface DriverStep {
  readonly op: "models" | "create" | "resume" | "send";
  readonly cwd?: string;
  readonly agentId?: string;
  readonly text?: string;
  readonly model?: string;
}

/** One `RESULT` line of the driver. */
// deno-lint-ignore no-explicit-any
export type DriverResult = Record<string, any>;

/** What one driver process reported: its results, and why it failed if it did. */
export interface DriverRun {
  readonly results: DriverResult[];
  readonly failure: string | undefined;
  readonly stderr: string;
}

/** Where and how a driver process runs: the install's Node, exactly `env`, in `cwd`. */
export interface DriverPlace {
  readonly scratch: string;
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly timeoutMs: number;
}

/**
 * Writes the driver into `scratch` and returns a function that runs one plan in a fresh
 * Node process (the install's Node) with exactly `env`, in `cwd`.
 */
export function cursorSdkDriver(
  options: DriverPlace & { readonly sdk: CursorSdkInstall },
): (steps: readonly DriverStep[]) => Promise<DriverRun> {
  const sdkUrl = new URL(`file://${join(options.sdk.sdkDir, "dist", "esm", "index.js")}`).href;
  return nodeDriver({
    ...options,
    nodeBin: options.sdk.nodeBin,
    name: "cursor-sdk-driver.mjs",
    source: DRIVER,
    leadingArgs: [sdkUrl],
  });
}

/**
 * Writes a Node driver program (`source`, run as `node <file> ...leadingArgs <plan json>`,
 * printing `RESULT {json}` lines, `{ op: "error", error }` when it fails) into `scratch` and
 * returns a function that runs one plan of it in a fresh process.
 */
export function nodeDriver(
  options: DriverPlace & {
    readonly nodeBin: string;
    readonly name: string;
    readonly source: string;
    readonly leadingArgs: readonly string[];
  },
): (plan: unknown) => Promise<DriverRun> {
  const file = join(options.scratch, options.name);
  writeFileSync(file, options.source);
  return async (plan) => {
    const args = [file, ...options.leadingArgs, JSON.stringify(plan)];
    const result = await runProcess(options.nodeBin, args, {
      env: options.env,
      timeoutMs: options.timeoutMs,
      cwd: options.cwd,
    });
    const results = result.stdout.split("\n").filter((line) => line.startsWith("RESULT "))
      .map((line): DriverResult => JSON.parse(line.slice(7)));
    const failure = results.find((r) => r.op === "error")?.error ??
      (result.timedOut
        ? `driver timed out after ${options.timeoutMs} ms`
        : result.code !== 0
        ? `driver exited ${result.code}: ${result.stderr.slice(-1500)}`
        : undefined);
    return { results, failure, stderr: result.stderr };
  };
}
