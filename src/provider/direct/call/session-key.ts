/**
 * Which host conversation a call belongs to, and whether it is a metadata call (title
 * generation and the like) that must run on its own ephemeral conversation.
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { CursorCallOptions } from "./model-options.ts";
import type { HostTools } from "../tools/host-tools.ts";

const SESSION_HEADERS = ["x-session-affinity", "x-session-id", "x-opencode-session"];

/**
 * The host session key: `providerOptions.cursor.sessionId`, else OpenCode's session headers.
 *
 * @param headers The call's headers.
 * @param options The call's Cursor options.
 * @returns The key, or `undefined` when the call names no session.
 *
 * @example
 * ```ts
 * import { sessionKey } from "./session-key.ts";
 *
 * console.assert(sessionKey({ "X-Session-Id": "ses_1" }, {}) === "ses_1");
 * ```
 */
export function sessionKey(
  headers: LanguageModelV3CallOptions["headers"],
  options: CursorCallOptions,
): string | undefined {
  if (options.sessionId) return options.sessionId;
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value && SESSION_HEADERS.includes(name.toLowerCase())) return value;
  }
  return undefined;
}

const METADATA_PROMPTS = [
  /you are a title generator/i,
  /generate a (short |brief )?title/i,
  /summarize (the|this) conversation/i,
  /create a (detailed )?summary of the conversation/i,
];

/**
 * Whether a call is a host metadata call (title, summary) rather than a conversation turn:
 * it offers no tools and its system prompt is one of the host's metadata prompts.
 *
 * @param system The call's system prompt.
 * @param tools The offered tools.
 * @returns `true` for metadata calls.
 */
export function isMetadataCall(system: string, tools: HostTools): boolean {
  return tools.all.size === 0 && METADATA_PROMPTS.some((pattern) => pattern.test(system));
}
