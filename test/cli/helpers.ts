/**
 * Shared helpers of the CLI backend tests: a stub process runner that plays
 * recorded stdout, a fake `cursor-agent` installed into a temp directory on PATH,
 * its invocation records, and stream collection.
 *
 * @module
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type {
  ProcessHandle,
  ProcessRunner,
  ProcessSpawnOptions,
} from "../../src/cli/process-runner.ts";
import { installFakeCursorAgent } from "../../src/testing/adapters/fake-cursor-agent/install.ts";
import { createNodeProcessRunner } from "../../src/adapters/node/process/process-runner.ts";
import { createMemoryLogger, type DebugLogger } from "../../src/core/logger.ts";
import {
  type CliBackendConfig,
  createCliLanguageModel,
} from "../../src/provider/cli/cli-backend.ts";
import { createResumeCache, type ResumeCache } from "../../src/cli/resume-cache.ts";

/** Reads a recorded stream-json fixture (tests run from the repository root). */
export function readFixture(name: string): string {
  return readFileSync(join(process.cwd(), "test/cli/fixtures", name), "utf8");
}

/** Everything a stub run was started with. */
export interface StubCall {
  readonly argv: readonly string[];
  readonly options: ProcessSpawnOptions;
}

/** A runner that answers every spawn with the given stdout, stderr and exit status. */
export function createStubRunner(
  script: { stdout: string | string[]; stderr?: string; code?: number; signal?: string },
): { runner: ProcessRunner; calls: StubCall[] } {
  const calls: StubCall[] = [];
  const runner: ProcessRunner = {
    spawn(argv, options): ProcessHandle {
      calls.push({ argv, options });
      const chunks = (Array.isArray(script.stdout) ? script.stdout : [script.stdout]).map((text) =>
        new TextEncoder().encode(text)
      );
      return {
        pid: 4242,
        stdout: new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        }),
        stderr: new ReadableStream({
          start(controller) {
            if (script.stderr) controller.enqueue(new TextEncoder().encode(script.stderr));
            controller.close();
          },
        }),
        exited: Promise.resolve({ code: script.code ?? 0, signal: script.signal ?? null }),
        kill() {},
      };
    },
  };
  return { runner, calls };
}

/** Reads a stream to its end. */
export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const items: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return items;
    items.push(value);
  }
}

/** The text of collected stream parts. */
export function textOf(parts: readonly LanguageModelV3StreamPart[]): string {
  return parts.map((part) => (part.type === "text-delta" ? part.delta : "")).join("");
}

/** One line of the fake's record file. */
export interface FakeRecord {
  readonly event: "start" | "end" | "signal" | "background";
  readonly pid: number;
  readonly argv?: string[];
  readonly stdin?: string | null;
  readonly env?: Record<string, string>;
  readonly chatId?: string | null;
  readonly chatSource?: string | null;
  readonly signal?: string;
  readonly childPid?: number;
  readonly exitCode?: number;
}

/** A fake `cursor-agent` installed for one test. */
export interface FakeSetup {
  readonly dir: string;
  readonly workspace: string;
  readonly binaryPath: string;
  /** Environment for the provider: PATH with the fake first, record and state files. */
  readonly env: Record<string, string>;
  readonly scenarioPath: string;
  readonly logger: DebugLogger;
  readonly logLines: string[];
  readonly cache: ResumeCache;
  /** The `start` records so far. */
  starts(): Promise<FakeRecord[]>;
  records(): Promise<FakeRecord[]>;
  /** Replaces the scenario file. */
  scenario(value: Record<string, unknown>): Promise<void>;
  /** A model on this fake (resume on unless the config says otherwise). */
  model(
    modelId?: string,
    overrides?: Partial<CliBackendConfig>,
  ): ReturnType<typeof createCliLanguageModel>;
  cleanup(): Promise<void>;
}

/**
 * Installs the fake into a temp directory and prepares a provider environment.
 *
 * @param extraEnv Extra environment for the fake (scenario variables).
 */
export async function setupFake(extraEnv: Record<string, string> = {}): Promise<FakeSetup> {
  const dir = await mkdtemp(join(tmpdir(), "fake-cursor-agent-"));
  const bin = join(dir, "bin");
  const workspace = join(dir, "workspace");
  const fake = await installFakeCursorAgent(bin);
  await mkdir(workspace, { recursive: true });
  const recordPath = join(dir, "record.jsonl");
  const scenarioPath = join(dir, "scenario.json");
  await writeFile(scenarioPath, "{}");
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    PATH: `${bin}${process.platform === "win32" ? ";" : ":"}${process.env["PATH"] ?? ""}`,
    FAKE_CURSOR_AGENT_RECORD: recordPath,
    FAKE_CURSOR_AGENT_STATE_DIR: join(dir, "state"),
    FAKE_CURSOR_AGENT_SCENARIO: scenarioPath,
    CURSOR_ACP_SESSION_RESUME: "true",
    ...extraEnv,
  });
  delete env["CURSOR_API_KEY"];
  const { logger, lines } = createMemoryLogger();
  const cache = createResumeCache();
  const runner = createNodeProcessRunner({ killGraceMs: 400 });
  const records = async () => {
    const text = await readFile(recordPath, "utf8").catch(() => "");
    return text.split("\n").filter((line) => line.trim() !== "").map((line) =>
      JSON.parse(line) as FakeRecord
    );
  };
  return {
    dir,
    workspace,
    binaryPath: fake.binaryPath,
    env,
    scenarioPath,
    logger,
    logLines: lines,
    cache,
    records,
    starts: async () => (await records()).filter((record) => record.event === "start"),
    scenario: (value) => writeFile(scenarioPath, JSON.stringify(value)),
    model: (modelId = "auto", overrides = {}) =>
      createCliLanguageModel(modelId, {
        runner,
        binaryPath: fake.binaryPath,
        workspace,
        env,
        resumeCache: cache,
        logger,
        // Every run of the fake is bounded: a stuck process fails the test within seconds.
        idleTimeoutMs: 10_000,
        ...overrides,
      }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Whether a process is still running (zombies count as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return true;
  }
}

/** Waits until a condition holds or the time runs out. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return await condition();
}

/** Value of a flag in argv (`--resume <id>`). */
export function flagValue(argv: readonly string[] | undefined, flag: string): string | undefined {
  if (argv === undefined) return undefined;
  const index = argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
}
