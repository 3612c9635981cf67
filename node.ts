/**
 * The entry for Node and Bun (and what OpenCode loads): the same provider as the
 * web-standard entry, with the Node adapters wired in — the HTTP/2 transport, the
 * debug log file (`CURSOR_PROVIDER_DEBUG`), a stable machine id, the workspace facts
 * of the current directory, and `process.env`.
 *
 * @module
 */
import type { CursorProviderSettings } from "./src/provider/cursor-settings.ts";
import { createCursorProvider, type CursorProvider } from "./src/provider/cursor-provider.ts";
import { createDeferredHttp2Transport } from "./src/adapters/node/deferred-http2-transport.ts";
import { createFileDebugLogger } from "./src/adapters/node/debug-log-file.ts";
import {
  currentDirectory,
  machineId,
  processEnvironment,
  workspaceFacts,
} from "./src/adapters/node/machine.ts";
import { createNodeProcessRunner } from "./src/adapters/node/process-runner.ts";
import { createNodeGitRunner } from "./src/adapters/node/git-runner.ts";
import { findCursorAgent } from "./src/adapters/node/find-cursor-agent.ts";
import { createSnapshotFileStore } from "./src/adapters/node/snapshot-file-store.ts";
import { createResumeCacheFile } from "./src/adapters/node/resume-store.ts";
import { createImageStagingFile } from "./src/adapters/node/image-staging-file.ts";

export {
  createMemorySnapshotStore,
  CURSOR_ERROR_CODES,
  CursorError,
  CursorLanguageModel,
} from "./mod.ts";
export type {
  AgentRunStream,
  AgentTransport,
  CliBackendSettings,
  ConversationSnapshotStore,
  CursorAgentPermissions,
  CursorEnvironment,
  CursorErrorCode,
  CursorErrorDetail,
  CursorErrorOptions,
  CursorProvider,
  CursorProviderSettings,
  DebugLogger,
  DiagnosticRecord,
  EndStream,
  Frame,
  ImageStaging,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamResult,
  MemorySnapshotStoreOptions,
  OpenRunOptions,
  ProviderV3,
  RunCredentials,
  SnapshotRead,
  SnapshotWrite,
  SnapshotWriteOptions,
  StagedImage,
  ToolExecution,
  VersionedSnapshotStore,
  WorkspaceFacts,
} from "./mod.ts";

/**
 * Creates the Cursor provider with the Node adapters. Reads `CURSOR_API_KEY`,
 * `CURSOR_API_BASE_URL`, `CURSOR_CLIENT_VERSION` and the debug variables from
 * `process.env` unless `settings.env` is given.
 *
 * @param settings Credentials, endpoints, transport and debug options.
 * @returns A provider: `cursor(modelId)` gives a `LanguageModelV3`.
 * @throws {CursorError} `config` for invalid settings.
 *
 * @example
 * ```ts
 * import { createCursor } from "./node.ts";
 *
 * const cursor = createCursor({ accessToken: "token", transport: "http2" });
 * console.assert(cursor("composer-2").specificationVersion === "v3");
 * ```
 */
export function createCursor(settings: CursorProviderSettings = {}): CursorProvider {
  const env = settings.env ?? processEnvironment();
  return createCursorProvider({ ...settings, env }, {
    http2Transport: (options) => createDeferredHttp2Transport(options),
    debugLogger: () => createFileDebugLogger({ env }),
    machineId,
    workspace: (root) => workspaceFacts(root),
    git: () => createNodeGitRunner(),
    processRunner: () => createNodeProcessRunner(),
    findCursorAgent: (explicitPath) =>
      findCursorAgent(explicitPath === undefined ? { env } : { explicitPath, env }),
    cwd: currentDirectory,
    snapshotStore: () => createSnapshotFileStore({ env }),
    resumeCacheFile: () => createResumeCacheFile({ env }),
    imageStaging: () => createImageStagingFile({ env }),
  });
}
