/**
 * Explicit, typed refusals for exec requests this client will not run. Every request
 * gets an answer of its own result type (never a guessed success, never silence), so
 * the Run continues and the model learns why.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type ExecClientMessage,
  ExecClientMessageSchema,
  type ExecServerMessage,
} from "../gen/agent/v1/exec_pb.ts";

type ExecMessageInit = MessageInitShape<typeof ExecClientMessageSchema>["message"];

/**
 * The refusal for one exec request: a typed rejection where the result type has one,
 * else its error case. `undefined` when the case has no result shape we can build
 * (the caller then answers with an exec `throw`).
 *
 * @param request The server's exec request.
 * @param reason Why it is refused, shown to the model.
 * @returns The client message answering it, or `undefined`.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { ExecServerMessageSchema } from "../gen/agent/v1/exec_pb.ts";
 * import { refuseExec } from "./exec-refusal.ts";
 *
 * const request = create(ExecServerMessageSchema, { id: 3, message: { case: "readArgs", value: { path: "/x" } } });
 * const answer = refuseExec(request, "Not allowed");
 * console.assert(answer?.id === 3 && answer.message.case === "readResult");
 * ```
 */
export function refuseExec(
  request: ExecServerMessage,
  reason: string,
): ExecClientMessage | undefined {
  const message = refusalFor(request, reason);
  if (message === undefined) return undefined;
  return create(ExecClientMessageSchema, { id: request.id, message });
}

/** The request's `message` oneof. */
type ExecRequest = ExecServerMessage["message"];
/** A request of one of the given cases. */
type RequestOf<C extends NonNullable<ExecRequest["case"]>> = Extract<ExecRequest, { case: C }>;

function refusalFor(request: ExecServerMessage, reason: string): ExecMessageInit | undefined {
  const m = request.message;
  switch (m.case) {
    case "readArgs":
    case "writeArgs":
    case "deleteArgs":
    case "lsArgs":
      return fileRefusal(m, reason);
    case "shellArgs":
    case "shellStreamArgs":
    case "backgroundShellSpawnArgs":
      return shellRefusal(m, reason);
    default:
      return otherRefusal(m, reason);
  }
}

/** A file request's rejection, naming the path. */
function fileRefusal(
  m: RequestOf<"readArgs" | "writeArgs" | "deleteArgs" | "lsArgs">,
  reason: string,
): ExecMessageInit {
  switch (m.case) {
    case "readArgs":
      return {
        case: "readResult",
        value: { result: { case: "rejected", value: { path: m.value.path, reason } } },
      };
    case "writeArgs":
      return {
        case: "writeResult",
        value: { result: { case: "rejected", value: { path: m.value.path, reason } } },
      };
    case "deleteArgs":
      return {
        case: "deleteResult",
        value: { result: { case: "rejected", value: { path: m.value.path, reason } } },
      };
    case "lsArgs":
      return {
        case: "lsResult",
        value: { result: { case: "rejected", value: { path: m.value.path, reason } } },
      };
  }
}

/** A shell request's rejection, naming the command and its directory. */
function shellRefusal(
  m: RequestOf<"shellArgs" | "shellStreamArgs" | "backgroundShellSpawnArgs">,
  reason: string,
): ExecMessageInit {
  switch (m.case) {
    case "shellArgs":
      return {
        case: "shellResult",
        value: {
          result: {
            case: "rejected",
            value: { command: m.value.command, workingDirectory: m.value.workingDirectory, reason },
          },
        },
      };
    case "shellStreamArgs":
      return {
        case: "shellStream",
        value: {
          event: {
            case: "rejected",
            value: { command: m.value.command, workingDirectory: m.value.workingDirectory, reason },
          },
        },
      };
    case "backgroundShellSpawnArgs":
      return {
        case: "backgroundShellSpawnResult",
        value: {
          result: {
            case: "rejected",
            value: { command: m.value.command, workingDirectory: m.value.workingDirectory, reason },
          },
        },
      };
  }
}

/** The refusal of any other request, or `undefined` when its result has no shape we build. */
function otherRefusal(m: ExecRequest, reason: string): ExecMessageInit | undefined {
  switch (m.case) {
    case "grepArgs":
      return { case: "grepResult", value: { result: { case: "error", value: { error: reason } } } };
    case "diagnosticsArgs":
      return { case: "diagnosticsResult", value: { result: { case: "rejected", value: {} } } };
    case "mcpArgs":
      return { case: "mcpResult", value: { result: { case: "rejected", value: { reason } } } };
    case "listMcpResourcesExecArgs":
      return {
        case: "listMcpResourcesExecResult",
        value: { result: { case: "success", value: { resources: [] } } },
      };
    case "readMcpResourceExecArgs":
      return {
        case: "readMcpResourceExecResult",
        value: { result: { case: "notFound", value: { uri: m.value.uri } } },
      };
    case "fetchArgs":
      return {
        case: "fetchResult",
        value: { result: { case: "error", value: { url: m.value.url, error: reason } } },
      };
    case "mcpStateExecArgs":
      return {
        case: "mcpStateExecResult",
        value: { result: { case: "rejected", value: { reason } } },
      };
    case "subagentArgs":
      return {
        case: "subagentResult",
        value: { result: { case: "error", value: { error: reason } } },
      };
    default:
      return undefined;
  }
}
