/**
 * Running a command in a real pseudo-terminal (util-linux `script`), for prompts that
 * need a TTY such as OpenCode's "Enter your API key": the test waits for a text on the
 * screen, types an answer, and reads everything the terminal showed. The command runs
 * under a hard timeout in its own process group, killed (by its id) when it ends.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";

/** A command running in a pseudo-terminal. */
export interface TerminalSession {
  /** Everything the terminal showed so far, escape sequences included. */
  screen(): string;
  /** Resolves once `pattern` appears on the screen after `from` (a screen offset). */
  waitFor(pattern: RegExp, ms: number, from?: number): Promise<number>;
  /** Types text into the terminal. */
  type(text: string): void;
  /** Resolves with the exit code once the command ended (or was killed at its limit). */
  exited(): Promise<{ code: number | null; timedOut: boolean }>;
  /** Kills the command's process group. */
  kill(): void;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/**
 * Starts `command args…` in a pseudo-terminal.
 *
 * @param command The executable.
 * @param args Its arguments.
 * @param options Working directory, environment, hard lifetime limit.
 * @returns The session; call `kill()` in `finally`.
 */
export function startInTerminal(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): TerminalSession {
  // A fresh pseudo-terminal is 0×0; prompts would then wrap after every character.
  const line = `stty cols 120 rows 40; exec ${[command, ...args].map(shellQuote).join(" ")}`;
  const child = spawn("script", ["-qfec", line, "/dev/null"], {
    cwd: options.cwd,
    env: { ...options.env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let screen = "";
  const waiters = new Set<() => void>();
  const append = (chunk: Uint8Array) => {
    screen += new TextDecoder().decode(chunk);
    for (const wake of waiters) wake();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  let timedOut = false;
  const limit = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, options.timeoutMs);
  const done = new Promise<{ code: number | null; timedOut: boolean }>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(limit);
      for (const wake of waiters) wake();
      resolve({ code, timedOut });
    });
  });
  return {
    screen: () => screen,
    waitFor(pattern, ms, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const index = screen.slice(from).search(pattern);
          if (index >= 0) {
            finish();
            resolve(from + index);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            finish();
            reject(new Error(`the command ended before ${pattern} appeared:\n${screen}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`${pattern} did not appear within ${ms} ms:\n${screen}`));
        }, ms);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    type: (text) => void child.stdin?.write(text),
    exited: () => done,
    kill: () => {
      clearTimeout(limit);
      killGroup(child);
    },
  };
}

/**
 * The terminal's text without ANSI escape sequences and carriage returns.
 *
 * @param screen Raw terminal output.
 * @returns Plain text.
 */
export function plainText(screen: string): string {
  // deno-lint-ignore no-control-regex
  return screen.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\r/g, "");
}
