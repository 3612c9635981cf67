/**
 * Use your Cursor subscription models from any Vercel AI SDK app.
 *
 * This entry is web-standard (fetch, WebCrypto, streams) and runs on Deno, Node, Bun
 * and edge runtimes. On Node and Bun, the package's Node entry adds HTTP/2 and the
 * debug log file.
 *
 * @example A chat turn
 * ```ts ignore
 * import { streamText } from "ai";
 * import { createCursor } from "@ai-sdk-cursor/provider";
 *
 * const cursor = createCursor({ apiKey: Deno.env.get("CURSOR_API_KEY") });
 * const result = streamText({ model: cursor("composer-2"), prompt: "Hello" });
 * for await (const text of result.textStream) console.log(text);
 * ```
 *
 * @module
 */
import type { CursorProviderSettings } from "./src/provider/cursor-settings.ts";
import { createCursorProvider, type CursorProvider } from "./src/provider/cursor-provider.ts";

import { runtimeEnvironment, webSignInAdvice } from "./src/adapters/web/runtime-env.ts";
export { CURSOR_ERROR_CODES, CursorError } from "./src/core/cursor-error.ts";
export type {
  CursorErrorCode,
  CursorErrorDetail,
  CursorErrorOptions,
} from "./src/core/cursor-error.ts";
export type { CursorEnvironment, CursorProviderSettings } from "./src/provider/cursor-settings.ts";
export type { CursorProvider } from "./src/provider/cursor-provider.ts";
export type { CursorParameter, CursorProviderOptions } from "./src/provider/cursor-options.ts";
export type {
  PermissionRule,
  SessionRules,
} from "./src/provider/direct/interactions/session-rules.ts";
export { CursorLanguageModel } from "./src/provider/language-model.ts";
export type { CursorCallInput, ReasoningLevel } from "./src/provider/call-args.ts";
export type { DebugLogger, DiagnosticRecord } from "./src/core/logger.ts";
export type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
  RunCredentials,
} from "./src/transport/agent-transport.ts";
export type { Frame } from "./src/transport/frame-stream.ts";
export type { EndStream } from "./src/protocol/end-stream.ts";
export type { WorkspaceFacts } from "./src/session/request-context.ts";
export type {
  ConversationSnapshotStore,
  SnapshotRead,
  SnapshotWrite,
  SnapshotWriteOptions,
  VersionedSnapshotStore,
} from "./src/session/snapshot-store.ts";
export type { ImageStaging, StagedImage } from "./src/provider/direct/tools/media/image-save.ts";
export type { CliBackendSettings } from "./src/provider/cli/cli-backend.ts";
export type { CursorAgentPermissions } from "./src/cli/argv.ts";
export type { ToolExecution } from "./src/provider/cli/stream-mapper.ts";
export type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
  ProviderV3,
} from "@ai-sdk/provider";

/**
 * Creates the Cursor provider.
 *
 * @param settings Credentials, endpoints, transport and debug options.
 * @returns A provider: `cursor(modelId)` gives a `LanguageModelV3`.
 * @throws {CursorError} `config` for invalid settings (an agent URL outside cursor.sh, an unknown transport).
 *
 * @example
 * ```ts
 * import { createCursor } from "./mod.ts";
 *
 * const cursor = createCursor({ accessToken: "token" });
 * console.assert(cursor("composer-2").specificationVersion === "v3");
 * ```
 */
export function createCursor(settings: CursorProviderSettings = {}): CursorProvider {
  const runtime = runtimeEnvironment();
  const env = settings.env ?? runtime?.env;
  return createCursorProvider(env === undefined ? settings : { ...settings, env }, {
    signInAdvice: webSignInAdvice(settings.env === undefined ? runtime?.source : "settings.env"),
  });
}
