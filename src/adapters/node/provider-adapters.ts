/**
 * The Node adapters the Node entries (AI SDK 6 and AI SDK 7) give the provider: the
 * HTTP/2 transport, the debug log file, a stable machine id, the workspace facts of a
 * call's directory (the current directory at call time by default), git, processes, `cursor-agent`, and the files under OpenCode's
 * cache folder.
 *
 * @module
 */
import type { ProviderAdapters } from "../../provider/provider-adapters.ts";
import type { CursorProviderSettings } from "../../provider/settings/cursor-settings.ts";
import { proxyFor } from "../../transport/proxy-rules.ts";
import { proxyAwareFetch } from "./proxy/proxy-aware-fetch.ts";
import { createDeferredHttp2Transport } from "./http2/deferred-http2-transport.ts";
import { createFileDebugLogger } from "./files/debug-log-file.ts";
import { currentDirectory, machineId, processEnvironment, workspaceFacts } from "./machine.ts";
import { createNodeProcessRunner } from "./process/process-runner.ts";
import { createNodeGitRunner } from "./process/git-runner.ts";
import { findCursorAgent } from "./process/find-cursor-agent.ts";
import { createSnapshotFileStore } from "./files/snapshot-file-store.ts";
import { createResumeCacheFile } from "./files/resume-store.ts";
import { createImageStagingFile } from "./files/image-staging-file.ts";

/**
 * The settings of a Node entry: the process environment unless one is given, and on
 * Node a fetch through the `HTTPS_PROXY` tunnel when one is configured and the caller
 * passed no fetch of its own.
 *
 * @param settings The caller's settings.
 * @returns The settings with `env` (and, behind a proxy, `fetch`) filled in.
 */
export function nodeSettings(
  settings: CursorProviderSettings,
): CursorProviderSettings & { readonly env: Readonly<Record<string, string | undefined>> } {
  const env = settings.env ?? processEnvironment();
  const fetch = settings.fetch ?? proxyAwareFetch(env);
  return { ...settings, env, ...(fetch === undefined ? {} : { fetch }) };
}

/**
 * The provider adapters of the Node entries.
 *
 * @param env The environment the provider reads.
 * @returns The adapters.
 */
export function nodeProviderAdapters(
  env: Readonly<Record<string, string | undefined>>,
): ProviderAdapters {
  return {
    http2Transport: (options) =>
      createDeferredHttp2Transport({ ...options, proxy: (origin) => proxyFor(origin, env) }),
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
    signInAdvice:
      "Sign in to Cursor again: set CURSOR_API_KEY (an API key from cursor.com/settings), or pass apiKey or accessToken to createCursor()",
  };
}
