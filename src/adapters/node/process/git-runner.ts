/**
 * The {@link GitRunner} of Node-compatible runtimes: `git` as a child process (argv, no
 * shell), its own process group on POSIX so a timeout kills everything it started, and
 * an owned timer that settles on time even when a grandchild keeps the pipes open.
 * Git runs read-only (`GIT_OPTIONAL_LOCKS=0`: `git status` never takes the index lock a
 * person's own git commands need), never prompts, and speaks English (`LC_ALL=C`).
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import type { GitOutcome, GitRunner } from "../../../agent-run/git-facts.ts";

/** Output kept per command; the rest is dropped (status is capped far below this). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Options of {@link createNodeGitRunner}. */
export interface NodeGitRunnerOptions {
  /** The git program. Default `git` (from `PATH`). */
  readonly gitPath?: string;
  /** The environment git runs with. Default this process's. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Creates a git runner backed by `node:child_process`.
 *
 * @param options The git program and environment.
 * @returns The runner.
 *
 * @example
 * ```ts
 * import { createNodeGitRunner } from "./git-runner.ts";
 *
 * const git = createNodeGitRunner();
 * const outcome = await git.run(["--version"], { cwd: ".", timeoutMs: 5000 });
 * console.assert(outcome.kind !== "ok" || outcome.stdout.startsWith("git version"));
 * ```
 */
export function createNodeGitRunner(options: NodeGitRunnerOptions = {}): GitRunner {
  const gitPath = options.gitPath ?? "git";
  const env = {
    ...(options.env ?? process.env),
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    LC_ALL: "C",
  };
  return {
    run: (args, { cwd, timeoutMs }) =>
      new Promise<GitOutcome>((resolve) => {
        let child: ChildProcess;
        try {
          child = spawn(gitPath, [...args], {
            cwd,
            env,
            stdio: ["ignore", "pipe", "ignore"],
            shell: false,
            windowsHide: true,
            detached: process.platform !== "win32",
          });
        } catch {
          resolve({ kind: "failed", exitCode: null });
          return;
        }
        let settled = false;
        const settle = (outcome: GitOutcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(outcome);
        };
        const timer = setTimeout(() => {
          killTree(child);
          child.stdout?.destroy();
          settle({ kind: "timed-out" });
        }, timeoutMs);
        const chunks: Uint8Array[] = [];
        let size = 0;
        child.stdout?.on("data", (chunk: Uint8Array) => {
          size += chunk.length;
          if (size <= MAX_OUTPUT_BYTES) chunks.push(chunk);
        });
        child.once("error", () => settle({ kind: "failed", exitCode: null }));
        child.once("close", (code) => {
          if (code !== 0) return settle({ kind: "failed", exitCode: code });
          settle({ kind: "ok", stdout: new TextDecoder().decode(concat(chunks)) });
        });
      }),
  };
}

function killTree(child: ChildProcess): void {
  try {
    if (process.platform !== "win32" && child.pid !== undefined) {
      process.kill(-child.pid, "SIGKILL");
    } else child.kill("SIGKILL");
  } catch {
    // Already gone.
  }
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
