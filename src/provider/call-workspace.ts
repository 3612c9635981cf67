/**
 * The workspace directory of one call: `providerOptions.cursor.workspace` (the OpenCode
 * plugin sets it to the directory of the session the call belongs to), else the
 * provider's `workspace` setting, else the current directory at call time. Both backends
 * read it per call, so one provider serving several projects never mixes them up
 * (docs/decisions/155-…).
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { CursorError } from "../core/cursor-error.ts";

const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/])/;

/**
 * Reads and checks the call's workspace directory, if it names one.
 *
 * @param providerOptions The call's provider options.
 * @param providerName The provider's name (`cursor`, or what the host registered).
 * @returns The absolute directory without trailing separators, or `undefined`.
 * @throws {CursorError} `invalid_argument` when the value is not an absolute path.
 *
 * @example
 * ```ts
 * import { callWorkspace } from "./call-workspace.ts";
 *
 * console.assert(callWorkspace({ cursor: { workspace: "/work/app/" } }, "cursor") === "/work/app");
 * console.assert(callWorkspace({}, "cursor") === undefined);
 * ```
 */
export function callWorkspace(
  providerOptions: LanguageModelV3CallOptions["providerOptions"],
  providerName: string,
): string | undefined {
  const raw = (providerOptions?.[providerName] ?? providerOptions?.cursor)?.workspace;
  if (raw === undefined) return undefined;
  if (
    typeof raw !== "string" || raw.includes("\u0000") || /[\r\n]/.test(raw) ||
    !(raw.startsWith("/") || WINDOWS_ABSOLUTE.test(raw))
  ) {
    throw new CursorError(
      "invalid_argument",
      `Invalid providerOptions.cursor: workspace must be an absolute directory path, got ${
        JSON.stringify(raw)
      }`,
    );
  }
  return trimSeparators(raw);
}

function trimSeparators(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  if (trimmed === "") return "/";
  // `C:` alone would mean the drive's current directory: keep its separator.
  return /^[A-Za-z]:$/.test(trimmed) ? `${trimmed}${path[2]}` : trimmed;
}
