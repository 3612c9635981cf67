/**
 * Checks of local settings: the debug log (`CURSOR_PROVIDER_DEBUG`,
 * `CURSOR_PROVIDER_DEBUG_FILE`) and the `cursor-agent` binary with its login.
 *
 * @module
 */
import { type CheckResult, type DoctorProbes, result } from "./doctor-types.ts";

const INSTALL_AGENT = "curl https://cursor.com/install -fsS | bash";

/**
 * Checks the debug-log settings.
 *
 * @param probes Environment and the resolved log path.
 * @returns One result.
 */
export function checkDebugLog(probes: DoctorProbes): CheckResult {
  const title = "Debug log";
  const flag = probes.env.CURSOR_PROVIDER_DEBUG?.trim();
  const file = probes.env.CURSOR_PROVIDER_DEBUG_FILE?.trim();
  const on = flag === "1" || flag?.toLowerCase() === "true";
  if (flag && !on) {
    return result(
      "debug.settings",
      title,
      "warn",
      `CURSOR_PROVIDER_DEBUG=${JSON.stringify(flag)} does not turn the log on (only 1 or true do)`,
      "export CURSOR_PROVIDER_DEBUG=1",
    );
  }
  if (!on && file) {
    return result(
      "debug.settings",
      title,
      "warn",
      "CURSOR_PROVIDER_DEBUG_FILE is set but the log is off",
      "export CURSOR_PROVIDER_DEBUG=1",
    );
  }
  if (!on) {
    return result(
      "debug.settings",
      title,
      "ok",
      "Off (CURSOR_PROVIDER_DEBUG=1 records a diagnostic log; it never holds credentials)",
    );
  }
  return result(
    "debug.settings",
    title,
    "ok",
    `On: the provider writes ${probes.paths.debugLog ?? "a log"}`,
  );
}

/**
 * Checks the `cursor-agent` CLI: installed, its version, signed in.
 *
 * @param probes Binary lookup and process runs.
 * @returns Results.
 */
export async function checkCursorAgent(probes: DoctorProbes): Promise<CheckResult[]> {
  const binary = probes.findCursorAgent();
  if (binary === undefined) {
    return [
      result(
        "cursor-agent.installed",
        "cursor-agent",
        "warn",
        "cursor-agent is not installed (needed only for the cursor-agent backend)",
        INSTALL_AGENT,
      ),
    ];
  }
  const version = await probes.run(binary, ["--version"], 10_000);
  if (version === undefined || version.code !== 0) {
    return [
      result(
        "cursor-agent.installed",
        "cursor-agent",
        "fail",
        `${binary} does not run (${
          version === undefined ? "cannot start" : `exit ${version.code}`
        })`,
        `reinstall it: ${INSTALL_AGENT}`,
      ),
    ];
  }
  const installed = result(
    "cursor-agent.installed",
    "cursor-agent",
    "ok",
    `${binary}, version ${version.stdout.trim().split("\n")[0]}`,
  );
  const status = await probes.run(binary, ["status"], 15_000);
  const text = `${status?.stdout ?? ""}${status?.stderr ?? ""}`;
  if (status?.code === 0 && /logged in/i.test(text) && !/not logged in/i.test(text)) {
    const line = text.split("\n").find((l) => /logged in/i.test(l))?.replace(/^[^A-Za-z]+/, "") ??
      "";
    return [installed, result("cursor-agent.login", "cursor-agent login", "ok", line.trim())];
  }
  return [
    installed,
    result(
      "cursor-agent.login",
      "cursor-agent login",
      "fail",
      "cursor-agent is not signed in",
      `${binary} login (or export CURSOR_API_KEY)`,
    ),
  ];
}
