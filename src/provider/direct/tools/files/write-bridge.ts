/**
 * How a Cursor write reaches the host. Cursor sends the whole new text even for a
 * one-line edit; the host's targeted tools (`edit`, `apply_patch`) keep the rest of the
 * file as it is, so a write of an existing file becomes a targeted edit built against
 * the file's real bytes (read first through the host's shell, see {@link probeCommand}).
 * A write that replaces every line, or a new file, stays a whole-file write with the
 * requested text. A write whose text the file's real bytes already hold needs no host
 * write at all: Cursor gets its own success result.
 *
 * @module
 */
import type { JSONObject, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { HostTools } from "../host-tools.ts";
import { propertyName } from "../host-tools.ts";
import { patchForPlan, patchForWrite } from "./apply-patch.ts";
import { probeCommand, type RawFile } from "./raw-file.ts";
import { editStrings, planChange } from "./targeted-edit.ts";

/** What a write bridge knows about the file. */
export interface WriteContext {
  readonly tools: HostTools;
  /** Display text of files read in this Run (no `\r`, no byte order mark). */
  readonly reads: ReadonlyMap<string, string>;
  /**
   * Files whose bytes were probed: the file, `null` when absent, `undefined` when the
   * probe could not be trusted. A path without an entry was not probed.
   */
  readonly files?: ReadonlyMap<string, RawFile | null | undefined>;
  readonly nonce: () => string;
}

/** The bridge's answer for a write. */
export type WriteDecision =
  | {
    readonly type: "call";
    readonly toolName: string;
    readonly input: JSONObject;
    readonly content: string;
  }
  | {
    readonly type: "probe";
    readonly toolName: string;
    readonly input: JSONObject;
    readonly path: string;
    readonly nonce: string;
  }
  | { readonly type: "refuse"; readonly reason: string }
  /** The file already holds the text: Cursor's write is done without a host write. */
  | { readonly type: "unchanged"; readonly content: string };

/**
 * Decides how a write of `text` to `path` runs on the host.
 *
 * @param path The file.
 * @param text The whole new text.
 * @param context Host tools and what is known about the file.
 * @returns A host call, a probe of the file's bytes to run first, or a refusal.
 *
 * @example
 * ```ts
 * import { classifyHostTools } from "../host-tools.ts";
 * import { bridgeWriteExec } from "./write-bridge.ts";
 *
 * const tools = classifyHostTools([
 *   { type: "function", name: "edit", inputSchema: { type: "object", properties: { filePath: {}, oldString: {}, newString: {} } } },
 * ]);
 * const files = new Map([["/ws/a.txt", { bom: false, text: "a\r\nb\r\n" }]]);
 * const decision = bridgeWriteExec("/ws/a.txt", "a\nB\n", { tools, reads: new Map(), files, nonce: () => "n" });
 * console.assert(decision.type === "call" && decision.input.oldString === "b" && decision.input.newString === "B");
 * ```
 */
export function bridgeWriteExec(path: string, text: string, context: WriteContext): WriteDecision {
  const { write, edit, patch, shell } = context.tools.byRole;
  if (!write && !edit && !patch) {
    return { type: "refuse", reason: "No host tool for write is available in this session" };
  }
  const probed = context.files?.has(path) ?? false;
  if (!probed && shell && (edit || patch) && context.files !== undefined) {
    const nonce = context.nonce();
    const input: JSONObject = {
      [propertyName(shell, ["command", "cmd"])]: probeCommand(path, nonce),
    };
    if (hasKey(shell, "description")) {
      input.description = `Read the bytes of ${path} before editing`;
    }
    return { type: "probe", toolName: shell.name, input, path, nonce };
  }
  const file = context.files?.get(path);
  const display = context.reads.get(path);
  const previous: RawFile | undefined = file === null
    ? undefined
    : file ?? (display === undefined ? undefined : { bom: false, text: display });
  if (previous === undefined) return wholeWrite(path, text, undefined, context.tools);
  const plan = planChange(previous, text);
  const changed = plan.removed.length > 0 || plan.added.length > 0;
  // Nothing to write: Cursor gets its own result, the person no needless write prompt.
  if (!changed && file !== undefined) return { type: "unchanged", content: plan.text };
  if (!changed || plan.wholeFile || (!edit && !patch)) {
    return wholeWrite(path, text, previous, context.tools);
  }
  if (edit) {
    const strings = editStrings(plan);
    if (strings !== undefined) {
      return {
        type: "call",
        toolName: edit.name,
        input: {
          [propertyName(edit, ["filePath", "path", "file_path"])]: path,
          [propertyName(edit, ["oldString", "old_string"])]: strings.oldString,
          [propertyName(edit, ["newString", "new_string"])]: strings.newString,
        },
        content: plan.text,
      };
    }
  }
  if (patch) return patchCall(patch, patchForPlan(path, plan), plan.text);
  return wholeWrite(path, text, previous, context.tools);
}

function wholeWrite(
  path: string,
  text: string,
  previous: RawFile | undefined,
  tools: HostTools,
): WriteDecision {
  const { write, patch } = tools.byRole;
  if (write) {
    return {
      type: "call",
      toolName: write.name,
      input: {
        [propertyName(write, ["filePath", "path", "file_path"])]: path,
        [propertyName(write, ["content", "contents"])]: text,
      },
      content: text,
    };
  }
  if (patch) return patchCall(patch, patchForWrite(path, text, previous), text);
  return {
    type: "refuse",
    reason: "No host tool for whole-file writes is available in this session",
  };
}

function patchCall(
  tool: LanguageModelV3FunctionTool,
  patchText: string,
  content: string,
): WriteDecision {
  return {
    type: "call",
    toolName: tool.name,
    input: { [propertyName(tool, ["patchText", "patch", "input"])]: patchText },
    content,
  };
}

function hasKey(tool: LanguageModelV3FunctionTool, key: string): boolean {
  const properties = (tool.inputSchema as { properties?: Record<string, unknown> }).properties;
  return properties !== undefined && key in properties;
}
