/**
 * Runs one `cursor-agent` process and pumps its stdout through the line decoder, the
 * event parser and the stream mapper into the caller's stream. It stops the process
 * when host tool calls were handed over, when the caller aborts, when the CLI stays
 * silent too long, or when a resume answered with another chat than requested (in
 * that case nothing of the run reaches the caller).
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { DebugLogger } from "../../core/logger.ts";
import { createLineDecoder } from "../../cli/line-decoder.ts";
import type { ProcessExit, ProcessHandle, ProcessRunner } from "../../cli/process-runner.ts";
import { parseStreamJsonLine } from "../../cli/stream-event.ts";
import type { StreamMapper } from "./stream-mapper.ts";

/** Bytes of stderr kept for error messages. */
const STDERR_TAIL_BYTES = 64 * 1024;
/**
 * How long stdout may stay open after the process exited. A background shell the
 * CLI started can inherit the pipe and hold it open indefinitely.
 */
const EXIT_DRAIN_MS = 500;

/** Everything one attempt needs. */
export interface AttemptInput {
  readonly runner: ProcessRunner;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly stdin: string;
  readonly signal: AbortSignal;
  readonly mapper: StreamMapper;
  readonly logger: DebugLogger;
  /** Kill the run after this long without output (0: never). */
  readonly idleTimeoutMs: number;
  /** When set, output is held until the run's chat id is known and must equal this. */
  readonly expectedChatId?: string;
  /** Also emit each stdout line as a `raw` part. */
  readonly includeRaw: boolean;
  readonly emit: (parts: readonly LanguageModelV3StreamPart[]) => void;
}

/** How an attempt ended. */
export type AttemptOutcome =
  | { readonly kind: "exited"; readonly exit: ProcessExit; readonly stderr: string }
  | { readonly kind: "stopped" }
  | { readonly kind: "chat-mismatch"; readonly chatId: string }
  | { readonly kind: "aborted" }
  | { readonly kind: "idle-timeout"; readonly stderr: string }
  | { readonly kind: "spawn-failed"; readonly error: unknown };

/**
 * Runs one attempt to its end.
 *
 * @param input Process, mapper and sink.
 * @returns How the attempt ended.
 */
export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  let handle: ProcessHandle;
  try {
    handle = input.runner.spawn(input.argv, {
      env: input.env,
      cwd: input.cwd,
      stdin: input.stdin,
      signal: input.signal,
    });
  } catch (error) {
    return { kind: "spawn-failed", error };
  }
  const stderr = collectTail(handle.stderr);
  const pump = new StdoutPump(input, handle);
  const stop = await pump.run();
  if (stop !== undefined) {
    try {
      handle.kill();
    } catch (error) {
      input.logger.line(`cursor-agent: stopping the process failed: ${String(error)}`);
    }
    return stop.kind === "idle-timeout"
      ? { kind: "idle-timeout", stderr: await settle(stderr) }
      : stop;
  }
  try {
    const exit = await handle.exited;
    return { kind: "exited", exit, stderr: await settle(stderr) };
  } catch (error) {
    return { kind: "spawn-failed", error };
  }
}

type Stop =
  | { readonly kind: "stopped" }
  | { readonly kind: "chat-mismatch"; readonly chatId: string }
  | { readonly kind: "aborted" }
  | { readonly kind: "idle-timeout" };

class StdoutPump {
  readonly #input: AttemptInput;
  readonly #handle: ProcessHandle;
  readonly #held: LanguageModelV3StreamPart[] = [];
  #verifying: boolean;
  #stop: Stop | undefined;

  constructor(input: AttemptInput, handle: ProcessHandle) {
    this.#input = input;
    this.#handle = handle;
    this.#verifying = input.expectedChatId !== undefined;
  }

