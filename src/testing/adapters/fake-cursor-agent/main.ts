/**
 * Entry point of the fake `cursor-agent` (run through the wrapper script that
 * `installFakeCursorAgent` writes). Reads argv, environment and stdin, runs the pure
 * program, performs its steps with real pauses, and appends what happened to the
 * JSON-lines file named by `FAKE_CURSOR_AGENT_RECORD`:
 *
 * - `start`: `pid`, `argv`, `cwd`, `stdinIsTTY`, `promptSource`, `stdin`, `env` (the
 *   `CURSOR_*` and `FAKE_CURSOR_AGENT_*` variables; values of keys, tokens and
 *   secrets replaced by `[present]`), `chatId`, `chatSource`, `time`;
 * - `background`: the pid of a grandchild it started;
 * - `signal`: a signal it received;
 * - `end`: `exitCode` or `crash`, `time`.
 *
 * Runs on Deno, Node (compiled to `.js`) and Bun.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import process from "node:process";
import type { Step } from "../../fake-cursor-agent/beats.ts";
import { createMemoryChatStore } from "../../fake-cursor-agent/chat-store.ts";
import { runFakeProgram } from "../../fake-cursor-agent/program.ts";
import { FAKE_ENV_PREFIX, readScenario } from "../../fake-cursor-agent/scenario.ts";
import { createFileChatStore } from "./fs-chat-store.ts";

const env = process.env;
const recordPath = env[`${FAKE_ENV_PREFIX}RECORD`];

function record(entry: Record<string, unknown>): void {
  if (recordPath === undefined || recordPath === "") return;
  try {
    appendFileSync(
      recordPath,
      `${JSON.stringify({ ...entry, pid: process.pid, time: Date.now() })}\n`,
    );
  } catch {
    // Recording must never change the fake's behaviour.
  }
}

function recordedEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !/^(CURSOR_|FAKE_CURSOR_AGENT_)/.test(name)) continue;
    out[name] = /KEY|TOKEN|SECRET/i.test(name) && !name.startsWith(FAKE_ENV_PREFIX)
      ? "[present]"
      : value;
  }
  return out;
}

function readScenarioFile(): string | undefined {
  const path = env[`${FAKE_ENV_PREFIX}SCENARIO`];
  if (path === undefined || path === "") return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    process.stdin.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    process.stdin.once("end", () => resolve(new TextDecoder().decode(concat(chunks))));
    process.stdin.once("error", () => resolve(new TextDecoder().decode(concat(chunks))));
  });
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function perform(steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case "stdout":
        await write(process.stdout, step.text);
        break;
      case "stderr":
        await write(process.stderr, step.text);
        break;
      case "sleep":
        await sleep(step.ms);
        break;
      case "background": {
        const child = spawn("/bin/sh", ["-c", "sleep 120"], { stdio: "ignore" });
        record({ event: "background", childPid: child.pid });
        break;
      }
      case "hang":
        setInterval(() => {}, 60_000);
        await new Promise<never>(() => {});
        break;
      case "exit":
        record({ event: "end", exitCode: step.code });
        process.exit(step.code);
        break;
      case "crash":
        record({ event: "end", crash: step.signal });
        process.kill(process.pid, step.signal);
        await new Promise<never>(() => {});
        break;
    }
  }
  record({ event: "end", exitCode: 0 });
  process.exit(0);
}

async function main(): Promise<void> {
  const scenario = readScenario(env, readScenarioFile());
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      record({ event: "signal", signal });
      if (!scenario.ignoreSigterm) process.exit(signal === "SIGTERM" ? 143 : 130);
    });
  }
  const stateDir = env[`${FAKE_ENV_PREFIX}STATE_DIR`];
  const result = await runFakeProgram({
    argv: process.argv.slice(2),
    env,
    cwd: process.cwd(),
    stdinIsTTY: process.stdin.isTTY === true,
    readStdin,
    scenario,
    store: stateDir ? createFileChatStore(stateDir) : createMemoryChatStore(),
    newChatId: () => crypto.randomUUID(),
    now: () => Date.now(),
  });
  record({
    event: "start",
    argv: process.argv.slice(2),
    cwd: process.cwd(),
    stdinIsTTY: process.stdin.isTTY === true,
    promptSource: result.promptSource,
    stdin: result.stdin ?? null,
    env: recordedEnv(),
    chatId: result.chatId ?? null,
    chatSource: result.chatSource ?? null,
  });
  await perform(result.steps);
}

await main();
