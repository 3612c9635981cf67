/**
 * The doctor's vocabulary: what a check reports and the probes it may use. Checks are
 * sans-IO functions over these probes; the runtime adapter provides them (files, DNS,
 * TLS, processes, fetch), and tests provide an emulator and a scratch home.
 *
 * @module
 */

/** How a check came out. `warn` does not fail the run; `fail` does. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/**
 * One finding.
 *
 * @example
 * ```ts
 * import type { CheckResult } from "./doctor-types.ts";
 *
 * const result: CheckResult = {
 *   id: "credentials.present",
 *   title: "Credentials",
 *   status: "fail",
 *   detail: "No Cursor credentials found",
 *   fix: "opencode auth login",
 * };
 * console.assert(result.fix === "opencode auth login");
 * ```
 */
export interface CheckResult {
  /** Stable id, e.g. `hosts.agent-allow-list`. */
  readonly id: string;
  /** Short human title. */
  readonly title: string;
  readonly status: CheckStatus;
  /** What was found (never a secret). */
  readonly detail: string;
  /** The command or edit that fixes a problem. */
  readonly fix?: string;
}

/** What a process run returned; `undefined` from {@link DoctorProbes.run} when it could not start. */
export interface ProcessOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a TLS handshake showed. */
export interface TlsOutcome {
  /** e.g. `TLSv1.3`. */
  readonly protocol: string;
  /** ALPN result, e.g. `h2`. */
  readonly alpn: string;
}

/** Where things live on this machine. */
export interface DoctorPaths {
  /** OpenCode's credentials file. */
  readonly authFile: string;
  /** The plugin's model cache. */
  readonly modelCache: string;
  /** OpenCode config files to inspect (global and project), in precedence order. */
  readonly openCodeConfigs: readonly string[];
  /** The debug log file the provider would write with the current settings. */
  readonly debugLog: string | undefined;
}

/** Everything a check may touch. */
export interface DoctorProbes {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly fetch: typeof fetch;
  readonly paths: DoctorPaths;
  /** A file's text, or `undefined` when it cannot be read. */
  readFile(path: string): Promise<string | undefined>;
  /** Whether a path exists. */
  exists(path: string): Promise<boolean>;
  /** DNS addresses of a host; throws when it does not resolve. */
  lookupHost(hostname: string): Promise<readonly string[]>;
  /** A TLS handshake with certificate verification; throws with the reason when it fails. */
  tlsHandshake(hostname: string, port: number): Promise<TlsOutcome>;
  /** Runs a program (argv, no shell) under a deadline. */
  run(
    command: string,
    args: readonly string[],
    timeoutMs: number,
  ): Promise<ProcessOutcome | undefined>;
  /** The `cursor-agent` binary, if installed. */
  findCursorAgent(): string | undefined;
  /** The 64-hex machine id. */
  machineId(): Promise<string>;
  now(): number;
}

/**
 * The doctor's whole answer.
 *
 * @example
 * ```ts
 * import type { DoctorReport } from "./doctor-types.ts";
 *
 * const report: DoctorReport = { ok: true, checks: [] };
 * console.assert(report.ok);
 * ```
 */
export interface DoctorReport {
  /** No check failed. */
  readonly ok: boolean;
  readonly checks: readonly CheckResult[];
}

/** Shorthand for a result. */
export function result(
  id: string,
  title: string,
  status: CheckStatus,
  detail: string,
  fix?: string,
): CheckResult {
  return fix === undefined ? { id, title, status, detail } : { id, title, status, detail, fix };
}
