/**
 * Conversation snapshots in a Cloudflare Durable Object namespace, for apps on Workers:
 * every conversation gets its own {@link CursorSnapshotObject}, named after the namespaced
 * key, and every operation is one `fetch` to that object's stub (web standards only). The
 * object compares versions and replaces values in one step, so two Worker invocations
 * finishing turns of one conversation at once never overwrite each other.
 *
 * @module
 */
import { CursorError } from "../../core/cursor-error.ts";
import type { SnapshotRead, SnapshotWrite, VersionedSnapshotStore } from "../../snapshot/store.ts";
import { SNAPSHOT_LIFETIME_MS } from "../../snapshot/persistence.ts";
import { DURABLE_OBJECT_SNAPSHOT_MAX_VALUE_BYTES } from "./snapshot-durable-object.ts";
import {
  BOUND_HEADER,
  CONDITION_HEADER,
  conditionHeader,
  isWireVersion,
  PROTOCOL_HEADER,
  PROTOCOL_REVISION,
  REASON_HEADER,
  RESULT_HEADER,
  SIZE_HEADER,
  type SnapshotOperation,
  TTL_HEADER,
  VERSION_HEADER,
} from "./snapshot-wire.ts";

/** The part of a Durable Object stub the store uses. */
export interface DurableObjectStubLike {
  /** Sends a request to the object's `fetch` handler. */
  fetch(request: Request): Promise<Response>;
}

/** The part of a Durable Object namespace binding (`env.CURSOR_SNAPSHOTS`) the store uses. */
export interface DurableObjectNamespaceLike<Id = unknown> {
  /** The id of the object with this name (the same name, the same object, everywhere). */
  idFromName(name: string): Id;
  /** A stub of the object with this id. */
  get(id: Id): DurableObjectStubLike;
}

/** Options for {@link createDurableObjectSnapshotStore}. */
export interface DurableObjectSnapshotStoreOptions {
  /** Prefix of every object's name; default `cursor-snapshot:`. */
  readonly prefix?: string | undefined;
  /** How long a value lives after its last write; default 24 h, at most a year. */
  readonly ttlMs?: number | undefined;
  /**
   * Largest snapshot written; default 16 MiB. The object enforces its own bound too
   * (16 MiB, `maxValueBytes` of a subclass of {@link CursorSnapshotObject}).
   */
  readonly maxValueBytes?: number | undefined;
}

/** Longest lifetime: a year (the object refuses longer ones too). */
const MAX_TTL_MS = 366 * 24 * 60 * 60 * 1000;
/** The stub's URL: the object routes by path only. */
const ORIGIN = "https://cursor-snapshot.invalid";

/**
 * Creates a snapshot store over a Durable Object namespace bound to
 * {@link CursorSnapshotObject}.
 *
 * @param namespace The binding (`env.CURSOR_SNAPSHOTS` in a Worker).
 * @param options The name prefix, the lifetime and the size bound.
 * @returns The store (versioned: safe to share between Worker invocations and isolates).
 * @throws {CursorError} `config` for an invalid option.
 *
 * @example One object per conversation; here two in memory stand in for the binding
 * ```ts
 * import {
 *   createDurableObjectSnapshotStore,
 *   type DurableObjectNamespaceLike,
 * } from "./snapshot-durable-object-store.ts";
 * import {
 *   CursorSnapshotObject,
 *   type DurableObjectStateLike,
 * } from "./snapshot-durable-object.ts";
 *
 * const objects = new Map<string, CursorSnapshotObject>();
 * const state = (): DurableObjectStateLike => {
 *   const data = new Map<string, unknown>();
 *   return {
 *     blockConcurrencyWhile: (callback) => callback(),
 *     storage: {
 *       get: ((keys: string | string[]) =>
 *         Promise.resolve(
 *           Array.isArray(keys) ? new Map(keys.map((k) => [k, data.get(k)])) : data.get(keys),
 *         )) as DurableObjectStateLike["storage"]["get"],
 *       put: async (entries) => void Object.entries(entries).forEach(([k, v]) => data.set(k, v)),
 *       delete: async (keys) => keys.filter((k) => data.delete(k)).length,
 *       deleteAll: async () => data.clear(),
 *       setAlarm: async () => {},
 *       deleteAlarm: async () => {},
 *     },
 *   };
 * };
 * const namespace: DurableObjectNamespaceLike<string> = {
 *   idFromName: (name) => name,
 *   get: (id) => {
 *     const object = objects.get(id) ?? new CursorSnapshotObject(state());
 *     objects.set(id, object);
 *     return object;
 *   },
 * };
 * const store = createDurableObjectSnapshotStore(namespace);
 * const first = await store.write("ses_1", new Uint8Array([1, 2]), { ifVersion: null });
 * const late = await store.write("ses_1", new Uint8Array([3]), { ifVersion: null });
 * console.assert(first.status === "written" && late.status === "conflict");
 * const read = await store.read("ses_1");
 * console.assert(read.status === "found" && read.bytes.length === 2);
 * console.assert(objects.has("cursor-snapshot:ses_1"));
 * ```
 */
