/**
 * The one seam between the CLI backend and the operating system: a small interface
 * for starting a process. The core never spawns anything itself; the Node adapter
 * (`src/adapters/node/process/process-runner.ts`) and test stubs implement it.
 *
 * @module
 */

/** How to start one process. */
export interface ProcessSpawnOptions {
  /** The complete environment of the child (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** Working directory of the child. */
  readonly cwd?: string;
  /** Text written to the child's stdin, which is then closed. */
  readonly stdin: string;
  /** Aborting kills the child (and its process group). */
  readonly signal?: AbortSignal;
}

/** How a process ended. */
export interface ProcessExit {
  /** Exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it (e.g. `SIGTERM`), or `null`. */
  readonly signal: string | null;
}

/** A running process. */
export interface ProcessHandle {
  /** The operating-system process id, when known. */
  readonly pid: number | undefined;
  /** The child's stdout. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The child's stderr. */
  readonly stderr: ReadableStream<Uint8Array>;
  /**
   * Settles when the process has ended. Rejects when it could not be started at all
   * (the rejection carries the system error, e.g. `code: "ENOENT"`).
   */
  readonly exited: Promise<ProcessExit>;
  /** Stops the process and everything it started: a polite signal, then a forced kill. */
  kill(): void;
}

/** Starts processes from an argv array, never through a shell. */
export interface ProcessRunner {
  /**
   * Starts a process.
   *
   * @param argv The program followed by its arguments.
   * @param options Environment, working directory, stdin text and abort signal.
   * @returns A handle on the running process.
   */
  spawn(argv: readonly string[], options: ProcessSpawnOptions): ProcessHandle;
}
