/**
 * The workspace directory of one call: `providerOptions.cursor.workspace` (the OpenCode
 * plugin sets it to the directory of the session the call belongs to), else the
 * provider's `workspace` setting, else the current directory at call time. Both backends
 * read it per call, so one provider serving several projects never mixes them up
 * (docs/decisions/155-workspace-per-call.md). The value is checked by the options table
 * (`cursor-options.ts`), like every other key.
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { readCursorOptions } from "../settings/cursor-options.ts";

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
  return readCursorOptions(providerOptions, providerName).workspace;
}
