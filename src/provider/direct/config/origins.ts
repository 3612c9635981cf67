/**
 * Where the provider's requests go: the API origin and the agent origin, checked once,
 * the agent origin read from Cursor's server config when none is configured.
 *
 * @module
 */
import { loopbackAllowedByEnv, validateCursorOrigin } from "../../../auth/cursor-origin.ts";
import { validateAgentOrigin } from "../../../protocol/agent-host.ts";
import { fetchServerConfig, type ServerConfig } from "../../../transport/server-config.ts";
import {
  type CursorProviderSettings,
  DEFAULT_API_BASE_URL,
} from "../../settings/cursor-settings.ts";

/** The agent origin for a request with these headers (looked up on first use). */
export type AgentOriginLookup = (
  headers: Record<string, string>,
  signal?: AbortSignal,
) => Promise<string>;

/**
 * The API and agent origins of the settings, checked (https, or loopback when allowed).
 *
 * @param settings The provider settings (their `env` included).
 * @returns The origins, and whether loopback origins are allowed.
 * @throws {CursorError} `config` for an origin that is neither https nor allowed loopback.
 */
export function resolveOrigins(settings: CursorProviderSettings): {
  readonly allowLoopback: boolean;
  readonly apiBaseURL: string;
  readonly fixedAgent: string | undefined;
} {
  const env = settings.env ?? {};
  const allowLoopback = settings.allowLoopback ?? loopbackAllowedByEnv(env.CURSOR_ALLOW_LOOPBACK);
  const apiBaseURL = validateCursorOrigin(
    settings.apiBaseURL ?? env.CURSOR_API_BASE_URL ?? DEFAULT_API_BASE_URL,
    { allowLoopback },
  );
  const explicitAgent = settings.agentBaseURL ?? env.CURSOR_AGENT_BASE_URL;
  const fixedAgent = explicitAgent === undefined
    ? undefined
    : validateAgentOrigin(explicitAgent, { allowLoopback });
  return { allowLoopback, apiBaseURL, fixedAgent };
}

/**
 * The agent origin: the configured one, else the server config's (looked up once and
 * shared; a failed lookup is tried again by the next Run).
 *
 * @param input The configured origin, where to look the server config up, and how.
 * @returns The lookup, and the server config once one was read.
 */
export function agentOriginLookup(input: {
  readonly fixedAgent: string | undefined;
  readonly apiBaseURL: string;
  readonly fetch: typeof fetch;
  readonly allowLoopback: boolean;
  readonly unaryMs: number | undefined;
}): {
  readonly agentOrigin: AgentOriginLookup;
  readonly resolved: () => ServerConfig | undefined;
} {
  let serverConfig: Promise<ServerConfig> | undefined;
  let resolvedServerConfig: ServerConfig | undefined;
  const agentOrigin: AgentOriginLookup = (headers, signal) => {
    if (input.fixedAgent !== undefined) return Promise.resolve(input.fixedAgent);
    if (serverConfig === undefined) {
      const lookup = fetchServerConfig({
        apiBaseURL: input.apiBaseURL,
        headers,
        fetch: input.fetch,
        allowLoopback: input.allowLoopback,
        ...(input.unaryMs === undefined ? {} : { timeoutMs: input.unaryMs }),
        ...(signal ? { signal } : {}),
      });
      serverConfig = lookup;
      // Recorded before any caller sees the origin: the Run it opens reads the directive.
      lookup.then((config) => (resolvedServerConfig = config), () => {
        if (serverConfig === lookup) serverConfig = undefined;
      });
    }
    return serverConfig.then((config) => config.agentOrigin);
  };
  return { agentOrigin, resolved: () => resolvedServerConfig };
}
