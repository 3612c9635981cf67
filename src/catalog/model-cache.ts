/**
 * The cached model catalogue: a JSON document `{schemaVersion, fetchedAt, models}` kept
 * by an injected store (a file in the host's cache folder on Node). Fresh for 24 hours;
 * a stale copy is still served when a refresh fails; an empty, corrupt or outdated
 * document counts as missing and is replaced by the next successful fetch. There are
 * no built-in fallback models: without a catalogue the list is empty and the caller
 * says why.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import type { CatalogModel, CatalogParameterValue, CatalogVariant } from "./catalog-model.ts";

/** Where the cached document lives. Implementations may throw; callers treat that as missing. */
export interface ModelCacheStore {
  /** The stored text, or `undefined` when there is none. */
  read(): Promise<string | undefined>;
  /** Replaces the stored text. */
  write(text: string): Promise<void>;
}

/** A catalogue with the time it was fetched. */
export interface CachedCatalog {
  readonly fetchedAt: number;
  readonly models: readonly CatalogModel[];
}

/** The document version; bump it when the cached shape changes. */
export const MODEL_CACHE_SCHEMA_VERSION = 1;

/** How long a fetched catalogue is fresh: 24 hours. */
export const MODEL_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

/** What the store holds right now. */
export type CacheState =
  | { readonly kind: "fresh" | "stale"; readonly catalog: CachedCatalog }
  | { readonly kind: "missing" | "corrupt" };

/** Where a catalogue came from. */
export type CatalogSource = "cache" | "network" | "stale-cache" | "none";

/** The result of {@link ensureCatalog}. */
export interface CatalogResult {
  /** The models to offer (empty when none are known). */
  readonly models: readonly CatalogModel[];
  readonly source: CatalogSource;
  /** When the models were fetched (absent for `none`). */
  readonly fetchedAt?: number | undefined;
  /** Why a refresh failed, when it did. */
  readonly error?: CursorError | undefined;
}

/** Options for {@link ensureCatalog}. */
export interface EnsureCatalogOptions {
  readonly store: ModelCacheStore;
  readonly now: () => number;
  /** Fetches the catalogue; absent when there are no credentials to fetch with. */
  readonly fetchModels?: (() => Promise<readonly CatalogModel[]>) | undefined;
  /** Freshness; default {@link MODEL_CACHE_TTL_MS}. */
  readonly ttlMs?: number | undefined;
  /** Fetch even when the cache is fresh. */
  readonly force?: boolean | undefined;
}

/**
 * Reads the store and classifies what it holds.
 *
 * @param store The store.
 * @param nowMs The current time.
 * @param ttlMs Freshness.
 * @returns `fresh`/`stale` with the catalogue, or `missing`/`corrupt`.
 */
export async function readCatalogCache(
  store: ModelCacheStore,
  nowMs: number,
  ttlMs: number = MODEL_CACHE_TTL_MS,
): Promise<CacheState> {
  let text: string | undefined;
  try {
    text = await store.read();
  } catch {
    return { kind: "missing" };
  }
  if (text === undefined || text.trim() === "") return { kind: "missing" };
  const catalog = parseCatalogCache(text);
  if (catalog === undefined) return { kind: "corrupt" };
  if (catalog.models.length === 0) return { kind: "missing" };
  const age = nowMs - catalog.fetchedAt;
  return { kind: age >= 0 && age < ttlMs ? "fresh" : "stale", catalog };
}

/**
 * Returns the catalogue to offer: the fresh cache as it is; otherwise a fetch (stored
 * on success), falling back to a stale cache when the fetch fails.
 *
 * @param options Store, clock, fetcher, freshness.
 * @returns The models and where they came from; never throws.
 *
 * @example
 * ```ts
 * import { ensureCatalog } from "./model-cache.ts";
 *
 * let text: string | undefined;
 * const store = { read: () => Promise.resolve(text), write: (t: string) => Promise.resolve(void (text = t)) };
 * const model = { id: "m", displayName: "M", thinking: false, images: false, tools: true, variants: [] };
 * const first = await ensureCatalog({ store, now: () => 0, fetchModels: () => Promise.resolve([model]) });
 * const second = await ensureCatalog({ store, now: () => 1000 });
 * console.assert(first.source === "network" && second.source === "cache");
 * ```
 */
