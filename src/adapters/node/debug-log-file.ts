/**
 * The debug log's file sink: the announcement on stderr, a process header on a fresh
 * file, `reinit=append` when a second logger opens the same file, and truncation with
 * `debug: size-cap truncate` once the file reaches the size cap. Never throws: a
 * logging failure must not break a model call.
 *
 * @module
 */
import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { tmpdir } from "node:os";
import process from "node:process";
import type { DebugLogger } from "../../core/logger.ts";
import { redactSecrets } from "../../core/cursor-error.ts";
import {
  DEBUG_LOG_SIZE_CAP_BYTES,
  type DebugLogEnvironment,
  resolveDebugLogSettings,
} from "../../core/debug-settings.ts";

/** Options for {@link createFileDebugLogger}. */
export interface FileDebugLoggerOptions {
  /** Environment values; defaults to `process.env`. */
  readonly env?: DebugLogEnvironment;
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
 * Creates the debug logger described by `CURSOR_PROVIDER_DEBUG` and
 * `CURSOR_PROVIDER_DEBUG_FILE`; a silent logger when the log is off.
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
  const env = options.env ?? (process.env as DebugLogEnvironment);
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
  announce(`[cursor-provider] CURSOR_PROVIDER_DEBUG logging to ${path}`);
  let size = openLogFile(path, now(), options.version ?? "unknown");
  return {
    enabled: true,
    line(text: string) {
      const entry = `${now().toISOString()} ${redactSecrets(text)}\n`;
      try {
        if (size >= cap) {
          const notice =
            `${now().toISOString()} debug: size-cap truncate previousBytes=${size} capBytes=${cap}\n`;
          writeFileSync(path, notice);
          size = byteLength(notice);
        }
        appendFileSync(path, entry);
        size += byteLength(entry);
      } catch {
        // A failing log must never fail the model call.
      }
    },
  };
}

function openLogFile(path: string, at: Date, version: string): number {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const existing = fileSize(path);
    const reinit = existing > 0 ? " reinit=append" : "";
    const header =
      `${at.toISOString()} debug: process header pid=${process.pid} runtime=${runtimeName()} version=${version}${reinit}\n`;
    appendFileSync(path, header, { mode: 0o600 });
    return existing + byteLength(header);
  } catch {
    return 0;
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

function runtimeName(): string {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return `bun-${versions.bun}`;
  if (versions.deno) return `deno-${versions.deno}`;
  return `node-${process.versions.node}`;
}