  /** Reads stdout to its end; returns why it stopped early, if it did. */
  async run(): Promise<Stop | undefined> {
    const reader = this.#handle.stdout.getReader();
    const decoder = createLineDecoder();
    const interrupt = (stop: Stop) => {
      this.#stop ??= stop;
      reader.cancel().catch(() => {});
    };
    const onAbort = () => interrupt({ kind: "aborted" });
    if (this.#input.signal.aborted) onAbort();
    this.#input.signal.addEventListener("abort", onAbort, { once: true });
    const idle = createIdleTimer(
      this.#input.idleTimeoutMs,
      () => interrupt({ kind: "idle-timeout" }),
    );
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    let reading = true;
    const endReading = () => {
      if (reading) reader.cancel().catch(() => {});
    };
    this.#handle.exited.then(() => {
      if (reading) drainTimer = setTimeout(endReading, EXIT_DRAIN_MS);
    }, endReading);
    try {
      while (this.#stop === undefined) {
        const { value, done } = await reader.read().catch(() => ({
          value: undefined,
          done: true as const,
        }));
        if (done) break;
        idle.reset();
        this.#lines(decoder.push(value));
        if (this.#stop === undefined) this.#batchEnd();
      }
      if (this.#stop === undefined) {
        this.#lines(decoder.end());
        if (this.#stop === undefined) this.#batchEnd();
      }
      if (decoder.droppedLines > 0) {
        this.#input.logger.line(
          `cursor-agent: dropped ${decoder.droppedLines} overlong stdout line(s)`,
        );
      }
      if (this.#stop === undefined && this.#held.length > 0) this.#input.emit(this.#held.splice(0));
      return this.#stop;
    } finally {
      reading = false;
      idle.clear();
      clearTimeout(drainTimer);
      this.#input.signal.removeEventListener("abort", onAbort);
      if (this.#stop !== undefined) reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }

  #lines(lines: readonly string[]): void {
    for (const line of lines) {
      if (this.#stop !== undefined) return;
      const parsed = parseStreamJsonLine(line);
      if (parsed.kind === "blank") continue;
      if (this.#input.includeRaw) this.#send([{ type: "raw", rawValue: line }]);
      if (parsed.kind === "malformed") {
        this.#input.logger.line(
          `cursor-agent: skipped malformed stdout line (${parsed.reason}): ${
            JSON.stringify(parsed.preview)
          }`,
        );
        continue;
      }
      this.#send(this.#input.mapper.push(parsed.event));
    }
  }

  #batchEnd(): void {
    this.#send(this.#input.mapper.endBatch());
    if (this.#input.mapper.stopRequested) this.#stop ??= { kind: "stopped" };
  }

  #send(parts: readonly LanguageModelV3StreamPart[]): void {
    if (!this.#verifying) {
      if (parts.length > 0) this.#input.emit(parts);
      return;
    }
    this.#held.push(...parts);
    const chatId = this.#input.mapper.sessionId;
    if (chatId === undefined) return;
    if (chatId !== this.#input.expectedChatId) {
      this.#held.length = 0;
      this.#stop ??= { kind: "chat-mismatch", chatId };
      return;
    }
    this.#verifying = false;
    this.#input.emit(this.#held.splice(0));
  }
}

function createIdleTimer(timeoutMs: number, onIdle: () => void): { reset(): void; clear(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const clear = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const reset = () => {
    clear();
    if (timeoutMs > 0) timer = setTimeout(onIdle, timeoutMs);
  };
  reset();
  return { reset, clear };
}

async function collectTail(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.length > STDERR_TAIL_BYTES * 2) text = text.slice(-STDERR_TAIL_BYTES);
    }
  } catch {
    // A stream error only shortens the tail.
  }
  return (text + decoder.decode()).slice(-STDERR_TAIL_BYTES);
}

/** Waits briefly for stderr after a kill (a process ignoring SIGTERM must not stall the error). */
async function settle(tail: Promise<string>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(""), 500);
  });
  try {
    return await Promise.race([tail, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
