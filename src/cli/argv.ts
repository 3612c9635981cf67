/**
 * Builds the argv of one `cursor-agent` run. The prompt never goes into argv (it is
 * written to stdin) and neither does the API key (it goes into the environment).
 * Every variable value is checked, because on Windows the `.cmd` shim is started
 * through `cmd.exe`, where a quote or a `%` could change the command.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { isSafeChatId } from "./resume-cache.ts";

/** Permission-related flags a user can choose. */
export interface CursorAgentPermissions {
  /** `--force`: Cursor runs every tool without asking (its "Run Everything"). Default off. */
  readonly force?: boolean;
  /** `--trust`: trust the workspace without a prompt (headless runs need it). Default on. */
  readonly trust?: boolean;
  /** `--approve-mcps`: approve the workspace's MCP servers without a prompt. Default off. */
  readonly approveMcps?: boolean;
  /** `--sandbox enabled|disabled`: Cursor's command sandbox. Default: the CLI's own setting. */
  readonly sandbox?: "enabled" | "disabled";
}

/** Everything one run's argv is built from. */
export interface CursorAgentArgvOptions extends CursorAgentPermissions {
  readonly binaryPath: string;
  /** Concrete Cursor model id, e.g. `auto` or `claude-opus-4-8[effort=high]`. */
  readonly model: string;
  readonly workspace: string;
  /** A chat to resume. */
  readonly resumeChatId?: string;
}

const SAFE_MODEL = /^[A-Za-z0-9][A-Za-z0-9._:=,/[\]-]{0,199}$/;
const UNSAFE_PATH = /["%\r\n]/;

/**
 * Builds argv: `--print --output-format stream-json --stream-partial-output
 * --workspace <dir> --model <id> [--resume <chat>] [--force] [--trust]
 * [--approve-mcps] [--sandbox <mode>]`.
 *
 * @param options Binary, model, workspace, chat and permission flags.
 * @returns The argv array (program first).
 * @throws {CursorError} `invalid_argument` when the model id, workspace or chat id is unsafe.
 *
 * @example
 * ```ts
 * import { buildCursorAgentArgv } from "./argv.ts";
 *
 * const argv = buildCursorAgentArgv({ binaryPath: "cursor-agent", model: "auto", workspace: "/w", resumeChatId: "c-1" });
 * console.assert(argv.join(" ") ===
 *   "cursor-agent --print --output-format stream-json --stream-partial-output --workspace /w --model auto --resume c-1 --trust");
 * ```
 */
export function buildCursorAgentArgv(options: CursorAgentArgvOptions): string[] {
  if (!SAFE_MODEL.test(options.model)) {
    throw new CursorError(
      "invalid_argument",
      `Cannot run cursor-agent: model id "${options.model}" has unsupported characters`,
    );
  }
  if (
    options.workspace.trim() === "" || UNSAFE_PATH.test(options.workspace) ||
    options.workspace.includes("\u0000")
  ) {
    throw new CursorError(
      "invalid_argument",
      `Cannot run cursor-agent: workspace "${options.workspace}" is empty or has quotes, % or line breaks`,
    );
  }
  const argv = [
    options.binaryPath,
    "--print",
    "--output-format",
    "stream-json",
    "--stream-partial-output",
    "--workspace",
    options.workspace,
    "--model",
    options.model,
  ];
  if (options.resumeChatId !== undefined) {
    if (!isSafeChatId(options.resumeChatId)) {
      throw new CursorError(
        "invalid_argument",
        `Cannot resume chat "${options.resumeChatId}": unsafe chat id`,
      );
    }
    argv.push("--resume", options.resumeChatId);
  }
  if (options.force === true) argv.push("--force");
  if (options.trust !== false) argv.push("--trust");
  if (options.approveMcps === true) argv.push("--approve-mcps");
  if (options.sandbox !== undefined) argv.push("--sandbox", options.sandbox);
  return argv;
}
