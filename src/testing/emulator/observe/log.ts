/**
 * The emulator's message log: every RPC and every decoded message, with direction,
 * Run id and time, in a bounded ring (old entries fall off), plus a readable
 * transcript.
 *
 * @module
 */

/**
 * Which way a logged item travelled.
 *
 * @example
 * ```ts
 * import type { LogDirection } from "../../mod.ts";
 *
 * const direction: LogDirection = "client";
 * console.assert(direction === "client");
 * ```
 */
export type LogDirection = "client" | "server" | "http";

/**
 * One logged item.
 *
 * @example
 * ```ts
 * import { createEmulator, type LogEntry } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const entries: LogEntry[] = emulator.log({ direction: "server" });
 *   console.assert(entries.length === 0);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface LogEntry {
  /** Monotonic sequence number (survives the ring dropping old entries). */
  readonly seq: number;
  /** Emulator clock time in ms. */
  readonly time: number;
  /** The Run it belongs to (undefined for plain HTTP requests). */
  readonly runId: string | undefined;
  /** Which way it travelled. */
  readonly direction: LogDirection;
  /** The RPC or HTTP route, e.g. `RunSSE`, `BidiAppend`, `POST /auth/poll`. */
  readonly rpc: string;
  /** What it was, e.g. `interaction_update.text_delta`, `exec_client_message.shell_stream`. */
  readonly kind: string;
  /** A short human-readable rendering. */
  readonly summary: string;
  /** The decoded message, when there is one. */
  readonly message?: unknown;
}

/**
 * Filters for {@link EmulatorLog.entries}.
 *
 * @example
 * ```ts
 * import type { LogFilter } from "../../mod.ts";
 *
 * const filter: LogFilter = { runId: "run-1", kind: "exec_" };
 * console.assert(filter.kind === "exec_");
 * ```
 */
export interface LogFilter {
  /** Only this Run. */
  readonly runId?: string;
  /** Only this direction. */
  readonly direction?: LogDirection;
  /** Keep entries whose kind starts with this. */
  readonly kind?: string;
}

/** Entries kept by default. */
export const DEFAULT_LOG_LIMIT = 20_000;

/** A bounded log. */
export class EmulatorLog {
  readonly #limit: number;
  readonly #keepMessages: boolean;
  readonly #entries: LogEntry[] = [];
  #start = 0;
  #seq = 0;

  /**
   * @param limit Largest number of entries kept; 0 disables logging.
   * @param keepMessages Keep decoded messages on entries (costs memory).
   */
  constructor(limit: number = DEFAULT_LOG_LIMIT, keepMessages = true) {
    this.#limit = limit;
    this.#keepMessages = keepMessages;
  }

  /** Whether anything is recorded at all. */
  get enabled(): boolean {
    return this.#limit > 0;
  }

  /** Appends an entry (dropping the oldest past the limit). */
  add(entry: Omit<LogEntry, "seq">): void {
    if (this.#limit <= 0) return;
    const stored: LogEntry = this.#keepMessages || entry.message === undefined
      ? { ...entry, seq: this.#seq++ }
      : { ...withoutMessage(entry), seq: this.#seq++ };
    if (this.#entries.length < this.#limit) {
      this.#entries.push(stored);
      return;
    }
    this.#entries[this.#start] = stored;
    this.#start = (this.#start + 1) % this.#limit;
  }

  /** The kept entries in order, optionally filtered. */
  entries(filter: LogFilter = {}): LogEntry[] {
    const ordered = [...this.#entries.slice(this.#start), ...this.#entries.slice(0, this.#start)];
    return ordered.filter((entry) =>
      (filter.runId === undefined || entry.runId === filter.runId) &&
      (filter.direction === undefined || entry.direction === filter.direction) &&
      (filter.kind === undefined || entry.kind.startsWith(filter.kind))
    );
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.length = 0;
    this.#start = 0;
  }

  /** Number of entries kept. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * Renders entries as lines: `+<ms> <run> <arrow> <kind> <summary>`, times relative
   * to the first entry shown.
   */
  transcript(filter: LogFilter = {}): string {
    const entries = this.entries(filter);
    const origin = entries[0]?.time ?? 0;
    return entries.map((entry) => formatLine(entry, origin)).join("\n");
  }
}

const ARROWS: Readonly<Record<LogDirection, string>> = {
  client: "C→S",
  server: "S→C",
  http: "HTTP",
};

function formatLine(entry: LogEntry, origin: number): string {
  const time = `+${String(Math.round(entry.time - origin)).padStart(5, " ")}ms`;
  const run = (entry.runId ?? "-").padEnd(7, " ");
  const summary = entry.summary === "" ? "" : ` ${entry.summary}`;
  return `${time} ${run} ${ARROWS[entry.direction]} ${entry.rpc} ${entry.kind}${summary}`;
}

function withoutMessage(entry: Omit<LogEntry, "seq">): Omit<LogEntry, "seq"> {
  const { message: _message, ...rest } = entry;
  return rest;
}

/** Shortens text for a summary: first `max` characters, newlines shown as `⏎`. */
export function clip(text: string, max = 60): string {
  const flat = text.replaceAll("\n", "⏎");
  return flat.length <= max ? JSON.stringify(flat) : `${JSON.stringify(flat.slice(0, max))}…`;
}
