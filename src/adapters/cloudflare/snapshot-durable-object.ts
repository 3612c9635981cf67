/**
 * The Durable Object that holds conversation snapshots for Workers: one object per
 * conversation (the client names it after the namespaced key), its storage a head entry
 * (version, size, expiry) and the bytes in 120 KiB chunks under a fresh generation id, so
 * values of any size fit both storage backends (128 KiB values on KV-backed objects). Every
 * operation runs under `blockConcurrencyWhile`: checking the version and replacing the
 * value are one step no other request interleaves with, and the writes of one step are
 * committed together. A write schedules the object's alarm at its expiry (24 h by
 * default); the alarm deletes the object's storage, and a read past the expiry finds
 * nothing even when the alarm is late. Typed structurally: no Cloudflare types needed.
 *
 * @module
 */
import { versionMatches } from "../../snapshot/store.ts";
import {
  BOUND_HEADER,
  CONDITION_HEADER,
  isWireVersion,
  parseCondition,
  PROTOCOL_HEADER,
  PROTOCOL_REVISION,
  REASON_HEADER,
  RESULT_HEADER,
  SIZE_HEADER,
  TTL_HEADER,
  VERSION_HEADER,
} from "./snapshot-wire.ts";

/** The part of a Durable Object's `ctx.storage` the snapshot object uses. */
export interface DurableObjectStorageLike {
  /** Reads one key (`undefined` when absent). */
  get(key: string): Promise<unknown>;
  /** Reads up to 128 keys at once. */
  get(keys: string[]): Promise<Map<string, unknown>>;
  /** Writes up to 128 entries at once. */
  put(entries: Record<string, unknown>): Promise<void>;
  /** Deletes up to 128 keys at once. */
  delete(keys: string[]): Promise<number>;
  /** Deletes everything the object stores. */
  deleteAll(): Promise<void>;
  /** Schedules the object's `alarm()` (replacing any earlier one). */
  setAlarm(scheduledTimeMs: number): Promise<void>;
  /** Cancels the object's alarm. */
  deleteAlarm(): Promise<void>;
}

/** The part of a Durable Object's `ctx` (`DurableObjectState`) the snapshot object uses. */
export interface DurableObjectStateLike {
  /** The object's own transactional storage. */
  readonly storage: DurableObjectStorageLike;
  /** Runs `callback` with no other event delivered to the object until it settles. */
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

/** Default bound of one snapshot: 16 MiB (the other stores' bound). */
export const DURABLE_OBJECT_SNAPSHOT_MAX_VALUE_BYTES = 16 * 1024 * 1024;
/** Bytes per chunk: under the 128 KiB value limit of KV-backed objects. */
const CHUNK_BYTES = 120 * 1024;
/** Keys per storage call (the storage API's limit). */
const KEYS_PER_CALL = 128;
/** Longest lifetime a write may ask for: a year. */
const MAX_TTL_MS = 366 * 24 * 60 * 60 * 1000;
const HEAD_KEY = "head";
/** The head's layout revision; a head of another is refused, never guessed at. */
const HEAD_FORMAT = 1;

/** What the head entry holds. */
interface Head {
  readonly format: typeof HEAD_FORMAT;
  readonly version: string;
  readonly size: number;
  readonly chunks: number;
  readonly generation: string;
  readonly expiresAtMs: number;
}

/** What the object's storage holds, judged against the clock. */
type Stored =
  | { readonly status: "absent" }
  | { readonly status: "unusable"; readonly reason: string }
  | { readonly status: "expired" | "live"; readonly head: Head };

/**
 * The Durable Object class that stores conversation snapshots. Export it from the
 * Worker's main module and bind it in the wrangler configuration; the app reaches it
 * through {@link createDurableObjectSnapshotStore}, never directly.
 *
 * A subclass may override {@link CursorSnapshotObject.now} (a clock) or
 * {@link CursorSnapshotObject.maxValueBytes} (the bound it enforces).
 *
 * @example A Worker's main module
 * ```ts ignore
 * export { CursorSnapshotObject } from "ai-sdk-provider-cursor/stores/cloudflare";
 * ```
 */
export class CursorSnapshotObject {
  /** Largest value the object accepts; a larger write is answered `too-large`. */
  protected readonly maxValueBytes: number = DURABLE_OBJECT_SNAPSHOT_MAX_VALUE_BYTES;
  readonly #state: DurableObjectStateLike;

