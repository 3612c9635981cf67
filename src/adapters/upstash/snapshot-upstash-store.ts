/**
 * Conversation snapshots in Upstash Redis over its REST API (`fetch` only: edge runtimes,
 * serverless functions). Each command is one POST of a JSON array to the database's REST
 * URL, answered `{ "result": … }` or `{ "error": "…" }`. A conditional write is the same
 * Lua compare-and-set script the Redis store runs (`EVAL`), so checking the version and
 * replacing the value are one atomic step on the server. JSON carries text, not bytes: the
 * snapshot is stored as base64 text, which is why the default prefix differs from the
 * Redis store's (the two layouts must not share keys).
 *
 * @module
 */
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { CursorError } from "../../core/cursor-error.ts";
import type { SnapshotRead, SnapshotWrite, VersionedSnapshotStore } from "../../snapshot/store.ts";
import { SNAPSHOT_LIFETIME_MS } from "../../snapshot/persistence.ts";
import { COMPARE_AND_SET_SCRIPT, compareAndSetCondition } from "../redis-script/compare-and-set.ts";

/** Options for {@link createUpstashSnapshotStore}. */
export interface UpstashSnapshotStoreOptions {
  /** The database's REST URL (`UPSTASH_REDIS_REST_URL`). */
  readonly url: string;
  /** The database's REST token (`UPSTASH_REDIS_REST_TOKEN`, the standard one: it writes). */
  readonly token: string;
  /** Prefix of every key; default `cursor-snapshot-b64:`. */
  readonly prefix?: string | undefined;
  /** How long a value lives after its last write; default 24 h. */
  readonly ttlMs?: number | undefined;
  /**
   * Largest snapshot written; default 16 MiB. Upstash's Free and Pay-as-you-go databases
   * take requests up to 1 MB, which holds a snapshot of about 750 KB as base64.
   */
  readonly maxValueBytes?: number | undefined;
  /** The `fetch` to use (a proxy, a test double); default the global one. */
  readonly fetch?: UpstashFetch | undefined;
}

