/**
 * One call as the direct backend works with it, read once: the checked options, the
 * host tools, the converted prompt, what kind of call it is, the session it belongs to
 * and the tool results it brings. Nothing downstream reads the raw call again.
 *
 * @module
 */
import type { LanguageModelV3CallOptions, LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import type { CallArgs } from "../../model-call/call-args.ts";
import type { CursorCallOptions } from "../../settings/cursor-options.ts";
import { type ConvertedPrompt, convertPrompt } from "./convert-prompt.ts";
import { isCompactionCall } from "./compaction-call.ts";
import { trailingToolResults } from "./prompt-digests.ts";
import { isMetadataCall, sessionKey } from "./session-key.ts";
import { classifyHostTools, type HostTools } from "../tools/host-tools.ts";

/** A call, read once. */
export interface CallRequest {
  /** The call's arguments as every backend receives them. */
  readonly call: CallArgs;
  /** The AI SDK's call options. */
  readonly options: LanguageModelV3CallOptions;
  /** `providerOptions.cursor`, checked. */
  readonly cursorOptions: CursorCallOptions;
  /** The host tools offered, by kind. */
  readonly tools: HostTools;
  /** The prompt as Cursor takes it. */
  readonly converted: ConvertedPrompt;
  /** The host compacts the session (its summary call). */
  readonly compaction: boolean;
  /** A title, summary or compaction call: it never touches the session's conversation. */
  readonly metadataCall: boolean;
  /** The session the call names (a compaction call's is the session it compacts). */
  readonly session: string | undefined;
  /** The conversation the call continues (none for metadata calls). */
  readonly key: string | undefined;
  /** The tool results at the prompt's tail (none for metadata calls). */
  readonly results: readonly LanguageModelV3ToolResultPart[];
}

/**
 * Reads a call once.
 *
 * @param call The call's arguments (options already checked).
 * @returns The request.
 *
 * @example
 * ```ts
 * import { readCallRequest } from "./call-request.ts";
 *
 * const request = readCallRequest({
 *   modelId: "composer-2",
 *   options: { prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] },
 *   reasoning: undefined,
 *   tools: [],
 *   cursorOptions: { sessionId: "ses_1" },
 *   warnings: [],
 * });
 * console.assert(request.key === "ses_1" && !request.metadataCall);
 * ```
 */
export function readCallRequest(call: CallArgs): CallRequest {
  const { options, cursorOptions } = call;
  const tools = classifyHostTools(call.tools);
  const converted = convertPrompt(options.prompt, { supportsImages: true });
  const compaction = isCompactionCall(converted.systemPrompt, tools);
  const metadataCall = compaction || isMetadataCall(converted.systemPrompt, tools);
  const session = sessionKey(options.headers, cursorOptions);
  return {
    call,
    options,
    cursorOptions,
    tools,
    converted,
    compaction,
    metadataCall,
    session,
    key: metadataCall ? undefined : session,
    results: metadataCall ? [] : trailingToolResults(options.prompt),
  };
}