export async function ensureCatalog(options: EnsureCatalogOptions): Promise<CatalogResult> {
  const ttl = options.ttlMs ?? MODEL_CACHE_TTL_MS;
  const state = await readCatalogCache(options.store, options.now(), ttl);
  if (state.kind === "fresh" && !options.force) {
    return { models: state.catalog.models, source: "cache", fetchedAt: state.catalog.fetchedAt };
  }
  const cached = state.kind === "fresh" || state.kind === "stale" ? state.catalog : undefined;
  if (options.fetchModels === undefined) {
    return cached === undefined
      ? { models: [], source: "none" }
      : { models: cached.models, source: "stale-cache", fetchedAt: cached.fetchedAt };
  }
  try {
    const models = await options.fetchModels();
    const fetchedAt = options.now();
    if (models.length > 0) {
      await options.store.write(serializeCatalogCache({ fetchedAt, models })).catch(() => {});
    }
    return { models, source: "network", fetchedAt };
  } catch (reason) {
    const error = CursorError.from(reason);
    return cached === undefined
      ? { models: [], source: "none", error }
      : { models: cached.models, source: "stale-cache", fetchedAt: cached.fetchedAt, error };
  }
}

/**
 * Serializes a catalogue for the store.
 *
 * @param catalog The catalogue.
 * @returns JSON text.
 */
export function serializeCatalogCache(catalog: CachedCatalog): string {
  return `${
    JSON.stringify(
      {
        schemaVersion: MODEL_CACHE_SCHEMA_VERSION,
        fetchedAt: catalog.fetchedAt,
        models: catalog.models,
      },
      null,
      2,
    )
  }\n`;
}

/**
 * Parses a stored document, validating every field.
 *
 * @param text The stored text.
 * @returns The catalogue, or `undefined` when the text is not a valid current document.
 */
export function parseCatalogCache(text: string): CachedCatalog | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(json) || json.schemaVersion !== MODEL_CACHE_SCHEMA_VERSION) return undefined;
  if (typeof json.fetchedAt !== "number" || !Number.isFinite(json.fetchedAt)) return undefined;
  if (!Array.isArray(json.models)) return undefined;
  const models: CatalogModel[] = [];
  for (const item of json.models) {
    const model = readModel(item);
    if (model === undefined) return undefined;
    models.push(model);
  }
  return { fetchedAt: json.fetchedAt, models };
}

function readModel(value: unknown): CatalogModel | undefined {
  if (!isRecord(value)) return undefined;
  const { id, displayName, thinking, images, tools, variants } = value;
  if (typeof id !== "string" || id === "" || typeof displayName !== "string") return undefined;
  if (typeof thinking !== "boolean" || typeof images !== "boolean" || typeof tools !== "boolean") {
    return undefined;
  }
  if (!Array.isArray(variants)) return undefined;
  const parsed: CatalogVariant[] = [];
  for (const variant of variants) {
    const v = readVariant(variant);
    if (v === undefined) return undefined;
    parsed.push(v);
  }
  const limit = optionalNumber(value.contextTokenLimit);
  const maxLimit = optionalNumber(value.contextTokenLimitForMaxMode);
  if (limit === null || maxLimit === null) return undefined;
  return {
    id,
    displayName,
    thinking,
    images,
    tools,
    ...(limit === undefined ? {} : { contextTokenLimit: limit }),
    ...(maxLimit === undefined ? {} : { contextTokenLimitForMaxMode: maxLimit }),
    variants: parsed,
  };
}

function readVariant(value: unknown): CatalogVariant | undefined {
  if (!isRecord(value) || !Array.isArray(value.parameters)) return undefined;
  const { displayName, maxMode, defaultNonMax, defaultMax } = value;
  if (typeof displayName !== "string" || typeof maxMode !== "boolean") return undefined;
  if (typeof defaultNonMax !== "boolean" || typeof defaultMax !== "boolean") return undefined;
  const parameters: CatalogParameterValue[] = [];
  for (const p of value.parameters) {
    if (!isRecord(p) || typeof p.id !== "string" || typeof p.value !== "string") return undefined;
    parameters.push({ id: p.id, value: p.value });
  }
  return { parameters, displayName, maxMode, defaultNonMax, defaultMax };
}

function optionalNumber(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
