/**
 * What `createCursor` resolves once per provider and every model shares: credentials,
 * the agent origin (looked up once, fail closed), header building, the transport, the
 * blob store and the logger. No module-level state: everything lives here.
 *
 * @module
 */
import { CursorError } from "../../../core/cursor-error.ts";
import { type DebugLogger, silentLogger } from "../../../core/logger.ts";
import { PUBLISHED_AS } from "../../../core/package-name.ts";
import { createTokenSource, type TokenSource } from "../../../auth/token-source.ts";
import {
  createCredentialRedactor,
  type CredentialRedactor,
  redactingLogger,
} from "../../../auth/credential-redactor.ts";
import { baseHeaders, resolveClientVersion } from "../../../protocol/headers.ts";
import type { AgentTransport, RunCredentials } from "../../../transport/agent-transport.ts";
import { createRenewOnce, refusesToken, withBearer } from "../../../transport/renew-once.ts";
import type { ServerConfig } from "../../../transport/server-config.ts";
import { createSseTransport } from "../../../transport/sse-transport.ts";
import { createTransportChoice } from "../../../transport/transport-choice.ts";
import { type BlobStore, createMemoryBlobStore } from "../../../agent-run/blobs/blob-store.ts";
import type { WorkspaceFacts } from "../../../agent-run/request-context.ts";
import {
  type ConversationStore,
  createConversationStore,
} from "../../../conversation/conversation-store.ts";
import {
  type ConversationSnapshotStore,
  createMemorySnapshotStore,
} from "../../../snapshot/store.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import { createWorkspaceGit, type WorkspaceGit } from "./workspace-git.ts";
import type { UsageMode } from "../diagnostics/usage-events.ts";
import { type BillingBook, createBillingBook, interruptRun } from "../billing/turn-billing.ts";
import { createRetryLedger, type RetryLedger } from "../../../conversation/retry-budget.ts";
import type { ProviderAdapters } from "../../provider-adapters.ts";
import type { CursorProviderSettings } from "../../settings/cursor-settings.ts";
import type { ImageStaging } from "../tools/media/image-save.ts";
import { type AgentOriginLookup, agentOriginLookup, resolveOrigins } from "./origins.ts";
import { resolveMachineId, resolveWorkspace, workspaceRootOf } from "./workspace-facts.ts";
import { DEFAULT_SIGN_IN_ADVICE } from "../../api-call-error.ts";

/** The resolved provider configuration. */
export interface ProviderConfig {
  readonly providerName: string;
  readonly apiBaseURL: string;
  /** How errors for missing or refused credentials say to sign in. */
  readonly signInAdvice: string;
  readonly fetch: typeof fetch;
  readonly logger: DebugLogger;
  /** Removes every credential this provider sent from log lines and error chains. */
  readonly redactor: CredentialRedactor;
  readonly transport: AgentTransport;
  readonly blobs: BlobStore;
  /**
   * The workspace facts of one call: the directory it names, else the `workspace` setting's
   * root, else the current directory at call time (docs/decisions/155-…).
   */
  workspaceFor(root: string | undefined): WorkspaceFacts;
  /** `workspaceFor(root).workspaceRoot` without computing the other facts. */
  workspaceRootFor(root: string | undefined): string;
  /** The workspace's git facts (per directory), for request contexts being built. */
  readonly workspaceGit: WorkspaceGit;
  readonly now: () => number;
  readonly generateId: () => string;
  /** Conversations by host session, with their held Runs. */
  readonly conversations: ConversationStore<ActiveTurn>;
  /** Where conversation snapshots survive restarts; `undefined` when turned off. */
  readonly snapshots: ConversationSnapshotStore | undefined;
  /** Where Cursor-generated images wait for the host's save tool; none: binary writes are refused. */
  readonly images: ImageStaging | undefined;
  /** Which conversation owes each outstanding host tool call (for apps that send no session key). */
  readonly toolCallOwners: Map<string, string>;
  /** The usage shape finishes report unless a call asks for another. */
  readonly usage: UsageMode;
  /** One billing ledger per host session. */
  readonly billing: BillingBook;
  /** The retry budgets of recent turns (shared with the host's retries of the same turn). */
  readonly retries: RetryLedger;
  /** The agent origin (resolved once, shared). */
  readonly agentOrigin: AgentOriginLookup;
  /** Headers for one request: auth, client identity, checksum, a fresh request id. */
  headers(requestId: string, signal?: AbortSignal): Promise<Record<string, string>>;
}

