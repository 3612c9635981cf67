/**
 * Facts about this machine for the request headers and the request context: a stable
 * machine id (SHA-256 of the platform's machine id, never the raw value) and the
 * workspace facts (working directory, OS, shell, time zone).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { hostname, networkInterfaces, release, type as osType } from "node:os";
import process from "node:process";
import { sha256Hex } from "../../core/bytes.ts";
import type { WorkspaceFacts } from "../../agent-run/request-context.ts";

const MACHINE_ID_FILES = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

/**
 * The 64-hex machine id: SHA-256 of the first non-empty platform id file, else of the
 * first non-zero MAC address, else of the host name. Stable across restarts, so
 * Cursor does not see a new device each time.
 *
 * @returns 64 lowercase hex digits.
 *
 * @example
 * ```ts
 * import { machineId } from "./machine.ts";
 *
 * console.assert(/^[0-9a-f]{64}$/.test(await machineId()));
 * ```
 */
export async function machineId(): Promise<string> {
  for (const file of MACHINE_ID_FILES) {
    try {
      const value = readFileSync(file, "utf8").trim();
      if (value) return await sha256Hex(value);
    } catch {
      // try the next source
    }
  }
  const mac = Object.values(networkInterfaces()).flat().find((i) =>
    i && i.mac && i.mac !== "00:00:00:00:00:00"
  )?.mac;
  return await sha256Hex(mac ?? hostname());
}

/**
 * Workspace facts of this process.
 *
 * @param root The workspace root; default the current directory.
 * @returns The facts for the request context.
 */
export function workspaceFacts(root: string = process.cwd()): WorkspaceFacts {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  return {
    workspaceRoot: root,
    osVersion: `${osType().toLowerCase()} ${release()}`,
    shell: process.env.SHELL ?? (process.platform === "win32" ? "powershell" : "/bin/sh"),
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
    isHomeDirectory: home !== undefined && root === home,
  };
}

/**
 * This process's current directory, read when asked (a call without a workspace of its own
 * uses the directory of that moment).
 *
 * @returns `process.cwd()`.
 */
export function currentDirectory(): string {
  return process.cwd();
}

/**
 * This process's environment variables.
 *
 * @returns `process.env`.
 */
export function processEnvironment(): Record<string, string | undefined> {
  return process.env;
}