export function createDurableObjectSnapshotStore<Id>(
  namespace: DurableObjectNamespaceLike<Id>,
  options: DurableObjectSnapshotStoreOptions = {},
): VersionedSnapshotStore {
  const prefix = options.prefix ?? "cursor-snapshot:";
  const ttlMs = options.ttlMs ?? SNAPSHOT_LIFETIME_MS;
  const maxValueBytes = options.maxValueBytes ?? DURABLE_OBJECT_SNAPSHOT_MAX_VALUE_BYTES;
  checkOptions(prefix, ttlMs, maxValueBytes);
  const call = (key: string, operation: SnapshotOperation, init: RequestInit = {}) =>
    send(namespace.get(namespace.idFromName(`${prefix}${key}`)), operation, init);
  return {
    async read(key): Promise<SnapshotRead> {
      const response = await call(key, "read");
      const result = expect(response, "read", ["found", "missing", "refused"]);
      if (result === "missing") return { status: "missing" };
      if (result === "refused") {
        return { status: "refused", reason: response.headers.get(REASON_HEADER) ?? "unusable" };
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (String(bytes.length) !== response.headers.get(SIZE_HEADER)) {
        return { status: "refused", reason: "truncated-answer" };
      }
      return { status: "found", bytes, version: versionOf(response, "read") };
    },
    async write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      if (bytes.length > maxValueBytes) {
        throw new CursorError(
          "invalid_argument",
          `A snapshot of ${bytes.length} bytes exceeds the store's bound of ${maxValueBytes} bytes`,
        );
      }
      const response = await call(key, "write", {
        method: "PUT",
        headers: {
          [CONDITION_HEADER]: conditionHeader(writeOptions?.ifVersion),
          [TTL_HEADER]: String(ttlMs),
        },
        body: bytes.slice(),
      });
      const result = expect(response, "write", ["written", "conflict", "too-large"]);
      if (result === "conflict") return { status: "conflict" };
      if (result === "too-large") {
        const bound = response.headers.get(BOUND_HEADER) ?? "?";
        throw new CursorError(
          "invalid_argument",
          `A snapshot of ${bytes.length} bytes exceeds the snapshot Durable Object's bound of ${bound} bytes: lower the store's maxValueBytes to at most ${bound}, or raise maxValueBytes in a subclass of CursorSnapshotObject`,
        );
      }
      return { status: "written", version: versionOf(response, "write") };
    },
    async remove(key) {
      expect(await call(key, "remove", { method: "DELETE" }), "remove", ["removed"]);
    },
    async version(key) {
      const response = await call(key, "version");
      const result = expect(response, "version", ["found", "missing"]);
      return result === "found" ? versionOf(response, "version") : undefined;
    },
  };
}

/**
 * One request to the object: the answer when it speaks the protocol and did what was
 * asked (or said why not), a {@link CursorError} otherwise.
 */
async function send(
  stub: DurableObjectStubLike,
  operation: SnapshotOperation,
  init: RequestInit,
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(PROTOCOL_HEADER, PROTOCOL_REVISION);
  let response: Response;
  try {
    response = await stub.fetch(new Request(`${ORIGIN}/${operation}`, { ...init, headers }));
  } catch (error) {
    throw new CursorError(
      "unavailable",
      `The snapshot Durable Object could not be reached (${operation}): ${messageOf(error)}`,
      { cause: error },
    );
  }
  if (response.headers.get(PROTOCOL_HEADER) !== PROTOCOL_REVISION) {
    await response.body?.cancel();
    throw new CursorError(
      "config",
      `The Durable Object namespace given to the snapshot store answered without the snapshot protocol (HTTP ${response.status}): bind it to the class CursorSnapshotObject of the ./stores/cloudflare entry`,
    );
  }
  if (response.headers.get(RESULT_HEADER) === "error") {
    const reason = response.headers.get(REASON_HEADER) ?? "unknown";
    throw new CursorError(
      response.status >= 500 ? "unavailable" : "internal",
      `The snapshot Durable Object failed the ${operation} (HTTP ${response.status}): "${reason}"`,
    );
  }
  return response;
}

/** The answer's result when it is one the operation may have; a `protocol` error otherwise. */
function expect(response: Response, operation: SnapshotOperation, allowed: string[]): string {
  const result = response.headers.get(RESULT_HEADER) ?? "none";
  if (allowed.includes(result)) return result;
  throw new CursorError(
    "protocol",
    `The snapshot Durable Object answered "${result}" to a ${operation}: expected ${
      allowed.join(", ")
    }`,
  );
}

/** The version an answer names; a `protocol` error when it names none. */
function versionOf(response: Response, operation: SnapshotOperation): string {
  const version = response.headers.get(VERSION_HEADER);
  if (version === null || !isWireVersion(version)) {
    throw new CursorError(
      "protocol",
      `The snapshot Durable Object answered a ${operation} without a valid version`,
    );
  }
  return version;
}

function checkOptions(prefix: string, ttlMs: number, maxValueBytes: number): void {
  if (typeof prefix !== "string") {
    throw new CursorError("config", `The snapshot store's prefix must be text, not ${prefix}`);
  }
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_TTL_MS) {
    throw new CursorError(
      "config",
      `The snapshot store's ttlMs must be a whole number of milliseconds from 1 to ${MAX_TTL_MS}, not "${ttlMs}"`,
    );
  }
  if (!Number.isSafeInteger(maxValueBytes) || maxValueBytes < 1) {
    throw new CursorError(
      "config",
      `The snapshot store's maxValueBytes must be a whole number of bytes above 0, not "${maxValueBytes}"`,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
