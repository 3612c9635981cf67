/**
 * A Worker (bundled for workerd) that runs the Durable Object snapshot store inside the
 * runtime: each request names a Durable Object binding and one store operation, the
 * Worker makes the store with `createDurableObjectSnapshotStore` and runs it, and answers
 * the outcome. Tests in the host process drive it through `store-harness.ts`; the client,
 * the stub, the object and its storage are all workerd's own.
 *
 * Besides the product's class it exports test subclasses: one with a clock the test moves
 * and a view of its storage, one with a small bound, and a class that does not speak the
 * snapshot protocol (a wrong binding).
 */
import {
  createDurableObjectSnapshotStore,
  CursorSnapshotObject,
  type DurableObjectNamespaceLike,
  type DurableObjectStateLike,
  type DurableObjectStorageLike,
} from "../../../stores/cloudflare.ts";
import type { SnapshotWriteOptions } from "../../../src/snapshot/store.ts";

export { CursorSnapshotObject };

/** What the harness asks of one store operation (the `x-harness-call` header, JSON). */
export interface HarnessCall {
  readonly key: string;
  readonly options?: { prefix?: string; ttlMs?: number; maxValueBytes?: number };
  /** Present: the write's `ifVersion` (`null` for none). */
  readonly ifVersion?: string | null;
}

/** The storage of a test object, with the listing the product does not need. */
interface InspectableStorage extends DurableObjectStorageLike {
  list(): Promise<Map<string, unknown>>;
  getAlarm(): Promise<number | null>;
  put(entries: Record<string, unknown>): Promise<void>;
}

/**
 * The product's object with a clock `/test/clock` moves, `/test/storage` listing what it
 * stores (keys, alarm) and `/test/put` writing raw entries (corrupt values).
 */
export class ClockedSnapshotObject extends CursorSnapshotObject {
  #skewMs = 0;
  readonly #storage: InspectableStorage;

  constructor(state: DurableObjectStateLike & { storage: InspectableStorage }, env: unknown) {
    super(state, env);
    this.#storage = state.storage;
  }

  protected override now(): number {
    return Date.now() + this.#skewMs;
  }

  override async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/test/clock") {
      this.#skewMs = Number(await request.text());
      return Response.json({ skewMs: this.#skewMs });
    }
    if (path === "/test/storage") {
      const keys = [...(await this.#storage.list()).keys()].sort();
      return Response.json({ keys, alarm: await this.#storage.getAlarm(), now: this.now() });
    }
    if (path === "/test/put") {
      const entries = await request.json() as Record<string, unknown>;
      const values: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(entries)) {
        const bytes = (value as { bytes?: number } | null)?.bytes;
        values[key] = typeof bytes === "number" ? new Uint8Array(bytes) : value;
      }
      await this.#storage.put(values);
      return Response.json({ put: Object.keys(values) });
    }
    return await super.fetch(request);
  }
}

/** The product's object, bound as a KV-backed class (a class has one backend). */
export class KvBackedSnapshotObject extends CursorSnapshotObject {}

/** The product's object bounded to 1 KiB per value. */
export class SmallSnapshotObject extends CursorSnapshotObject {
  protected override readonly maxValueBytes = 1024;
}

/** A Durable Object of some other kind, bound by mistake. */
export class GreetingObject {
  fetch(): Response {
    return new Response("hello");
  }
}

type Env = Record<string, DurableObjectNamespaceLike>;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const [, binding = "", operation = ""] = new URL(request.url).pathname.split("/");
    const namespace = env[binding];
    if (namespace === undefined) return new Response(`no binding ${binding}`, { status: 404 });
    const call = JSON.parse(request.headers.get("x-harness-call") ?? "{}") as HarnessCall;
    try {
      if (operation === "object") return await objectRequest(namespace, call.key, request);
      return await storeOperation(namespace, operation, call, request);
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      return Response.json({ error: { code: code ?? "none", message: message ?? String(error) } });
    }
  },
};

/** One operation of the product's store, made in this request from the binding. */
async function storeOperation(
  namespace: DurableObjectNamespaceLike,
  operation: string,
  call: HarnessCall,
  request: Request,
): Promise<Response> {
  const store = createDurableObjectSnapshotStore(namespace, call.options ?? {});
  switch (operation) {
    case "read": {
      const read = await store.read(call.key);
      if (read.status !== "found") return Response.json(read);
      return new Response(new Uint8Array(read.bytes), {
        headers: { "x-harness-read": JSON.stringify({ status: "found", version: read.version }) },
      });
    }
    case "write": {
      const options: SnapshotWriteOptions = "ifVersion" in call
        ? { ifVersion: call.ifVersion }
        : {};
      const bytes = new Uint8Array(await request.arrayBuffer());
      return Response.json(await store.write(call.key, bytes, options));
    }
    case "version":
      return Response.json({ version: await store.version(call.key) ?? null });
    case "remove":
      await store.remove(call.key);
      return Response.json({ removed: true });
    default:
      return new Response(`unknown operation ${operation}`, { status: 404 });
  }
}

/** Forwards a test-only request to the object with this name (`x-harness-path`). */
async function objectRequest(
  namespace: DurableObjectNamespaceLike,
  name: string,
  request: Request,
): Promise<Response> {
  const stub = namespace.get(namespace.idFromName(name));
  const path = request.headers.get("x-harness-path") ?? "/";
  return await stub.fetch(
    new Request(`https://object.test${path}`, { method: "POST", body: await request.text() }),
  );
}