/**
 * Resolves settings and adapters into a provider configuration.
 *
 * @param settings The user's settings.
 * @param adapters Runtime pieces from the platform entry.
 * @returns The shared configuration.
 * @throws {CursorError} `config` for an invalid agent or API URL (https, or loopback http
 *   with `allowLoopback` / `CURSOR_ALLOW_LOOPBACK=1`) or an unavailable transport.
 */
export function resolveProviderConfig(
  settings: CursorProviderSettings,
  adapters: ProviderAdapters = {},
): ProviderConfig {
  // Long on purpose: the returned value has one line per field of the configuration.
  const env = settings.env ?? {};
  const plainFetch = settings.fetch ?? globalThis.fetch.bind(globalThis);
  const { allowLoopback, apiBaseURL, fixedAgent } = resolveOrigins(settings);
  const now = settings.now ?? Date.now;
  const generateId = settings.generateId ?? (() => crypto.randomUUID());
  const redactor = createCredentialRedactor();
  const tokens: TokenSource = createTokenSource({
    apiKey: settings.apiKey ?? env.CURSOR_API_KEY,
    accessToken: settings.accessToken,
    apiBaseURL,
    allowLoopback,
    fetch: plainFetch,
    now,
    redactor,
  });
  const fetchImpl = retryingRefusedToken(plainFetch, tokens);
  const origin = agentOriginLookup({
    fixedAgent,
    apiBaseURL,
    fetch: fetchImpl,
    allowLoopback,
    unaryMs: settings.timeouts?.unaryMs,
  });
  const billing = createBillingBook(generateId);
  const logger = redactingLogger(
    settings.debug ?? adapters.debugLogger?.() ?? silentLogger,
    redactor,
  );
  return {
    providerName: settings.name ?? "cursor",
    apiBaseURL,
    signInAdvice: settings.signInAdvice ?? adapters.signInAdvice ?? DEFAULT_SIGN_IN_ADVICE,
    fetch: fetchImpl,
    logger,
    redactor,
    transport: withRunCredentials(
      resolveTransport(settings, adapters, {
        fetch: fetchImpl,
        logger,
        now,
        serverConfig: origin.resolved,
        fixedAgent,
      }),
      tokens,
    ),
    blobs: createMemoryBlobStore(),
    workspaceFor: (root) => resolveWorkspace(settings.workspace, adapters, root),
    workspaceRootFor: (root) => workspaceRootOf(settings.workspace, adapters, root),
    workspaceGit: createWorkspaceGit({ git: adapters.git?.(), now }),
    now,
    generateId,
    conversations: heldRunStore(now, billing, logger),
    toolCallOwners: new Map(),
    snapshots: settings.conversationSnapshots === false
      ? undefined
      : settings.conversationSnapshots ?? adapters.snapshotStore?.() ??
        createMemorySnapshotStore(),
    images: settings.imageStaging === false
      ? undefined
      : settings.imageStaging ?? adapters.imageStaging?.(),
    usage: resolveUsageMode(settings.usage),
    billing,
    retries: createRetryLedger({ now, env }),
    agentOrigin: origin.agentOrigin,
    headers: requestHeaders(settings, adapters, { tokens, now, generateId }),
  };
}

/** The provider's conversations; a held Run released by the store is closed and billed. */
function heldRunStore(
  now: () => number,
  billing: BillingBook,
  logger: DebugLogger,
): ConversationStore<ActiveTurn> {
  return createConversationStore<ActiveTurn>({
    now,
    release: (held, reason) => {
      const turn = held as ActiveTurn;
      turn.close();
      interruptRun(billing, turn);
      emitDiagnostic(logger, {
        kind: "held-run-released",
        conversationId: turn.conversationId,
        reason,
      });
    },
  });
}

/** Headers for one request: the settings' own, then auth, client identity and checksum. */
function requestHeaders(
  settings: CursorProviderSettings,
  adapters: ProviderAdapters,
  services: {
    readonly tokens: TokenSource;
    readonly now: () => number;
    readonly generateId: () => string;
  },
): ProviderConfig["headers"] {
  const env = settings.env ?? {};
  const machineId = memo(() =>
    resolveMachineId(settings.machineId, adapters.machineId, services.generateId)
  );
  const clientVersion = memo(async () => {
    const explicit = typeof settings.clientVersion === "function"
      ? await settings.clientVersion()
      : settings.clientVersion;
    return resolveClientVersion(explicit ?? env.CURSOR_CLIENT_VERSION);
  });
  return async (requestId, signal) => {
    const [accessToken, version, id] = await Promise.all([
      services.tokens.accessToken(signal),
      clientVersion(),
      machineId(),
    ]);
    return {
      ...settings.headers,
      ...baseHeaders({
        accessToken,
        clientVersion: version,
        requestId,
        nowMs: services.now(),
        machineId: id,
      }),
    };
  };
}