  /**
   * Called by the runtime with the object's state.
   *
   * @param state The object's `ctx`.
   * @param _env The Worker's bindings (unused).
   */
  constructor(state: DurableObjectStateLike, _env?: unknown) {
    this.#state = state;
  }

  /**
   * Answers one store operation (see `snapshot-wire.ts`).
   *
   * @param request A request made by {@link createDurableObjectSnapshotStore}.
   * @returns The answer; a malformed request is answered `error` (400), never thrown.
   */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get(PROTOCOL_HEADER) !== PROTOCOL_REVISION) {
      const revision = request.headers.get(PROTOCOL_HEADER) ?? "none";
      return answer("error", {
        status: 400,
        reason: headerText(`unsupported-protocol-${revision}`),
      });
    }
    const operation = new URL(request.url).pathname.slice(1);
    try {
      switch (operation) {
        case "read":
          return await this.#exclusive(() => this.#read());
        case "version":
          return await this.#exclusive(() => this.#version());
        case "write":
          return await this.#write(request);
        case "remove":
          return await this.#exclusive(() => this.#remove());
        default:
          return answer("error", { status: 400, reason: "unknown-operation" });
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return answer("error", { status: 500, reason: headerText(reason) });
    }
  }

  /** Runs at the expiry the last write scheduled: deletes an expired or unusable value. */
  async alarm(): Promise<void> {
    await this.#exclusive(async () => {
      const stored = await this.#stored();
      const storage = this.#state.storage;
      if (stored.status === "live") await storage.setAlarm(stored.head.expiresAtMs);
      else await storage.deleteAll();
    });
  }

  /**
   * The clock expiry is judged by (ms since the epoch).
   *
   * @returns The current time.
   */
  protected now(): number {
    return Date.now();
  }

  /** Runs one operation with no other event delivered to the object meanwhile. */
  #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.#state.blockConcurrencyWhile(operation);
  }

  async #stored(): Promise<Stored> {
    const raw = await this.#state.storage.get(HEAD_KEY);
    if (raw === undefined) return { status: "absent" };
    const head = asHead(raw, this.maxValueBytes);
    if (typeof head === "string") return { status: "unusable", reason: head };
    return { status: head.expiresAtMs <= this.now() ? "expired" : "live", head };
  }

  async #read(): Promise<Response> {
    const stored = await this.#stored();
    if (stored.status === "unusable") return answer("refused", { reason: stored.reason });
    if (stored.status !== "live") {
      if (stored.status === "expired") await this.#remove();
      return answer("missing");
    }
    const { head } = stored;
    const bytes = new Uint8Array(head.size);
    let offset = 0;
    for (const batch of batches(chunkKeys(head))) {
      const values = await this.#state.storage.get(batch);
      for (const key of batch) {
        const chunk = values.get(key);
        if (!(chunk instanceof Uint8Array)) return answer("refused", { reason: "missing-chunk" });
        if (offset + chunk.length > head.size) {
          return answer("refused", { reason: "size-mismatch" });
        }
        bytes.set(chunk, offset);
        offset += chunk.length;
      }
    }
    if (offset !== head.size) return answer("refused", { reason: "size-mismatch" });
    return answer("found", {
      headers: { [VERSION_HEADER]: head.version, [SIZE_HEADER]: String(head.size) },
      body: bytes,
    });
  }

  async #version(): Promise<Response> {
    const stored = await this.#stored();
    if (stored.status !== "live") return answer("missing");
    return answer("found", { headers: { [VERSION_HEADER]: stored.head.version } });
  }

  async #remove(): Promise<Response> {
    await this.#state.storage.deleteAll();
    await this.#state.storage.deleteAlarm();
    return answer("removed");
  }

  async #write(request: Request): Promise<Response> {
    const condition = parseCondition(request.headers.get(CONDITION_HEADER));
    if (!condition.ok) return answer("error", { status: 400, reason: "malformed-condition" });
    const ttlMs = Number(request.headers.get(TTL_HEADER));
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > MAX_TTL_MS) {
      return answer("error", { status: 400, reason: "malformed-ttl" });
    }
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > this.maxValueBytes) return this.#tooLarge();
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.length > this.maxValueBytes) return this.#tooLarge();
    return await this.#exclusive(async () => {
      const stored = await this.#stored();
      const current = stored.status === "live" ? stored.head.version : undefined;
      if (!versionMatches(current, condition.ifVersion)) return answer("conflict");
      // An unusable head names no chunks it can be trusted with: start from nothing.
      if (stored.status === "unusable") await this.#state.storage.deleteAll();
      const replaced = stored.status === "live" || stored.status === "expired"
        ? chunkKeys(stored.head)
        : [];
      const head = await this.#replace(bytes, replaced, this.now() + ttlMs);
      return answer("written", { headers: { [VERSION_HEADER]: head.version } });
    });
  }

  /**
   * Stores the chunks and the head that names them and deletes the replaced chunks, all
   * issued without awaiting in between: the storage commits them as one write.
   */
  async #replace(bytes: Uint8Array, replaced: string[], expiresAtMs: number): Promise<Head> {
    const head: Head = {
      format: HEAD_FORMAT,
      version: crypto.randomUUID(),
      size: bytes.length,
      chunks: Math.ceil(bytes.length / CHUNK_BYTES),
      generation: crypto.randomUUID(),
      expiresAtMs,
    };
    const storage = this.#state.storage;
    const pending: Promise<unknown>[] = [];
    for (const batch of batches(chunkKeys(head).map((key, index) => ({ key, index })))) {
      const entries: Record<string, Uint8Array> = {};
      for (const { key, index } of batch) {
        entries[key] = bytes.slice(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES);
      }
      pending.push(storage.put(entries));
    }
    pending.push(storage.put({ [HEAD_KEY]: head }));
    for (const batch of batches(replaced)) pending.push(storage.delete(batch));
    pending.push(storage.setAlarm(expiresAtMs));
    await Promise.all(pending);
    return head;
  }

  #tooLarge(): Response {
    return answer("too-large", {
      status: 413,
      headers: { [BOUND_HEADER]: String(this.maxValueBytes) },
    });
  }
}

