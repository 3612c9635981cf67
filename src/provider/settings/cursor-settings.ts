/**
 * Settings of `createCursor()` and how they resolve against the environment.
 *
 * @module
 */
import type { DebugLogger } from "../../core/logger.ts";
import type { AgentTransport } from "../../transport/agent-transport.ts";
import type { WorkspaceFacts } from "../../agent-run/request-context.ts";
import type { ConversationSnapshotStore } from "../../snapshot/store.ts";
import type { CliBackendSettings } from "../cli/cli-backend.ts";
import type { ImageStaging } from "../direct/tools/media/image-save.ts";

/** Environment values the provider reads (passed in; the core never reads globals). */
export interface CursorEnvironment {
  /** A `crsr_…` API key, used when settings give no credential. */
  readonly CURSOR_API_KEY?: string | undefined;
  /** Cursor's API origin, used when settings give none. */
  readonly CURSOR_API_BASE_URL?: string | undefined;
  /** The `cli-…` client version to send. */
  readonly CURSOR_CLIENT_VERSION?: string | undefined;
  /** The agent origin, used when settings give none (skips `GetServerConfig`). */
  readonly CURSOR_AGENT_BASE_URL?: string | undefined;
  /** `1` or `true`: accept `http://` loopback origins when settings do not say. */
  readonly CURSOR_ALLOW_LOOPBACK?: string | undefined;
  /** Any other variable (the debug log and the CLI backend read more). */
  readonly [name: string]: string | undefined;
}

/** Settings for {@link createCursor}. */
export interface CursorProviderSettings {
  /** A `crsr_…` API key (exchanged for an access token, renewed before expiry, kept in memory only). */
  readonly apiKey?: string | undefined;
  /** An access token, or an async getter that returns a fresh one. */
  readonly accessToken?: string | (() => string | Promise<string>) | undefined;
  /** Cursor's API origin; default `https://api2.cursor.sh` (env `CURSOR_API_BASE_URL`). */
  readonly apiBaseURL?: string | undefined;
  /** The agent origin; default: resolved through `GetServerConfig` once per provider. */
  readonly agentBaseURL?: string | undefined;
  /** Accept `http://` loopback origins (a local emulator); default `CURSOR_ALLOW_LOOPBACK` (`1`/`true`), else off. */
  readonly allowLoopback?: boolean | undefined;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** Extra headers on every Cursor request. */
  readonly headers?: Record<string, string> | undefined;
  /** The `cli-…` client version; default `CURSOR_CLIENT_VERSION`, else a pinned version. */
  readonly clientVersion?:
    | string
    | (() => string | undefined | Promise<string | undefined>)
    | undefined;
  /** The 64-hex machine id for `x-cursor-checksum` (or a getter); default a per-provider random id. */
  readonly machineId?: string | (() => string | Promise<string>) | undefined;
  /**
   * `"auto"` (default: as `"http2"` over TLS where the entry has HTTP/2, else `"sse"`; an
   * `http:` origin stays on SSE), `"sse"` (RunSSE + BidiAppend over fetch, any runtime),
   * `"http2"` (the bidi Run over `node:http2`, needs the Node entry, tries h2c on an `http:`
   * origin; Runs go over SSE while Cursor's server config turns HTTP/2 off or for a few
   * minutes after an HTTP/2 connection failed), or a transport object.
   */
  readonly transport?: "sse" | "http2" | "auto" | AgentTransport | undefined;
  /** Timeouts in milliseconds. */
  readonly timeouts?: {
    readonly unaryMs?: number | undefined;
    readonly readIdleMs?: number | undefined;
    readonly appendMs?: number | undefined;
  } | undefined;
  /** A debug logger (default: silent on the web entry, the file log on the Node entry). */
  readonly debug?: DebugLogger | undefined;
  /**
   * The usage a finish reports. `"request"` (default): Cursor's real request counters
   * (input with uncached, cache-read and cache-write parts; output with text and
   * reasoning) on the finish that ends the Run. `"occupancy"`: the context-occupancy
   * shape OpenCode's context meter reads (the OpenCode plugin's choice). A call can
   * override it with the `usage` provider option.
   */
  readonly usage?: "occupancy" | "request" | undefined;
  /** Environment values; the Node entry passes `process.env`. */
  readonly env?: CursorEnvironment | undefined;
  /** Facts about the workspace sent in the request context. */
  readonly workspace?: Partial<WorkspaceFacts> | undefined;
  /** Clock; default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Id generator (UUIDs); default `crypto.randomUUID`. */
  readonly generateId?: (() => string) | undefined;
  /**
   * The sentence errors for missing or refused credentials end with, saying how to sign
   * in where the provider runs. Default: the entry's own (the Node entry names
   * `CURSOR_API_KEY`; the OpenCode plugin sets its login command).
   */
  readonly signInAdvice?: string | undefined;
  /** Host-provided name of this provider instance (OpenCode passes the provider id). */
  readonly name?: string | undefined;
  /**
   * `"direct"` (default): speak Cursor's agent protocol directly. `"cli"`: drive Cursor's
   * `cursor-agent` CLI as a subprocess (needs the Node entry).
   */
  readonly backend?: "direct" | "cli" | undefined;
  /** Options of the `"cli"` backend. */
  readonly cli?: CliBackendSettings | undefined;
  /**
   * Where conversation snapshots survive a restart (the first turn after it stays warm).
   * Default: owner-only files under OpenCode's cache folder on the Node entry, memory on
   * the web entry; `false` turns snapshots off.
   */
  readonly conversationSnapshots?: ConversationSnapshotStore | false | undefined;
  /**
   * Where images Cursor generates wait for the host's `cursor_image_save` tool (OpenCode's
   * classic plugin registers it). Default: owner-only files under OpenCode's cache folder
   * on the Node entry, none on the web entry; `false` (or none) makes Cursor's image
   * generation decline, saying why.
   */
  readonly imageStaging?: ImageStaging | false | undefined;
}

/** Cursor's default API origin. */
export const DEFAULT_API_BASE_URL = "https://api2.cursor.sh";
