/**
 * The debug log's file sink: the announcement on stderr, a process header on a fresh
 * file, `reinit=append` when a second logger opens the same file, and truncation with
 * `debug: size-cap truncate` once the file reaches the size cap. The file is owner-only
 * (0600) however often it is re-created; each line is one append, and the cap is checked
 * against the file on disk, so processes sharing one log keep it bounded and whole-lined.
 * Never throws: a logging failure must not break a model call.
 *
 * @module
 */
import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import {
  type DebugLogger,
  type DiagnosticRecord,
  recoveryOnlyLogger,
} from "../../../core/logger.ts";
import { redactSecrets } from "../../../core/cursor-error.ts";
import {
  DEBUG_LOG_SIZE_CAP_BYTES,
  type DebugLogEnvironment,
  resolveDebugLogSettings,
} from "../../../core/debug-settings.ts";
import { appendPrivateLine } from "./private-file.ts";
/** Environment values of the file log: the debug settings plus the line format. */
export interface FileDebugLogEnvironment extends DebugLogEnvironment {
  /** `CURSOR_PROVIDER_DEBUG_FORMAT`: `jsonl` writes each event as one JSON object per line. */
  readonly CURSOR_PROVIDER_DEBUG_FORMAT?: string | undefined;
}

/** Options for {@link createFileDebugLogger}. */
export interface FileDebugLoggerOptions {
  /** Environment values; defaults to `process.env`. */
  readonly env?: FileDebugLogEnvironment;
  /** Where the announcement goes; defaults to stderr. */
  readonly announce?: (line: string) => void;
  /** Size cap in bytes; defaults to 10 MiB. */
  readonly sizeCapBytes?: number;
  /** Clock for line timestamps. */
  readonly now?: () => Date;
  /** Text naming the package version in the process header. */
  readonly version?: string;
}

/**
 * Creates the debug logger described by `CURSOR_PROVIDER_DEBUG`,
 * `CURSOR_PROVIDER_DEBUG_FILE` and `CURSOR_PROVIDER_DEBUG_FORMAT` (`text`, the runbook's
 * lines, by default; `jsonl` for one typed event per line); a silent logger when the log
 * is off.
 *
 * @param options Environment, announcement sink, size cap and clock.
 * @returns A {@link DebugLogger}.
 *
 * @example
 * ```ts
 * import { createFileDebugLogger } from "./debug-log-file.ts";
 *
 * const logger = createFileDebugLogger({ env: {} });
 * console.assert(!logger.enabled);
 * ```
 */
export function createFileDebugLogger(options: FileDebugLoggerOptions = {}): DebugLogger {
  const env = options.env ?? (process.env as FileDebugLogEnvironment);
  const jsonl = env.CURSOR_PROVIDER_DEBUG_FORMAT?.trim().toLowerCase() === "jsonl";
  const settings = resolveDebugLogSettings(env, {
    pid: process.pid,
    uid: typeof process.getuid === "function" ? process.getuid() : undefined,
    tmpDir: tmpdir(),
  });
  if (!settings.enabled || settings.path === undefined) return { enabled: false, line() {} };
  const path = settings.path;
  const cap = options.sizeCapBytes ?? DEBUG_LOG_SIZE_CAP_BYTES;
  const now = options.now ?? (() => new Date());
  const announce = options.announce ?? ((line: string) => process.stderr.write(`${line}\n`));
  announce(
    settings.recoveryOnly === true
      ? `[cursor-provider] CURSOR_PROVIDER_RECOVERY_DEBUG logging recovery lines to ${path}`
      : `[cursor-provider] CURSOR_PROVIDER_DEBUG logging to ${path}`,
  );
  const append = (line: string) =>
    appendPrivateLine(path, line, {
      capBytes: cap,
      truncateNotice: (previousBytes) =>
        jsonl
          ? `${
            JSON.stringify({
              time: now().toISOString(),
              kind: "size-cap-truncate",
              previousBytes,
              capBytes: cap,
            })
          }\n`
          : `${now().toISOString()} debug: size-cap truncate previousBytes=${previousBytes} capBytes=${cap}\n`,
    });
  try {
    const reinit = fileSize(path) > 0;
    const header = {
      pid: process.pid,
      runtime: runtimeName(),
      version: options.version ?? "unknown",
    };
    append(
      jsonl
        ? `${
          JSON.stringify({
            time: now().toISOString(),
            kind: "process-header",
            ...header,
            ...(reinit ? { reinit: "append" } : {}),
          })
        }\n`
        : `${now().toISOString()} debug: process header pid=${header.pid} runtime=${header.runtime} version=${header.version}${
          reinit ? " reinit=append" : ""
        }\n`,
    );
  } catch {
    // The log stays best effort: lines are tried again one by one.
  }
  const write = (line: string) => {
    try {
      append(line);
    } catch {
      // A failing log must never fail the model call.
    }
  };
  const scoped = (logger: DebugLogger) =>
    settings.recoveryOnly === true ? recoveryOnlyLogger(logger) : logger;
  if (!jsonl) {
    return scoped({
      enabled: true,
      line: (text) => write(`${now().toISOString()} ${redactSecrets(text)}\n`),
    });
  }
  const json = (fields: object) =>
    write(`${redactSecrets(JSON.stringify({ time: now().toISOString(), ...fields }))}\n`);
  return scoped({
    enabled: true,
    line: (text) => json({ kind: "text", text }),
    record: (event: DiagnosticRecord) => json(event),
  });
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function runtimeName(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return `bun-${versions.bun}`;
  if (versions.deno) return `deno-${versions.deno}`;
  return `node-${process.versions.node}`;
}
