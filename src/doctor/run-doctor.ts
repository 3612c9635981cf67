/**
 * `runDoctor`: every check in order, each over the injected probes, and the two ways
 * to show the report (text for people, JSON for machines).
 *
 * @module
 */
import { checkCredentials, findCredentials } from "./credentials.ts";
import {
  type CheckResult,
  type CheckStatus,
  type DoctorProbes,
  type DoctorReport,
  result,
} from "./doctor-types.ts";
import { checkHosts, clientVersionCheck } from "./hosts.ts";
import { checkCursorAgent, checkDebugLog } from "./local-tools.ts";
import { checkModelCache, checkModelList } from "./models.ts";
import { checkOpenCodeConfig, providerTarget, readOpenCodeConfigs } from "./opencode-config.ts";

/**
 * Runs every check.
 *
 * @param probes What the checks may touch.
 * @returns The report; `ok` is false when any check failed.
 *
 * @example A set-up with nothing in it
 * ```ts
 * import { runDoctor } from "./run-doctor.ts";
 *
 * const report = await runDoctor({
 *   env: {},
 *   fetch: () => Promise.reject(new Error("offline")),
 *   paths: { authFile: "/none/auth.json", modelCache: "/none/m.json", openCodeConfigs: [], debugLog: undefined },
 *   readFile: () => Promise.resolve(undefined),
 *   exists: () => Promise.resolve(false),
 *   lookupHost: () => Promise.reject(new Error("offline")),
 *   tlsHandshake: () => Promise.reject(new Error("offline")),
 *   run: () => Promise.resolve(undefined),
 *   findCursorAgent: () => undefined,
 *   machineId: () => Promise.resolve("0".repeat(64)),
 *   now: () => 0,
 * });
 * console.assert(!report.ok);
 * console.assert(report.checks.some((c) => c.id === "credentials.present" && c.fix !== undefined));
 * ```
 */
export async function runDoctor(probes: DoctorProbes): Promise<DoctorReport> {
  const configs = await readOpenCodeConfigs(probes);
  const target = providerTarget(probes.env, configs);
  // Without an OpenCode config or login, OpenCode's checks and advice do not apply.
  const openCode = configs.length > 0 || await probes.exists(probes.paths.authFile);
  const credentials = await checkCredentials(
    probes,
    await findCredentials(probes),
    { ...target, openCode },
  );
  const checks: CheckResult[] = [
    ...credentials.results,
    ...await checkHosts(probes, target, credentials.accessToken),
    clientVersionCheck(probes.env),
    await checkModelList(probes, target.apiBaseURL, credentials.accessToken),
    ...(openCode
      ? [await checkModelCache(probes), ...await checkOpenCodeConfig(probes, configs)]
      : [noOpenCode(probes)]),
    checkDebugLog(probes),
    ...await checkCursorAgent(probes),
  ];
  return { ok: !checks.some((check) => check.status === "fail"), checks };
}

/** The one line that stands for OpenCode's checks when there is no OpenCode set-up. */
function noOpenCode(probes: DoctorProbes): CheckResult {
  return result(
    "opencode.setup",
    "OpenCode",
    "skip",
    `No OpenCode set-up found (no config at ${
      probes.paths.openCodeConfigs.join(", ") || "the usual places"
    }, no ${probes.paths.authFile}); the OpenCode checks do not apply`,
  );
}

const LABELS: Readonly<Record<CheckStatus, string>> = {
  ok: "ok  ",
  warn: "warn",
  fail: "FAIL",
  skip: "skip",
};

/**
 * The report as text for people: one line per check, the fix indented below a problem,
 * and a closing summary.
 *
 * @param report The report.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { formatDoctorText } from "./run-doctor.ts";
 *
 * const text = formatDoctorText({
 *   ok: false,
 *   checks: [{ id: "models.cache", title: "Model cache", status: "fail", detail: "Corrupt", fix: "rm cache.json" }],
 * });
 * console.assert(text.includes("FAIL  Model cache: Corrupt\n      fix: rm cache.json"));
 * ```
 */
export function formatDoctorText(report: DoctorReport): string {
  const lines = ["ai-sdk-provider-cursor doctor", ""];
  for (const check of report.checks) {
    lines.push(`${LABELS[check.status]}  ${check.title}: ${check.detail}`);
    if (check.fix !== undefined && check.status !== "ok") lines.push(`      fix: ${check.fix}`);
  }
  const count = (status: CheckStatus) => report.checks.filter((c) => c.status === status).length;
  lines.push(
    "",
    `${count("ok")} ok, ${count("warn")} warnings, ${count("fail")} problems, ` +
      `${count("skip")} skipped`,
  );
  return lines.join("\n");
}

/**
 * The report as JSON for machines: `{ ok, checks: [{ id, title, status, detail, fix? }] }`.
 *
 * @param report The report.
 * @returns Pretty-printed JSON.
 */
export function formatDoctorJson(report: DoctorReport): string {
  return JSON.stringify(report, null, 2);
}
