/**
 * The workspace a call's Run describes to Cursor (its directory, OS, shell, time zone)
 * and the machine id its requests carry.
 *
 * @module
 */
import { sha256Hex } from "../../../core/bytes.ts";
import { CursorError } from "../../../core/cursor-error.ts";
import type { WorkspaceFacts } from "../../../agent-run/request-context.ts";
import type { ProviderAdapters } from "../../provider-adapters.ts";
import type { CursorProviderSettings } from "../../settings/cursor-settings.ts";

/**
 * The machine id Cursor's requests carry: the configured one (64 lowercase hex digits),
 * else the adapter's, else a digest of a fresh id.
 *
 * @returns 64 lowercase hex digits.
 * @throws {CursorError} `config` for a configured id of another shape.
 */
export async function resolveMachineId(
  configured: CursorProviderSettings["machineId"],
  adapter: (() => Promise<string>) | undefined,
  generateId: () => string,
): Promise<string> {
  const value = typeof configured === "function" ? await configured() : configured;
  if (value) {
    if (!/^[0-9a-f]{64}$/.test(value)) {
      throw new CursorError("config", "machineId must be 64 lowercase hex digits");
    }
    return value;
  }
  if (adapter) return await adapter();
  return await sha256Hex(generateId());
}

/**
 * One call's workspace directory: the call's, else the setting's, else the current one.
 *
 * @returns The directory.
 */
export function workspaceRootOf(
  configured: Partial<WorkspaceFacts> | undefined,
  adapters: ProviderAdapters,
  callRoot: string | undefined,
): string {
  return callRoot ?? configured?.workspaceRoot ?? adapters.cwd?.() ?? "/";
}

/**
 * One call's workspace facts. A directory the call names replaces the setting's root (and
 * the home-directory flag computed for it); the other facts of the setting still apply.
 *
 * @returns The facts the Run's request context carries.
 */
export function resolveWorkspace(
  configured: Partial<WorkspaceFacts> | undefined,
  adapters: ProviderAdapters,
  callRoot: string | undefined,
): WorkspaceFacts {
  const root = workspaceRootOf(configured, adapters, callRoot);
  const { workspaceRoot: _root, isHomeDirectory, ...rest } = configured ?? {};
  return {
    ...defaultWorkspace(),
    ...adapters.workspace?.(root),
    ...rest,
    ...(callRoot === undefined && isHomeDirectory !== undefined ? { isHomeDirectory } : {}),
    workspaceRoot: root,
  };
}

function defaultWorkspace(): WorkspaceFacts {
  return {
    workspaceRoot: "/",
    osVersion: "unknown",
    shell: "/bin/sh",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
  };
}
