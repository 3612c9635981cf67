/**
 * Recognising the host's compaction request. OpenCode 1.18.33 compacts a session with
 * one tool-less call whose system prompt is its summarization agent's ("You are a
 * context summarization agent. …") and whose only user message carries the history
 * to summarize.
 *
 * @module
 */
import type { HostTools } from "../tools/host-tools.ts";

/** How OpenCode's summarization agent prompt begins (taken from the 1.18.33 binary). */
const COMPACTION_SYSTEM_OPENERS: readonly string[] = [
  "You are a context summarization agent.",
];

/**
 * Whether a call is the host's compaction request: no tools, and a system prompt that
 * opens with the summarization agent's first sentence.
 *
 * @param system The call's system prompt.
 * @param tools The offered tools.
 * @returns `true` for a compaction request.
 *
 * @example
 * ```ts
 * import { isCompactionCall } from "./compaction-call.ts";
 *
 * const noTools = { all: new Map() };
 * console.assert(isCompactionCall("You are a context summarization agent. You are given…", noTools));
 * console.assert(!isCompactionCall("You are opencode, an interactive CLI tool", noTools));
 * ```
 */
export function isCompactionCall(system: string, tools: Pick<HostTools, "all">): boolean {
  if (tools.all.size !== 0) return false;
  const opening = system.trimStart();
  return COMPACTION_SYSTEM_OPENERS.some((opener) => opening.startsWith(opener));
}
