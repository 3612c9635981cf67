/**
 * The runtime pieces a platform entry hands the provider (HTTP/2, files, processes, git),
 * for either backend: the core only sees these small interfaces.
 *
 * @module
 */
import type { DebugLogger } from "../core/logger.ts";
import type { AgentTransport } from "../transport/agent-transport.ts";
import type { WorkspaceFacts } from "../agent-run/request-context.ts";
import type { GitRunner } from "../agent-run/git-facts.ts";
import type { ConversationSnapshotStore } from "../snapshot/store.ts";
import type { ProcessRunner } from "../cli/process-runner.ts";
import type { ResumeCacheFile } from "./cli/resume-persistence.ts";
import type { ImageStaging } from "./direct/tools/media/image-save.ts";

/** Runtime pieces a platform entry can supply (the Node entry supplies HTTP/2 and files). */
export interface ProviderAdapters {
  /** Builds the HTTP/2 transport when `transport: "http2"` or `"auto"` is asked for. */
  readonly http2Transport?: (options: { readIdleMs?: number | undefined }) => AgentTransport;
  /** The default debug logger when settings give none. */
  readonly debugLogger?: () => DebugLogger;
  /** The default machine id when settings give none. */
  readonly machineId?: () => Promise<string>;
  /** Workspace facts of a directory (OS, shell, home) when settings give none. */
  readonly workspace?: (root: string) => WorkspaceFacts;
  /** Runs git, for the request context's git facts (absent on the web entry). */
  readonly git?: () => GitRunner;
  /** Starts processes, for the CLI backend. */
  readonly processRunner?: () => ProcessRunner;
  /** Finds the `cursor-agent` binary (an explicit path first). */
  readonly findCursorAgent?: (explicitPath: string | undefined) => string | undefined;
  /** The current directory, read at call time. */
  readonly cwd?: () => string;
  /** Where the CLI backend's resume cache survives restarts (a file on the Node entry). */
  readonly resumeCacheFile?: () => ResumeCacheFile;
  /** The default conversation snapshot store (files on the Node entry). */
  readonly snapshotStore?: () => ConversationSnapshotStore;
  /** Where Cursor-generated images wait for the host's save tool (files on the Node entry). */
  readonly imageStaging?: () => ImageStaging;
  /** How errors for missing or refused credentials say to sign in on this entry. */
  readonly signInAdvice?: string;
}