/** What the transport choice needs beyond the settings. */
interface TransportContext {
  readonly fetch: typeof fetch;
  readonly logger: DebugLogger;
  readonly now: () => number;
  /** The server's configuration once looked up (the HTTP/2 directive). */
  readonly serverConfig: () => ServerConfig | undefined;
  /** The agent origin when the settings fix it (else it comes from the server config). */
  readonly fixedAgent: string | undefined;
}

/**
 * The transport of the settings, `"auto"` unless set (ADR 182). `"http2"` and `"auto"`
 * prefer HTTP/2 and fall back to SSE (ADR 140); `"auto"` is SSE on entries without HTTP/2,
 * where `"http2"` is an error, and for an `http:` agent origin (HTTP/2 only over TLS).
 */
function resolveTransport(
  settings: CursorProviderSettings,
  adapters: ProviderAdapters,
  context: TransportContext,
): AgentTransport {
  const choice = settings.transport ?? "auto";
  if (typeof choice === "object") return choice;
  if (choice !== "sse" && choice !== "http2" && choice !== "auto") {
    throw new CursorError(
      "config",
      `Unknown transport ${JSON.stringify(choice)}: use "sse", "http2" or "auto"`,
    );
  }
  const readIdleMs = settings.timeouts?.readIdleMs;
  const sse = createSseTransport({
    fetch: context.fetch,
    ...(readIdleMs === undefined ? {} : { readIdleMs }),
    ...(settings.timeouts?.appendMs === undefined
      ? {}
      : { appendTimeoutMs: settings.timeouts.appendMs }),
  });
  const cleartextAgent = context.fixedAgent !== undefined && /^http:/i.test(context.fixedAgent);
  if (choice === "sse" || (choice === "auto" && (!adapters.http2Transport || cleartextAgent))) {
    return sse;
  }
  if (!adapters.http2Transport) {
    throw new CursorError(
      "config",
      `transport "http2" needs the Node entry (import from "${PUBLISHED_AS.nodeEntry}"); use "sse" or "auto" elsewhere`,
    );
  }
  return createTransportChoice({
    http2: adapters.http2Transport({ readIdleMs }),
    sse,
    cleartextHttp2: choice === "http2",
    serverConfig: context.serverConfig,
    logger: context.logger,
    now: context.now,
  });
}

/**
 * Gives every Run the token source, so each later request of a held Run (every
 * BidiAppend) carries a current token and an HTTP/2 Run refused with 401 is re-opened
 * once with a renewed one.
 */
function withRunCredentials(transport: AgentTransport, tokens: TokenSource): AgentTransport {
  const rejected = tokens.rejected?.bind(tokens);
  const credentials: RunCredentials = {
    current: (signal) => tokens.accessToken(signal),
    ...(rejected === undefined ? {} : { rejected }),
  };
  return {
    // The kind can change (HTTP/2 falling back to SSE): read it when asked.
    get kind() {
      return transport.kind;
    },
    openRun: (run) => transport.openRun({ ...run, credentials: run.credentials ?? credentials }),
  };
}

function memo<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make();
    value.catch(() => (value = undefined));
    return value;
  };
}

/**
 * The usage mode of a setting or provider option.
 *
 * @param value The value given.
 * @returns The mode (`"request"` when none was given).
 * @throws {CursorError} `config` for any other value.
 */
export function resolveUsageMode(value: unknown): UsageMode {
  if (value === undefined) return "request";
  if (value === "occupancy" || value === "request") return value;
  throw new CursorError(
    "config",
    `Unknown usage mode ${JSON.stringify(value)}: use "occupancy" or "request"`,
  );
}

/**
 * A fetch that answers Cursor's 401 for a refused access token by asking the token
 * source for another one (a re-exchange of the API key or a refresh, once per refused
 * token) and sending the same request again once. A source that cannot renew, or a
 * renewal that fails, leaves the 401 as it was.
 */
function retryingRefusedToken(fetchImpl: typeof fetch, tokens: TokenSource): typeof fetch {
  const rejected = tokens.rejected?.bind(tokens);
  if (rejected === undefined) return fetchImpl;
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const sent = new Headers(init?.headers);
    return await createRenewOnce(rejected).settle(response, {
      sent,
      refused: (answer) => refusesToken(answer.status),
      release: (answer) => answer.body?.cancel().catch(() => {}),
      resend: (token) => fetchImpl(input, { ...init, headers: withBearer(sent, token) }),
      signal: init?.signal ?? undefined,
    });
  };
}
