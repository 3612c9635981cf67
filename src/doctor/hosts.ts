/**
 * The Cursor host checks: DNS and TLS of the API origin, the loopback allowance for a
 * local emulator, `GetServerConfig` with the live token, and the agent host it names
 * against the allow-list (https under cursor.sh, or an allowed loopback origin). Also
 * the client version sent in `x-cursor-client-version`.
 *
 * @module
 */
import { validateAgentOrigin } from "../protocol/agent-host.ts";
import {
  FALLBACK_CLIENT_VERSION,
  isValidClientVersion,
  unaryJsonHeaders,
} from "../protocol/headers.ts";
import { fetchAgentOrigin } from "../transport/server-config.ts";
import { type CheckResult, type DoctorProbes, result } from "./doctor-types.ts";
import type { ProviderTarget } from "./opencode-config.ts";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * The client version the provider sends, and whether an override was ignored.
 *
 * @param env The environment (`CURSOR_CLIENT_VERSION`).
 * @returns One result.
 *
 * @example
 * ```ts
 * import { clientVersionCheck } from "./hosts.ts";
 *
 * console.assert(clientVersionCheck({ CURSOR_CLIENT_VERSION: "1.0" }).status === "warn");
 * console.assert(clientVersionCheck({}).status === "ok");
 * ```
 */
export function clientVersionCheck(env: Readonly<Record<string, string | undefined>>): CheckResult {
  const explicit = env.CURSOR_CLIENT_VERSION?.trim();
  if (explicit && !isValidClientVersion(explicit)) {
    return result(
      "client.version",
      "Client version",
      "warn",
      `CURSOR_CLIENT_VERSION=${JSON.stringify(explicit)} is not of the cli-YYYY.MM.DD-hash form; ` +
        `${FALLBACK_CLIENT_VERSION} is sent instead`,
      "unset CURSOR_CLIENT_VERSION, or set it to a version such as " + FALLBACK_CLIENT_VERSION,
    );
  }
  return result(
    "client.version",
    "Client version",
    "ok",
    explicit ? `${explicit} (from CURSOR_CLIENT_VERSION)` : `${FALLBACK_CLIENT_VERSION} (pinned)`,
  );
}

/**
 * Checks the hosts.
 *
 * @param probes Network probes.
 * @param target The API origin and loopback allowance.
 * @param accessToken A live access token, when the credential checks produced one.
 * @returns Results, in order.
 */
export async function checkHosts(
  probes: DoctorProbes,
  target: ProviderTarget,
  accessToken: string | undefined,
): Promise<CheckResult[]> {
  let url: URL;
  try {
    url = new URL(target.apiBaseURL);
  } catch {
    return [
      result(
        "hosts.api-url",
        "API origin",
        "fail",
        `${JSON.stringify(target.apiBaseURL)} from ${target.apiBaseURLSource} is not a URL`,
        `correct ${target.apiBaseURLSource} (default https://api2.cursor.sh)`,
      ),
    ];
  }
  const loopback = LOOPBACK.has(url.hostname);
  if (loopback && !target.allowLoopback) {
    return [
      result(
        "hosts.loopback",
        "Loopback allowance",
        "fail",
        `The API origin ${url.origin} (from ${target.apiBaseURLSource}) is a loopback address, ` +
          "which the provider refuses unless allowLoopback is set",
        `add "allowLoopback": true under provider.cursor.options in ${
          target.providerConfig ?? "opencode.json"
        } ` +
          "(only for a local emulator), or unset CURSOR_API_BASE_URL to use Cursor",
      ),
    ];
  }
  const results: CheckResult[] = [];
  if (loopback) {
    results.push(
      result(
        "hosts.loopback",
        "Loopback allowance",
        "ok",
        `${url.origin} is a local emulator and loopback is allowed`,
      ),
    );
  } else {
    const network = await dnsAndTls(probes, url);
    results.push(...network);
    if (network.some((check) => check.status === "fail")) return results;
  }
  results.push(await serverConfig(probes, target, accessToken));
  return results;
}

async function dnsAndTls(probes: DoctorProbes, url: URL): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  try {
    const addresses = await probes.lookupHost(url.hostname);
    results.push(
      result("hosts.dns", "DNS", "ok", `${url.hostname} resolves to ${addresses.join(", ")}`),
    );
  } catch (error) {
    results.push(
      result(
        "hosts.dns",
        "DNS",
        "fail",
        `${url.hostname} does not resolve: ${message(error)}`,
        `check the network or DNS (try: nslookup ${url.hostname})`,
      ),
    );
    return results;
  }
  if (url.protocol !== "https:") {
    results.push(
      result(
        "hosts.tls",
        "TLS",
        "fail",
        `${url.origin} is not https`,
        "use https://api2.cursor.sh (unset CURSOR_API_BASE_URL)",
      ),
    );
    return results;
  }
  try {
    const tls = await probes.tlsHandshake(url.hostname, Number(url.port || 443));
    results.push(
      result(
        "hosts.tls",
        "TLS",
        "ok",
        `${tls.protocol}, certificate valid, ALPN ${tls.alpn || "none"}`,
      ),
    );
  } catch (error) {
    results.push(
      result(
        "hosts.tls",
        "TLS",
        "fail",
        `TLS to ${url.host} failed: ${message(error)}`,
        "a proxy or firewall may intercept TLS: export NODE_EXTRA_CA_CERTS=/path/to/its-ca.pem",
      ),
    );
  }
  return results;
}

async function serverConfig(
  probes: DoctorProbes,
  target: ProviderTarget,
  accessToken: string | undefined,
): Promise<CheckResult> {
  const title = "Agent host";
  if (accessToken === undefined) {
    return result(
      "hosts.agent-allow-list",
      title,
      "skip",
      "GetServerConfig needs a valid access token (see the credentials checks)",
    );
  }
  let agent: string;
  try {
    agent = await fetchAgentOrigin({
      apiBaseURL: target.apiBaseURL,
      headers: unaryJsonHeaders({
        accessToken,
        clientVersion: FALLBACK_CLIENT_VERSION,
        requestId: crypto.randomUUID(),
        nowMs: probes.now(),
        machineId: await probes.machineId(),
      }),
      fetch: probes.fetch,
      // Validate below, to say which rule failed.
      allowLoopback: true,
      timeoutMs: 10_000,
    });
  } catch (error) {
    return result(
      "hosts.server-config",
      "GetServerConfig",
      "fail",
      message(error),
      "check the network and the credentials, then run doctor again",
    );
  }
  try {
    validateAgentOrigin(agent, { allowLoopback: target.allowLoopback });
    return result(
      "hosts.agent-allow-list",
      title,
      "ok",
      `GetServerConfig names ${agent}, which is on the allow-list`,
    );
  } catch (error) {
    return result(
      "hosts.agent-allow-list",
      title,
      "fail",
      `GetServerConfig names ${agent}: ${message(error)}`,
      LOOPBACK.has(new URL(agent).hostname)
        ? `add "allowLoopback": true under provider.cursor.options in ${
          target.providerConfig ?? "opencode.json"
        }`
        : "unset CURSOR_API_BASE_URL so the provider asks Cursor itself",
    );
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
