/**
 * The model checks: the plugin's model cache (present, parses, age, count) and, with a
 * live token, how many models Cursor lists for the account.
 *
 * @module
 */
import { fetchAvailableModels } from "../catalog/available-models.ts";
import { MODEL_CACHE_TTL_MS, parseCatalogCache } from "../catalog/model-cache.ts";
import { ago } from "./credentials.ts";
import { type CheckResult, type DoctorProbes, result } from "./doctor-types.ts";

/**
 * Checks the model cache file.
 *
 * @param probes File access and the clock.
 * @returns One result.
 */
export async function checkModelCache(probes: DoctorProbes): Promise<CheckResult> {
  const path = probes.paths.modelCache;
  const title = "Model cache";
  const text = await probes.readFile(path);
  if (text === undefined) {
    return result(
      "models.cache",
      title,
      "warn",
      `No model cache at ${path} yet`,
      "start OpenCode once with the plugin (it writes the cache), or: opencode models cursor",
    );
  }
  const catalog = parseCatalogCache(text);
  if (catalog === undefined) {
    return result(
      "models.cache",
      title,
      "fail",
      `${path} does not parse as a model cache`,
      `rm ${path} (the plugin fetches a fresh list at its next start)`,
    );
  }
  const age = probes.now() - catalog.fetchedAt;
  const count = `${catalog.models.length} models, fetched ${ago(Math.max(0, age))} ago`;
  if (age > MODEL_CACHE_TTL_MS) {
    return result(
      "models.cache",
      title,
      "warn",
      `${count} (older than a day)`,
      "the plugin refreshes it at its next start with valid credentials; to force it: rm " + path,
    );
  }
  if (catalog.models.length === 0) {
    return result("models.cache", title, "warn", `${path} lists no models`, `rm ${path}`);
  }
  return result("models.cache", title, "ok", `${count} (${path})`);
}

/**
 * Asks Cursor for the account's models.
 *
 * @param probes Network probes.
 * @param apiBaseURL The API origin.
 * @param accessToken A live token, or `undefined` to skip.
 * @returns One result.
 */
export async function checkModelList(
  probes: DoctorProbes,
  apiBaseURL: string,
  accessToken: string | undefined,
): Promise<CheckResult> {
  const title = "Model list";
  if (accessToken === undefined) {
    return result("models.live", title, "skip", "needs a valid access token");
  }
  try {
    const models = await fetchAvailableModels({
      apiBaseURL,
      accessToken,
      fetch: probes.fetch,
      machineId: await probes.machineId(),
      timeoutMs: 10_000,
    });
    const sample = models.slice(0, 5).map((model) => model.id).join(", ");
    return result(
      "models.live",
      title,
      models.length > 0 ? "ok" : "warn",
      `Cursor lists ${models.length} models for this account${sample ? ` (${sample}, …)` : ""}`,
      models.length > 0 ? undefined : "check the account's plan at cursor.com/settings",
    );
  } catch (error) {
    return result(
      "models.live",
      title,
      "fail",
      `AvailableModels failed: ${error instanceof Error ? error.message : String(error)}`,
      "check the credentials and the network, then run doctor again",
    );
  }
}
