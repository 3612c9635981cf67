/**
 * The host side of `store-harness.worker.ts`: a `VersionedSnapshotStore` whose every
 * operation runs inside workerd (the product's client in a Worker, the object in its
 * Durable Object), so the store contract and the tests drive the real thing. Errors the
 * store raised in the Worker come back as errors with the same code and message.
 */
import type {
  SnapshotRead,
  SnapshotWrite,
  VersionedSnapshotStore,
} from "../../../src/snapshot/store.ts";
import { bundleWorker, COMPATIBILITY_DATE, startWorkerd, type Workerd } from "./miniflare.ts";
import type { HarnessCall } from "./store-harness.worker.ts";

const HARNESS = "test/support/workerd/store-harness.worker.ts";

/** The bindings both harness Workers have, and the class each is bound to. */
const BINDINGS = {
  SNAPSHOTS: { className: "CursorSnapshotObject", useSQLite: true },
  SNAPSHOTS_KV: { className: "KvBackedSnapshotObject", useSQLite: false },
  CLOCKED: { className: "ClockedSnapshotObject", useSQLite: true },
  SMALL: { className: "SmallSnapshotObject", useSQLite: true },
  WRONG: { className: "GreetingObject", useSQLite: true },
} as const;

/** A binding of the harness Workers. */
export type HarnessBinding = keyof typeof BINDINGS;

/** Store options, as `createDurableObjectSnapshotStore` takes them. */
export type HarnessStoreOptions = NonNullable<HarnessCall["options"]>;

/** workerd running two Workers (`store` defines the classes, `peer` binds them too). */
export interface StoreHarness {
  /** A store made in the given Worker from the given binding. */
  store(
    worker: "store" | "peer",
    binding: HarnessBinding,
    options?: HarnessStoreOptions,
  ): VersionedSnapshotStore;
  /** Sends a test-only request (`/test/…`) to the named object of a binding. */
  object(binding: HarnessBinding, name: string, path: string, body?: string): Promise<unknown>;
  close(): Promise<void>;
}

/** Bundles the harness Worker and starts workerd with it twice (two isolates). */
export async function startStoreHarness(): Promise<StoreHarness> {
  const script = await bundleWorker(HARNESS);
  const bindingsIn = (scriptName?: string) =>
    Object.fromEntries(
      Object.entries(BINDINGS).map((
        [name, binding],
      ) => [name, scriptName ? { ...binding, scriptName } : binding]),
    );
  const workerd = await startWorkerd({
    workers: [
      {
        name: "store",
        modules: true,
        script,
        compatibilityDate: COMPATIBILITY_DATE,
        durableObjects: bindingsIn(),
      },
      {
        name: "peer",
        modules: true,
        script,
        compatibilityDate: COMPATIBILITY_DATE,
        durableObjects: bindingsIn("store"),
      },
    ],
  });
  return {
    store: (worker, binding, options) => harnessStore(workerd, worker, binding, options),
    async object(binding, name, path, body = "") {
      const response = await workerd.fetch("store", `/${binding}/object`, {
        method: "POST",
        headers: { "x-harness-call": JSON.stringify({ key: name }), "x-harness-path": path },
        body,
      });
      return await response.json();
    },
    close: () => workerd.close(),
  };
}

function harnessStore(
  workerd: Workerd,
  worker: string,
  binding: HarnessBinding,
  options: HarnessStoreOptions = {},
): VersionedSnapshotStore {
  const call = async (operation: string, harnessCall: HarnessCall, body?: Uint8Array) => {
    const response = await workerd.fetch(worker, `/${binding}/${operation}`, {
      method: "POST",
      headers: { "x-harness-call": JSON.stringify({ ...harnessCall, options }) },
      ...(body === undefined ? {} : { body: body.slice() }),
    });
    if (!response.ok) throw new Error(`harness ${operation}: HTTP ${response.status}`);
    return response;
  };
  const json = async <T>(response: Response): Promise<T> => {
    const value = await response.json() as T | { error: { code: string; message: string } };
    if (typeof value === "object" && value !== null && "error" in value) {
      throw Object.assign(new Error(value.error.message), { code: value.error.code });
    }
    return value as T;
  };
  return {
    async read(key): Promise<SnapshotRead> {
      const response = await call("read", { key });
      const found = response.headers.get("x-harness-read");
      if (found === null) return await json<SnapshotRead>(response);
      const { version } = JSON.parse(found) as { version: string };
      return { status: "found", bytes: new Uint8Array(await response.arrayBuffer()), version };
    },
    async write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      const condition = writeOptions?.ifVersion === undefined
        ? {}
        : { ifVersion: writeOptions.ifVersion };
      return await json<SnapshotWrite>(await call("write", { key, ...condition }, bytes));
    },
    async remove(key) {
      await json(await call("remove", { key }));
    },
    async version(key) {
      const { version } = await json<{ version: string | null }>(await call("version", { key }));
      return version ?? undefined;
    },
  };
}