/** The head, or why the stored entry is not one this object can use. */
function asHead(value: unknown, maxValueBytes: number): Head | string {
  if (typeof value !== "object" || value === null) return "unreadable-head";
  const { format, version, size, chunks, generation, expiresAtMs } = value as Record<
    string,
    unknown
  >;
  if (format !== HEAD_FORMAT) {
    return typeof format === "number" ? `unknown-format-${format}` : "unreadable-head";
  }
  if (
    typeof version !== "string" || !isWireVersion(version) || typeof generation !== "string" ||
    !isWireVersion(generation) || !Number.isSafeInteger(size) || !Number.isSafeInteger(chunks) ||
    typeof expiresAtMs !== "number" || !Number.isFinite(expiresAtMs)
  ) {
    return "unreadable-head";
  }
  const length = size as number;
  if (length < 0 || length > maxValueBytes) return "size-above-bound";
  if (chunks !== Math.ceil(length / CHUNK_BYTES)) return "size-mismatch";
  return { format, version, size: length, chunks, generation, expiresAtMs };
}

function chunkKeys(head: Head): string[] {
  return Array.from({ length: head.chunks }, (_, index) => `chunk:${head.generation}:${index}`);
}

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += KEYS_PER_CALL) {
    out.push(items.slice(start, start + KEYS_PER_CALL));
  }
  return out;
}

/** Text fit for a header: printable ASCII, at most 200 characters. */
function headerText(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
}

/** An answer of the protocol. */
function answer(
  result: string,
  init: {
    readonly status?: number;
    readonly reason?: string;
    readonly headers?: Record<string, string>;
    readonly body?: Uint8Array<ArrayBuffer>;
  } = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set(PROTOCOL_HEADER, PROTOCOL_REVISION);
  headers.set(RESULT_HEADER, result);
  if (init.reason !== undefined) headers.set(REASON_HEADER, init.reason);
  return new Response(init.body ?? null, { status: init.status ?? 200, headers });
}
