/**
 * Turns a host tool's result back into the typed exec result Cursor asked for: raw file
 * text for reads, the real exit status and byte-exact output for shells (as a stream
 * of start, stdout, exit), grep and glob listings as Cursor's grep result shapes.
 *
 * @module
 */
import type { ExecKind } from "./exec-to-tool-call.ts";
import { parseWrappedOutput } from "./shell/shell-wrapper.ts";
import { type ExecResultInit, shellResult } from "./shell/shell-results.ts";
import { rawReadContent } from "./files/read-output.ts";
import type { ToolResultText } from "./tool-result-text.ts";
import { boundText, TEXT_RESULT_LIMIT } from "./output-bounds.ts";

export type { ExecResultInit } from "./shell/shell-results.ts";

/**
 * The exec result message(s) for a host result. Shell streams produce several frames.
 *
 * @param kind How the exec was bridged.
 * @param result The host tool's result as text.
 * @returns The result messages to send, in order (before `stream_close`).
 *
 * @example
 * ```ts
 * import { execResultMessages } from "./exec-results.ts";
 *
 * const [message] = execResultMessages({ kind: "read", path: "/a" }, { text: "1: hi", isError: false, denied: false });
 * console.assert(message?.case === "readResult");
 * ```
 */
export function execResultMessages(kind: ExecKind, result: ToolResultText): ExecResultInit[] {
  switch (kind.kind) {
    case "read":
      return [readResult(kind.path, result)];
    case "write":
      return [writeResult(kind.path, kind.content, result)];
    case "delete":
      return [deleteResult(kind.path, kind.nonce, result)];
    case "grep":
    case "glob":
    case "list":
      return [searchResult(kind, result)];
    case "shell":
      return shellResult(kind, result);
    case "mcp":
      return [{
        case: "mcpResult",
        value: {
          result: {
            case: "success",
            value: {
              content: [{
                content: {
                  case: "text",
                  value: { text: boundText(result.text, TEXT_RESULT_LIMIT).text },
                },
              }],
              isError: result.isError,
            },
          },
        },
      }];
    case "image":
      return [imageResult(kind.path, kind.size, result)];
    case "task":
      return [
        result.isError
          ? {
            case: "subagentResult",
            value: {
              result: { case: "error", value: { agentId: kind.agentId, error: result.text } },
            },
          }
          : {
            case: "subagentResult",
            value: {
              result: {
                case: "success",
                value: {
                  agentId: kind.agentId,
                  finalMessage: boundText(result.text, TEXT_RESULT_LIMIT).text,
                },
              },
            },
          },
      ];
  }
}

function readResult(path: string, result: ToolResultText): ExecResultInit {
  if (result.denied) {
    return { case: "readResult", value: { result: { case: "permissionDenied", value: { path } } } };
  }
  if (result.isError) {
    if (/not found|no such file|ENOENT|does not exist/i.test(result.text)) {
      return { case: "readResult", value: { result: { case: "fileNotFound", value: { path } } } };
    }
    return {
      case: "readResult",
      value: { result: { case: "error", value: { path, error: result.text } } },
    };
  }
  const raw = rawReadContent(result.text);
  // Cursor's client counts `\n`-separated segments: "a\n" is 2, "a" is 1, an empty file 1.
  // A host's own total (OpenCode's "total N lines" footer) counts text lines, so it is not
  // used here.
  const lines = raw.content.split("\n").length;
  const bounded = boundText(raw.content, TEXT_RESULT_LIMIT);
  return {
    case: "readResult",
    value: {
      result: {
        case: "success",
        value: {
          path,
          output: { case: "content", value: bounded.text },
          totalLines: lines,
          fileSize: BigInt(bounded.totalBytes),
          truncated: raw.truncated || bounded.truncated,
        },
      },
    },
  };
}

function writeResult(path: string, content: string, result: ToolResultText): ExecResultInit {
  if (result.denied) {
    return {
      case: "writeResult",
      value: { result: { case: "rejected", value: { path, reason: result.text } } },
    };
  }
  if (result.isError) {
    return {
      case: "writeResult",
      value: { result: { case: "error", value: { path, error: result.text } } },
    };
  }
  const lines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  return {
    case: "writeResult",
    value: {
      result: {
        case: "success",
        value: { path, linesCreated: lines, fileSize: new TextEncoder().encode(content).length },
      },
    },
  };
}

function imageResult(path: string, size: number, result: ToolResultText): ExecResultInit {
  if (result.denied || (result.isError && PERMISSION_REFUSAL.test(result.text))) {
    return {
      case: "writeResult",
      value: {
        result: {
          case: "permissionDenied",
          value: { path, operation: "create_file", error: result.text },
        },
      },
    };
  }
  if (result.isError) {
    return {
      case: "writeResult",
      value: { result: { case: "error", value: { path, error: result.text } } },
    };
  }
  return {
    case: "writeResult",
    value: { result: { case: "success", value: { path, linesCreated: 0, fileSize: size } } },
  };
}

/** How a host reports a refused permission inside a tool error. */
const PERMISSION_REFUSAL = /rejected permission|permission denied|denied this tool|not allowed/i;

