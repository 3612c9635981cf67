/**
 * `GetServerConfig`: the agent origin (once per provider, validated, failing closed: a
 * wrong regional host answers 200 and closes, so a guess is worse than an error) and the
 * server's HTTP/2 directive (`http2_config`, failing open: an unknown value allows HTTP/2).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { validateAgentOrigin } from "../protocol/agent-host.ts";
import { callUnaryJson } from "./unary.ts";

/** Options for {@link fetchAgentOrigin} and {@link fetchServerConfig}. */
export interface AgentOriginLookup {
  readonly apiBaseURL: string;
  readonly headers: Record<string, string>;
  readonly fetch: typeof fetch;
  readonly allowLoopback: boolean;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * What the server says about HTTP/2: `"allowed"` (unspecified or forced on) or
 * `"disabled"` (the client must use the HTTP/1.1 transports).
 */
export type Http2Directive = "allowed" | "disabled";

/** The parts of `GetServerConfig` the provider uses. */
export interface ServerConfig {
  /** The validated agent origin. */
  readonly agentOrigin: string;
  /** Whether Runs may use HTTP/2. */
  readonly http2: Http2Directive;
  /** The `http2Config` value as Cursor sent it (for the debug log); absent when unset. */
  readonly http2Config?: string | undefined;
}

/**
 * Asks Cursor which agent origin serves this account.
 *
 * @param lookup API base URL, headers, fetch, loopback opt-in.
 * @returns The validated agent origin.
 * @throws {CursorError} `config` when the answer has no valid agent URL; call failures as classified.
 */
export async function fetchAgentOrigin(lookup: AgentOriginLookup): Promise<string> {
  return (await fetchServerConfig(lookup)).agentOrigin;
}

/**
 * Asks Cursor for its server configuration: the agent origin and the HTTP/2 directive.
 *
 * @param lookup API base URL, headers, fetch, loopback opt-in.
 * @returns The agent origin and whether Runs may use HTTP/2.
 * @throws {CursorError} `config` when the answer has no valid agent URL; call failures as classified.
 *
 * @example
 * ```ts
 * import { fetchServerConfig } from "./server-config.ts";
 *
 * const answer = { agentUrlConfig: { agentnUrl: "https://agentn.api5.cursor.sh" }, http2Config: "HTTP2_CONFIG_FORCE_ALL_DISABLED" };
 * const config = await fetchServerConfig({
 *   apiBaseURL: "https://api2.cursor.sh",
 *   headers: {},
 *   fetch: () => Promise.resolve(Response.json(answer)),
 *   allowLoopback: false,
 * });
 * console.assert(config.agentOrigin === "https://agentn.api5.cursor.sh");
 * console.assert(config.http2 === "disabled");
 * ```
 */
export async function fetchServerConfig(lookup: AgentOriginLookup): Promise<ServerConfig> {
  const answer = await callUnaryJson({
    url: `${lookup.apiBaseURL}/aiserver.v1.ServerConfigService/GetServerConfig`,
    headers: lookup.headers,
    fetch: lookup.fetch,
    ...(lookup.timeoutMs === undefined ? {} : { timeoutMs: lookup.timeoutMs }),
    ...(lookup.signal ? { signal: lookup.signal } : {}),
  }, { telemEnabled: false });
  const fields = typeof answer === "object" && answer !== null
    ? answer as Record<string, unknown>
    : {};
  const config = fields.agentUrlConfig;
  const record = typeof config === "object" && config !== null
    ? config as Record<string, unknown>
    : {};
  const url = [record.agentnUrl, record.agentUrl].find((v): v is string =>
    typeof v === "string" && v.trim() !== ""
  );
  if (url === undefined) {
    throw new CursorError(
      "config",
      "GetServerConfig returned no agent URL; cannot pick a region safely",
    );
  }
  const raw = fields.http2Config;
  return {
    agentOrigin: validateAgentOrigin(url, { allowLoopback: lookup.allowLoopback }),
    http2: http2DirectiveOf(raw),
    http2Config: typeof raw === "string" || typeof raw === "number" ? String(raw) : undefined,
  };
}

/**
 * The directive of an `http2_config` value in either JSON form (the enum name, or its
 * number). `FORCE_ALL_DISABLED` (1) turns HTTP/2 off; so does `FORCE_BIDI_DISABLED`,
 * whose name one client reads as a downgrade but whose number is uncertain (3 in our
 * schema). Falling back to SSE is the safe side of that doubt; anything else allows HTTP/2.
 */
function http2DirectiveOf(value: unknown): Http2Directive {
  const disabled = new Set<unknown>([
    "HTTP2_CONFIG_FORCE_ALL_DISABLED",
    "HTTP2_CONFIG_FORCE_BIDI_DISABLED",
    1,
    3,
  ]);
  return disabled.has(value) ? "disabled" : "allowed";
}
