import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { CatalogModel } from "../../src/catalog/catalog-model.ts";
import {
  ensureCatalog,
  MODEL_CACHE_TTL_MS,
  type ModelCacheStore,
  parseCatalogCache,
  readCatalogCache,
  serializeCatalogCache,
} from "../../src/catalog/model-cache.ts";
import { CursorError } from "../../src/core/cursor-error.ts";

const HOUR = 60 * 60 * 1000;

function memoryStore(
  initial?: string,
): ModelCacheStore & { text: string | undefined; writes: number } {
  const store = {
    text: initial,
    writes: 0,
    read: () => Promise.resolve(store.text),
    write: (text: string) => {
      store.text = text;
      store.writes++;
      return Promise.resolve();
    },
  };
  return store;
}

const modelA: CatalogModel = {
  id: "a",
  displayName: "A",
  thinking: true,
  images: false,
  tools: true,
  contextTokenLimit: 200_000,
  variants: [{
    parameters: [{ id: "effort", value: "high" }],
    displayName: "A high",
    maxMode: false,
    defaultNonMax: true,
    defaultMax: false,
  }],
};
const modelB: CatalogModel = { ...modelA, id: "b", displayName: "B", variants: [] };

function cached(fetchedAt: number, models: CatalogModel[] = [modelA]): string {
  return serializeCatalogCache({ fetchedAt, models });
}

describe("model cache document", () => {
  it("round-trips through JSON", () => {
    const text = cached(123, [modelA, modelB]);
    assert.deepEqual(parseCatalogCache(text), { fetchedAt: 123, models: [modelA, modelB] });
    assert.equal(JSON.parse(text).schemaVersion, 1);
  });

  it("rejects anything malformed, including other versions", () => {
    const good = JSON.parse(cached(1));
    const bad = [
      "not json",
      "[]",
      JSON.stringify({ ...good, schemaVersion: 99 }),
      JSON.stringify({ ...good, fetchedAt: "yesterday" }),
      JSON.stringify({ ...good, models: [{ id: "x" }] }),
      JSON.stringify({ ...good, models: [{ ...modelA, variants: [{ parameters: [{ id: 1 }] }] }] }),
      JSON.stringify({ ...good, models: [{ ...modelA, contextTokenLimit: -5 }] }),
    ];
    for (const text of bad) assert.equal(parseCatalogCache(text), undefined, text);
  });

  it("classifies fresh, stale, missing, empty and corrupt documents", async () => {
    const now = 100 * HOUR;
    assert.equal((await readCatalogCache(memoryStore(cached(now - HOUR)), now)).kind, "fresh");
    assert.equal((await readCatalogCache(memoryStore(cached(now - 25 * HOUR)), now)).kind, "stale");
    assert.equal((await readCatalogCache(memoryStore(cached(now + HOUR)), now)).kind, "stale");
    assert.equal((await readCatalogCache(memoryStore(), now)).kind, "missing");
    assert.equal((await readCatalogCache(memoryStore(cached(now, [])), now)).kind, "missing");
    assert.equal((await readCatalogCache(memoryStore("{oops"), now)).kind, "corrupt");
    const throwing: ModelCacheStore = {
      read: () => Promise.reject(new Error("EACCES")),
      write: () => Promise.resolve(),
    };
    assert.equal((await readCatalogCache(throwing, now)).kind, "missing");
    assert.equal(MODEL_CACHE_TTL_MS, 24 * HOUR);
  });
});

describe("ensureCatalog", () => {
  const now = () => 50 * HOUR;

  it("serves a fresh cache without fetching", async () => {
    let fetched = 0;
    const result = await ensureCatalog({
      store: memoryStore(cached(now() - HOUR)),
      now,
      fetchModels: () => {
        fetched++;
        return Promise.resolve([]);
      },
    });
    assert.equal(result.source, "cache");
    assert.deepEqual(result.models, [modelA]);
    assert.equal(fetched, 0);
  });

  it("fetches and stores when the cache is empty", async () => {
    const store = memoryStore();
    const result = await ensureCatalog({
      store,
      now,
      fetchModels: () => Promise.resolve([modelB]),
    });
    assert.equal(result.source, "network");
    assert.deepEqual(parseCatalogCache(store.text ?? ""), { fetchedAt: now(), models: [modelB] });
  });

  it("replaces a corrupt cache instead of failing", async () => {
    const store = memoryStore("\u0000garbage");
    const result = await ensureCatalog({
      store,
      now,
      fetchModels: () => Promise.resolve([modelA]),
    });
    assert.equal(result.source, "network");
    assert.equal(parseCatalogCache(store.text ?? "")?.models.length, 1);
  });

  it("refreshes a stale cache, and serves it with the reason when the refresh fails", async () => {
    const staleAt = now() - 30 * HOUR;
    const refreshed = await ensureCatalog({
      store: memoryStore(cached(staleAt)),
      now,
      fetchModels: () => Promise.resolve([modelB]),
    });
    assert.equal(refreshed.source, "network");
    assert.deepEqual(refreshed.models, [modelB]);

    const failing = await ensureCatalog({
      store: memoryStore(cached(staleAt)),
      now,
      fetchModels: () => Promise.reject(new TypeError("fetch failed")),
    });
    assert.equal(failing.source, "stale-cache");
    assert.deepEqual(failing.models, [modelA]);
    assert.equal(failing.fetchedAt, staleAt);
    assert.ok(failing.error instanceof CursorError);
    assert.equal(failing.error?.code, "network");
  });

  it("serves a stale cache as it is without credentials to fetch with", async () => {
    const result = await ensureCatalog({ store: memoryStore(cached(0)), now });
    assert.equal(result.source, "stale-cache");
    assert.equal(result.error, undefined);
  });

  it("invents no models: nothing cached and no fetch means an empty list", async () => {
    const none = await ensureCatalog({ store: memoryStore(), now });
    assert.deepEqual(none, { models: [], source: "none" });
    const failed = await ensureCatalog({
      store: memoryStore("corrupt"),
      now,
      fetchModels: () => Promise.reject(new CursorError("unauthenticated", "nope")),
    });
    assert.equal(failed.source, "none");
    assert.deepEqual(failed.models, []);
    assert.equal(failed.error?.code, "unauthenticated");
  });

  it("does not store an empty answer, so the next start tries again", async () => {
    const store = memoryStore();
    const result = await ensureCatalog({ store, now, fetchModels: () => Promise.resolve([]) });
    assert.equal(result.source, "network");
    assert.equal(store.writes, 0);
  });

  it("keeps serving when the store cannot be written", async () => {
    const store: ModelCacheStore = {
      read: () => Promise.resolve(undefined),
      write: () => Promise.reject(new Error("read-only file system")),
    };
    const result = await ensureCatalog({
      store,
      now,
      fetchModels: () => Promise.resolve([modelA]),
    });
    assert.deepEqual(result.models, [modelA]);
  });

  it("fetches a fresh cache again when forced", async () => {
    const result = await ensureCatalog({
      store: memoryStore(cached(now())),
      now,
      force: true,
      fetchModels: () => Promise.resolve([modelB]),
    });
    assert.deepEqual(result.models, [modelB]);
  });
});