function deleteResult(path: string, nonce: string, result: ToolResultText): ExecResultInit {
  const parsed = parseWrappedOutput(result.text, nonce);
  if (result.denied) {
    return {
      case: "deleteResult",
      value: { result: { case: "rejected", value: { path, reason: result.text } } },
    };
  }
  if (result.isError || parsed.exitCode !== 0) {
    if (/No such file/i.test(parsed.output)) {
      return { case: "deleteResult", value: { result: { case: "fileNotFound", value: { path } } } };
    }
    return {
      case: "deleteResult",
      value: {
        result: { case: "error", value: { path, error: parsed.output.trim() || "Delete failed" } },
      },
    };
  }
  return {
    case: "deleteResult",
    value: { result: { case: "success", value: { path, deletedFile: path } } },
  };
}

function searchResult(
  kind: Extract<ExecKind, { kind: "grep" | "glob" | "list" }>,
  result: ToolResultText,
): ExecResultInit {
  if (result.isError) return searchError(kind, result.text);
  if (kind.kind === "list") return listResult(kind.path, listedPaths(result.text));
  if (kind.kind === "glob" || kind.mode === "files_with_matches") {
    const files = kind.kind === "glob"
      ? listedPaths(result.text)
      : grepMatches(result.text).map((m) => m.file);
    return grepFilesResult(kind.pattern, kind.path, files);
  }
  return grepContentResult(kind, grepMatches(result.text));
}

function searchError(
  kind: Extract<ExecKind, { kind: "grep" | "glob" | "list" }>,
  error: string,
): ExecResultInit {
  if (kind.kind === "list") {
    return {
      case: "lsResult",
      value: { result: { case: "error", value: { path: kind.path, error } } },
    };
  }
  return { case: "grepResult", value: { result: { case: "error", value: { error } } } };
}

/** A directory listing as Cursor's tree: subdirectories by path, files by name. */
function listResult(path: string, entries: readonly string[]): ExecResultInit {
  const files = entries.filter((e) => !e.endsWith("/"));
  return {
    case: "lsResult",
    value: {
      result: {
        case: "success",
        value: {
          directoryTreeRoot: {
            absPath: path,
            childrenDirs: entries.filter((e) => e.endsWith("/")).map((e) => ({
              absPath: joinPath(path, e.slice(0, -1)),
            })),
            childrenFiles: files.map((e) => ({ name: baseName(e) })),
            childrenWereProcessed: true,
            numFiles: files.length,
          },
        },
      },
    },
  };
}

function grepFilesResult(pattern: string, path: string, files: string[]): ExecResultInit {
  return {
    case: "grepResult",
    value: {
      result: {
        case: "success",
        value: {
          pattern,
          path,
          outputMode: "files_with_matches",
          workspaceResults: {
            [path]: { result: { case: "files", value: { files, totalFiles: files.length } } },
          },
        },
      },
    },
  };
}

function grepContentResult(
  kind: Extract<ExecKind, { kind: "grep" }>,
  matches: ReturnType<typeof grepMatches>,
): ExecResultInit {
  const total = matches.reduce((n, m) => n + m.matches.length, 0);
  return {
    case: "grepResult",
    value: {
      result: {
        case: "success",
        value: {
          pattern: kind.pattern,
          path: kind.path,
          outputMode: kind.mode,
          workspaceResults: {
            [kind.path]: {
              result: {
                case: "content",
                value: { matches, totalLines: total, totalMatchedLines: total },
              },
            },
          },
        },
      },
    },
  };
}

/** Parses a host grep listing (`path:` headers with `  Line N: text` rows, or `path:N:text`). */
function grepMatches(
  text: string,
): { file: string; matches: { lineNumber: number; content: string }[] }[] {
  const files = new Map<string, { lineNumber: number; content: string }[]>();
  let current: string | undefined;
  for (const line of text.split("\n")) {
    const header = /^(\S.*):$/.exec(line);
    const row = /^\s+Line (\d+): ?(.*)$/.exec(line);
    const flat = /^([^:\s][^:]*):(\d+):(.*)$/.exec(line);
    if (row && current !== undefined) {
      files.get(current)?.push({ lineNumber: Number(row[1]), content: row[2] ?? "" });
    } else if (flat) {
      const file = flat[1] ?? "";
      if (!files.has(file)) files.set(file, []);
      files.get(file)?.push({ lineNumber: Number(flat[2]), content: flat[3] ?? "" });
    } else if (header && !/^Found \d+ match/.test(line)) {
      current = header[1] ?? "";
      if (!files.has(current)) files.set(current, []);
    }
  }
  return [...files].map(([file, matches]) => ({ file, matches }));
}

/** Paths one per line, without the host's notices. */
function listedPaths(text: string): string[] {
  return text.split("\n").map((l) => l.trim()).filter((l) =>
    l !== "" && !/^(No files found|\(Results are truncated.*\)|Found \d+ .*)$/.test(l)
  );
}

function joinPath(dir: string, name: string): string {
  return name.startsWith("/") ? name : `${dir.replace(/\/+$/, "")}/${name}`;
}

function baseName(path: string): string {
  return path.replace(/\/+$/, "").split("/").pop() ?? path;
}
