/**
 * Resolving the agent origin through `GetServerConfig`: once per provider, validated,
 * failing closed (a wrong regional host answers 200 and closes, so a guess is worse
 * than an error).
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import { validateAgentOrigin } from "../protocol/agent-host.ts";
import { callUnaryJson } from "./unary.ts";

/** Options for {@link fetchAgentOrigin}. */
export interface AgentOriginLookup {
  readonly apiBaseURL: string;
  readonly headers: Record<string, string>;
  readonly fetch: typeof fetch;
  readonly allowLoopback: boolean;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Asks Cursor which agent origin serves this account.
 *
 * @param lookup API base URL, headers, fetch, loopback opt-in.
 * @returns The validated agent origin.
 * @throws {CursorError} `config` when the answer has no valid agent URL; call failures as classified.
 */
export async function fetchAgentOrigin(lookup: AgentOriginLookup): Promise<string> {
  const answer = await callUnaryJson({
    url: `${lookup.apiBaseURL}/aiserver.v1.ServerConfigService/GetServerConfig`,
    headers: lookup.headers,
    fetch: lookup.fetch,
    ...(lookup.timeoutMs === undefined ? {} : { timeoutMs: lookup.timeoutMs }),
    ...(lookup.signal ? { signal: lookup.signal } : {}),
  }, { telemEnabled: false });
  const config = typeof answer === "object" && answer !== null
    ? (answer as Record<string, unknown>).agentUrlConfig
    : undefined;
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
  return validateAgentOrigin(url, { allowLoopback: lookup.allowLoopback });
}