/** The part of `fetch` the store uses: one POST to the REST URL. */
export type UpstashFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Default bound of one snapshot: 16 MiB (the other stores' bound). */
export const UPSTASH_SNAPSHOT_MAX_VALUE_BYTES = 16 * 1024 * 1024;
/** Standard base64, padded: what the store writes and accepts back. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Creates a snapshot store over Upstash Redis's REST API.
 *
 * @param options The REST URL and token, the key prefix, the lifetime and the size bound.
 * @returns The store (versioned: safe to share between instances).
 * @throws {CursorError} `config` for a URL that is not http(s) or an empty token.
 *
 * @example An app's store
 * ```ts ignore
 * import { createCursor } from "@ai-sdk-cursor/provider";
 * import { createUpstashSnapshotStore } from "@ai-sdk-cursor/provider/stores/upstash";
 *
 * const cursor = createCursor({
 *   conversationSnapshots: createUpstashSnapshotStore({
 *     url: process.env.UPSTASH_REDIS_REST_URL ?? "",
 *     token: process.env.UPSTASH_REDIS_REST_TOKEN ?? "",
 *   }),
 * });
 * ```
 *
 * @example The commands it sends, seen through its `fetch` option
 * ```ts
 * import { createUpstashSnapshotStore } from "./snapshot-upstash-store.ts";
 *
 * const sent: string[][] = [];
 * const store = createUpstashSnapshotStore({
 *   url: "https://example.upstash.io",
 *   token: "token",
 *   fetch: (_url, init) => {
 *     const command = JSON.parse(String(init.body)) as string[];
 *     sent.push(command);
 *     return Promise.resolve(Response.json({ result: command[0] === "HMGET" ? [null, null] : 0 }));
 *   },
 * });
 * console.assert((await store.read("ses_1")).status === "missing");
 * console.assert(sent[0]?.join(" ") === "HMGET cursor-snapshot-b64:ses_1 v d");
 * ```
 */
export function createUpstashSnapshotStore(
  options: UpstashSnapshotStoreOptions,
): VersionedSnapshotStore {
  const url = restUrl(options.url);
  if (typeof options.token !== "string" || options.token === "") {
    throw new CursorError(
      "config",
      "The Upstash snapshot store needs the database's REST token (UPSTASH_REDIS_REST_TOKEN)",
    );
  }
  const prefix = options.prefix ?? "cursor-snapshot-b64:";
  const ttlMs = options.ttlMs ?? SNAPSHOT_LIFETIME_MS;
  const maxValueBytes = options.maxValueBytes ?? UPSTASH_SNAPSHOT_MAX_VALUE_BYTES;
  const send = (command: readonly string[]) =>
    upstashCommand(
      options.fetch ?? ((target, init) => fetch(target, init)),
      url,
      options.token,
      command,
    );
  const keyOf = (key: string) => `${prefix}${key}`;
  return {
    async read(key): Promise<SnapshotRead> {
      const reply = await send(["HMGET", keyOf(key), "v", "d"]);
      const [version, data] = Array.isArray(reply) ? reply : [];
      if (typeof data !== "string") return { status: "missing" };
      if (typeof version !== "string") return { status: "refused", reason: "no-version" };
      if (!BASE64.test(data)) return { status: "refused", reason: "not-base64" };
      return { status: "found", bytes: base64Decode(data), version };
    },
    async write(key, bytes, writeOptions): Promise<SnapshotWrite> {
      if (bytes.length > maxValueBytes) {
        throw new CursorError(
          "invalid_argument",
          `A snapshot of ${bytes.length} bytes exceeds the store's bound of ${maxValueBytes} bytes`,
        );
      }
      const version = crypto.randomUUID();
      const written = await send([
        "EVAL",
        COMPARE_AND_SET_SCRIPT,
        "1",
        keyOf(key),
        compareAndSetCondition(writeOptions?.ifVersion),
        version,
        base64Encode(bytes, "std"),
        String(ttlMs),
      ]);
      return written === 1 ? { status: "written", version } : { status: "conflict" };
    },
    async remove(key) {
      await send(["DEL", keyOf(key)]);
    },
    async version(key) {
      const reply = await send(["HGET", keyOf(key), "v"]);
      return typeof reply === "string" ? reply : undefined;
    },
  };
}

/** Sends one command; resolves to its `result`, throws a {@link CursorError} otherwise. */
async function upstashCommand(
  fetcher: UpstashFetch,
  url: string,
  token: string,
  command: readonly string[],
): Promise<unknown> {
  const name = command[0] ?? "";
  let response: Response;
  try {
    response = await fetcher(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(command),
    });
  } catch (error) {
    throw new CursorError(
      "network",
      `Upstash could not be reached (${name}): ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  const text = await response.text();
  let body: { result?: unknown; error?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // Not JSON: judged by the status below.
  }
  if (response.status === 401) {
    throw new CursorError(
      "config",
      "Upstash refused the snapshot store's REST token (HTTP 401): pass the database's UPSTASH_REDIS_REST_TOKEN (the standard token; the read-only one cannot write)",
      { httpStatus: 401 },
    );
  }
  if (typeof body.error === "string") throw upstashError(name, body.error, response.status);
  if (!response.ok || !("result" in body)) {
    throw new CursorError(
      response.status >= 500 ? "unavailable" : "server",
      `Upstash answered ${name} with HTTP ${response.status} and no result`,
      { httpStatus: response.status },
    );
  }
  return body.result;
}

function upstashError(command: string, error: string, status: number): CursorError {
  if (/max request size exceeded/i.test(error)) {
    return new CursorError(
      "invalid_argument",
      `Upstash refused the ${command}: "${error}". Lower the store's maxValueBytes (a snapshot is sent as base64, a third larger) or raise the database's request size limit`,
      { httpStatus: status },
    );
  }
  return new CursorError("server", `Upstash answered ${command} with "${error}"`, {
    httpStatus: status,
  });
}

function restUrl(value: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
    throw new CursorError(
      "config",
      // Up to any query: a token may have been put there (`?_token=`).
      `The Upstash snapshot store needs the database's REST URL (UPSTASH_REDIS_REST_URL), not "${
        String(value).split("?")[0]
      }"`,
    );
  }
  return parsed.href;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
