/**
 * The model catalogue of one plugin instance: loaded from the cache at start-up
 * (fetched when the cache is empty, corrupt or older than a day and credentials
 * exist), refreshed after a login, and kept in memory for checking selections.
 *
 * @module
 */
import { validateCursorOrigin } from "../../src/auth/cursor-origin.ts";
import type { TokenSource } from "../../src/auth/token-source.ts";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import { fetchAvailableModels } from "../../src/catalog/available-models.ts";
import {
  type CatalogResult,
  ensureCatalog,
  type ModelCacheStore,
} from "../../src/catalog/model-cache.ts";

/** What the catalogue needs from its surroundings. */
export interface CatalogDependencies {
  readonly store: ModelCacheStore;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly machineId: () => Promise<string>;
}

/** Where and as whom to fetch. */
export interface CatalogTarget {
  readonly apiBaseURL: string;
  /** Accept a plain-http loopback API origin (a local emulator). */
  readonly allowLoopback?: boolean | undefined;
  readonly clientVersion?: string | undefined;
}

/** The catalogue of one plugin instance. */
export interface CatalogRuntime {
  /** The models last loaded, or `undefined` before the first load. */
  models(): readonly CatalogModel[] | undefined;
  /**
   * Start-up: the fresh cache as it is; otherwise a fetch with `tokens` (when given),
   * falling back to a stale cache.
   */
  load(tokens: TokenSource | undefined, target: CatalogTarget): Promise<CatalogResult>;
  /** Fetches now and stores the result (after a login); never throws. */
  refresh(tokens: TokenSource, target: CatalogTarget): Promise<CatalogResult>;
}

/**
 * Creates the catalogue of a plugin instance.
 *
 * @param deps Store, fetch, clock and machine id.
 * @returns The catalogue runtime.
 */
export function createCatalogRuntime(deps: CatalogDependencies): CatalogRuntime {
  let current: readonly CatalogModel[] | undefined;
  const fetcher = (tokens: TokenSource, target: CatalogTarget) => async () => {
    const apiBaseURL = validateCursorOrigin(target.apiBaseURL, {
      allowLoopback: target.allowLoopback,
    });
    const [accessToken, machineId] = await Promise.all([tokens.accessToken(), deps.machineId()]);
    return await fetchAvailableModels({
      apiBaseURL,
      accessToken,
      fetch: deps.fetch,
      machineId,
      clientVersion: target.clientVersion,
      now: deps.now,
    });
  };
  const run = async (
    tokens: TokenSource | undefined,
    target: CatalogTarget,
    force: boolean,
  ): Promise<CatalogResult> => {
    const result = await ensureCatalog({
      store: deps.store,
      now: deps.now,
      fetchModels: tokens === undefined ? undefined : fetcher(tokens, target),
      force,
    });
    if (result.models.length > 0 || current === undefined) current = result.models;
    return result;
  };
  return {
    models: () => current,
    load: (tokens, target) => run(tokens, target, false),
    refresh: (tokens, target) => run(tokens, target, true),
  };
}
