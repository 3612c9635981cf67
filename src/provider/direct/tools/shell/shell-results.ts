/**
 * A host shell tool's answer as Cursor's shell result: unary (`shell_result`) or a stream
 * of start, output, exit (`shell_stream`). The exit status comes from the wrapper's
 * marker; a host timeout exits 124 and a stop in the host stays an abort; the host's
 * footer and the marker never reach stdout, and the output is never trimmed. Output a
 * failed or stopped command printed before it ended is kept beside its failure.
 *
 * @module
 */
import { ShellAbortReason } from "../../../../gen/agent/v1/exec_shell_pb.ts";
import type { ExecKind } from "../exec-to-tool-call.ts";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ExecClientMessageSchema } from "../../../../gen/agent/v1/exec_pb.ts";
import { type ParsedShellOutput, parseWrappedOutput, TIMEOUT_EXIT_CODE } from "./shell-wrapper.ts";
import type { ToolResultText } from "../tool-result-text.ts";
import { boundText, SHELL_OUTPUT_LIMIT } from "../output-bounds.ts";

/** The `message` oneof of an `ExecClientMessage`. */
export type ExecResultInit = NonNullable<
  MessageInitShape<typeof ExecClientMessageSchema>["message"]
>;

/**
 * The shell result message(s) for a host result.
 *
 * @param kind How the shell exec was bridged.
 * @param result The host tool's result as text.
 * @returns The result messages, in order (before `stream_close`).
 *
 * @example
 * ```ts
 * import { shellResult } from "./shell-results.ts";
 *
 * const [message] = shellResult(
 *   { kind: "shell", command: "false", cwd: "/ws", nonce: "n", stream: false, background: false },
 *   { text: "\n__CURSOR_EXEC_EXIT_n=1__\n", isError: false, denied: false },
 * );
 * console.assert(message?.case === "shellResult" && message.value.result?.case === "failure");
 * ```
 */
export function shellResult(
  kind: Extract<ExecKind, { kind: "shell" }>,
  result: ToolResultText,
): ExecResultInit[] {
  const wrapped = parseWrappedOutput(result.text, kind.nonce);
  const parsed = { ...wrapped, output: boundText(wrapped.output, SHELL_OUTPUT_LIMIT).text };
  if (result.denied) {
    const rejected = { command: kind.command, workingDirectory: kind.cwd, reason: result.text };
    return kind.stream
      ? [{ case: "shellStream", value: { event: { case: "rejected", value: rejected } } }]
      : [{ case: "shellResult", value: { result: { case: "rejected", value: rejected } } }];
  }
  // A host-side failure (an error result with no exit marker) is the host's, not the
  // command's: it reaches Cursor once, as stderr, in streamed and unary results alike.
  const hostFailure = parsed.exitCode === undefined && result.isError && !parsed.userAborted;
  const exitCode = kind.background ? 0 : parsed.exitCode ?? (result.isError ? 1 : 0);
  const aborted = parsed.timedOut || parsed.userAborted;
  const abortReason = parsed.timedOut
    ? ShellAbortReason.TIMEOUT
    : parsed.userAborted
    ? ShellAbortReason.USER_ABORT
    : undefined;
  if (!kind.stream) {
    const body = {
      command: kind.command,
      workingDirectory: kind.cwd,
      exitCode,
      stdout: hostFailure ? "" : parsed.output,
      stderr: hostFailure ? parsed.output : "",
    };
    return [
      exitCode === 0 && !aborted
        ? { case: "shellResult", value: { result: { case: "success", value: body } } }
        : {
          case: "shellResult",
          value: {
            result: {
              case: "failure",
              value: { ...body, aborted, ...(abortReason === undefined ? {} : { abortReason }) },
            },
          },
        },
    ];
  }
  return streamFrames(kind, parsed, { hostFailure, exitCode, aborted, abortReason });
}

function streamFrames(
  kind: Extract<ExecKind, { kind: "shell" }>,
  parsed: ParsedShellOutput,
  outcome: {
    readonly hostFailure: boolean;
    readonly exitCode: number;
    readonly aborted: boolean;
    readonly abortReason: ShellAbortReason | undefined;
  },
): ExecResultInit[] {
  const { hostFailure, exitCode, aborted, abortReason } = outcome;
  const frames: ExecResultInit[] = [{
    case: "shellStream",
    value: { event: { case: "start", value: {} } },
  }];
  // The host's shell combines both streams; a host-side failure (no exit marker) is stderr.
  const channel = hostFailure ? "stderr" : "stdout";
  if (parsed.output !== "") {
    frames.push({
      case: "shellStream",
      value: { event: { case: channel, value: { data: parsed.output } } },
    });
  }
  if (kind.background) {
    frames.push({
      case: "shellStream",
      value: {
        event: {
          case: "backgrounded",
          value: { command: kind.command, workingDirectory: kind.cwd },
        },
      },
    });
  }
  frames.push({
    case: "shellStream",
    value: {
      event: {
        case: "exit",
        value: {
          code: parsed.timedOut ? TIMEOUT_EXIT_CODE : exitCode,
          cwd: kind.cwd,
          aborted,
          ...(abortReason === undefined ? {} : { abortReason }),
        },
      },
    },
  });
  return frames;
}
