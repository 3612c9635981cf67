/**
 * The conversation key of a call: the host session it names; else, for tool results, the
 * key of the Run that asked for them; else the chat's derived key, followed through its
 * forks to the conversation the prompt extends ({@link resolveDerivedKey}). Metadata
 * calls keep no key (their Run is ephemeral).
 *
 * @module
 */
import type { CallRequest } from "../call/call-request.ts";
import { derivedKey } from "../call/derived-key.ts";
import type { ProviderConfig } from "../config/provider-config.ts";
import { restoreIfAbsent } from "./persistence.ts";
import { resolveDerivedKey } from "./derived-conversation.ts";

/** A call with the key of the conversation it continues. */
export interface KeyedCall {
  readonly request: CallRequest;
  /** The key was derived and its conversation already restored from the snapshot store. */
  readonly restored: boolean;
  /** Why the call starts a conversation of its own under a fork key (runbook reset reason). */
  readonly forkReason: string | undefined;
}

/**
 * Gives a call that names no session the key of its conversation.
 *
 * @param config The provider configuration (stores, workspace, snapshot store).
 * @param request The call, read once.
 * @returns The call with its key.
 *
 * @example
 * ```ts
 * import { resolveProviderConfig } from "../config/provider-config.ts";
 * import { readCallRequest } from "../call/call-request.ts";
 * import { keyCall } from "./call-key.ts";
 *
 * const config = resolveProviderConfig({ accessToken: "token" });
 * const request = readCallRequest({
 *   modelId: "composer-2",
 *   options: { prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] },
 *   reasoning: undefined,
 *   tools: [],
 *   cursorOptions: {},
 *   warnings: [],
 * });
 * const keyed = await keyCall(config, request);
 * console.assert(keyed.request.key?.startsWith("derived:"));
 * ```
 */
export async function keyCall(config: ProviderConfig, request: CallRequest): Promise<KeyedCall> {
  const unchanged = { request, restored: false, forkReason: undefined };
  if (request.key !== undefined || request.metadataCall) return unchanged;
  // A tool step's results go back to the Run that asked for them, wherever its chat forked.
  const owner = request.results.map((r) => config.toolCallOwners.get(r.toolCallId)).find((k) =>
    k !== undefined
  );
  if (owner !== undefined) return { ...unchanged, request: { ...request, key: owner } };
  const start = await derivedKey(request.options.prompt, {
    modelId: request.call.modelId,
    workspace: config.workspaceFor(request.cursorOptions.workspace).workspaceRoot,
    systemPrompt: request.converted.systemPrompt,
  });
  if (start === undefined) return unchanged;
  const resolved = await resolveDerivedKey(start, {
    prompt: request.options.prompt,
    hasResults: request.results.length > 0,
    restore: (key) => restoreIfAbsent(config, key),
    get: (key) => config.conversations.get(key),
  });
  return {
    request: { ...request, key: resolved.key },
    restored: true,
    forkReason: resolved.forkReason,
  };
}
