/**
 * The Upstash snapshot store over the REST protocol against a real `redis-server` (its own
 * process) behind a local bridge that answers as Upstash documents: the store contract,
 * the 24 h lifetime on the key, namespacing, the size bounds (the store's and a database's
 * request size limit), corrupt values, a wrong token and an unreachable URL. The bridge's
 * own answers are checked against the documented examples first.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "redis";
import { createUpstashSnapshotStore } from "../../../src/adapters/upstash/snapshot-upstash-store.ts";
import { defineSnapshotStoreContract } from "../../support/snapshot-store-contract.ts";
import { type RedisServer, startRedisServer } from "../../support/redis-server.ts";
import {
  startUpstashRestBridge,
  type UpstashRestBridge,
} from "../../support/upstash-rest-bridge.ts";

/** Rejects with the store's error: this code, exactly this message. */
function storeError(code: string, message: string) {
  return (error: Error & { code?: string }) => {
    assert.equal(error.code, code);
    assert.equal(error.message, message);
    return true;
  };
}

describe("Upstash snapshot store (REST protocol, real redis-server)", () => {
  let server: RedisServer;
  let bridge: UpstashRestBridge;
  let limited: UpstashRestBridge;
  let redis: ReturnType<typeof createClient>;
  before(async () => {
    server = await startRedisServer();
    bridge = await startUpstashRestBridge({ redisUrl: server.url });
    limited = await startUpstashRestBridge({ redisUrl: server.url, maxRequestBytes: 1024 * 1024 });
    redis = createClient({ url: server.url });
    redis.on("error", () => {});
    await redis.connect();
  });
  after(async () => {
    await redis?.close().catch(() => {});
    await limited?.close();
    await bridge?.close();
    await server?.close();
  });
  const store = (options: { prefix?: string; ttlMs?: number; maxValueBytes?: number } = {}) =>
    createUpstashSnapshotStore({ url: bridge.url, token: bridge.token, ...options });
  const rest = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(bridge.url, {
      method: "POST",
      headers: { authorization: `Bearer ${bridge.token}`, ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() as unknown };
  };

  it("the bridge answers as Upstash documents", async () => {
    assert.deepEqual(await rest(["SET", "foo", "bar", "EX", 100]), {
      status: 200,
      body: { result: "OK" },
    });
    assert.deepEqual(await rest(["GET", "foo"], { "upstash-encoding": "base64" }), {
      status: 200,
      body: { result: "YmFy" },
    });
    assert.deepEqual(await rest(["GET", "missing"]), { status: 200, body: { result: null } });
    assert.deepEqual(await rest(["GET"]), {
      status: 400,
      body: { error: "ERR wrong number of arguments for 'get' command" },
    });
    const anonymous = await fetch(`${bridge.url}/get/foo`);
    assert.deepEqual([anonymous.status, await anonymous.json()], [401, {
      error: "WRONGPASS invalid or missing auth token",
    }]);
    const pathStyle = await fetch(`${bridge.url}/get/foo?_token=${bridge.token}`);
    assert.deepEqual(await pathStyle.json(), { result: "bar" });
    const deleted = await fetch(bridge.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${bridge.token}` },
    });
    assert.equal(deleted.status, 405);
  });

  defineSnapshotStoreContract(() => ({ first: store(), second: store() }));

  it("files values under the prefix as base64 with the 24 h lifetime, renewed by each write", async () => {
    await store({ prefix: "app1:snap:" }).write("ses_ttl", new Uint8Array([1, 2, 255]));
    assert.deepEqual(await redis.keys("app1:snap:*"), ["app1:snap:ses_ttl"]);
    assert.equal(await redis.hGet("app1:snap:ses_ttl", "d"), "AQL/");
    const ttl = await redis.pTTL("app1:snap:ses_ttl");
    assert.ok(ttl > 23.9 * 3600_000 && ttl <= 24 * 3600_000, `PTTL ${ttl}`);
    await store({ prefix: "app1:snap:", ttlMs: 60_000 }).write("ses_ttl", new Uint8Array([3]));
    const renewed = await redis.pTTL("app1:snap:ses_ttl");
    assert.ok(renewed > 0 && renewed <= 60_000, `PTTL ${renewed}`);
    const other = store({ prefix: "app2:snap:" });
    assert.deepEqual(await other.read("ses_ttl"), { status: "missing" }, "prefixes never mix");
    assert.equal(await store().version("ses_ttl"), undefined, "the default prefix is its own");
  });

  it("refuses a snapshot above the store's bound, keeping the old value", async () => {
    const bounded = store({ maxValueBytes: 1024 });
    await bounded.write("ses_big", new Uint8Array(10));
    await assert.rejects(
      bounded.write("ses_big", new Uint8Array(2048)),
      storeError(
        "invalid_argument",
        "A snapshot of 2048 bytes exceeds the store's bound of 1024 bytes",
      ),
    );
    const read = await bounded.read("ses_big");
    assert.equal(read.status === "found" ? read.bytes.length : -1, 10);
  });

  it("says what to change when the database refuses the request's size", async () => {
    const small = createUpstashSnapshotStore({ url: limited.url, token: limited.token });
    await small.write("ses_limit", new Uint8Array(700_000));
    await assert.rejects(
      small.write("ses_limit", new Uint8Array(800_000)),
      storeError(
        "invalid_argument",
        "Upstash refused the EVAL: \"ERR max request size exceeded\". Lower the store's maxValueBytes (a snapshot is sent as base64, a third larger) or raise the database's request size limit",
      ),
    );
    const read = await small.read("ses_limit");
    assert.equal(read.status === "found" ? read.bytes.length : -1, 700_000);
  });

  it("refuses values it did not write in its layout, and writes over them", async () => {
    const key = "cursor-snapshot-b64:ses_corrupt";
    await redis.hSet(key, { v: "v1", d: "not base64!" });
    assert.deepEqual(await store().read("ses_corrupt"), {
      status: "refused",
      reason: "not-base64",
    });
    await redis.del(key);
    await redis.hSet(key, { d: "AQI=" });
    assert.deepEqual(await store().read("ses_corrupt"), {
      status: "refused",
      reason: "no-version",
    });
    const written = await store().write("ses_corrupt", new Uint8Array([9]), { ifVersion: null });
    assert.equal(written.status, "written");
    const read = await store().read("ses_corrupt");
    assert.deepEqual(read.status === "found" ? [...read.bytes] : read, [9]);
  });

  it("fails with advice on a wrong token, never quoting it", async () => {
    const wrong = createUpstashSnapshotStore({ url: bridge.url, token: "secret_wrong_token" });
    await assert.rejects(wrong.read("ses_1"), (error: Error & { code?: string }) => {
      assert.equal(error.code, "config");
      assert.equal(
        error.message,
        "Upstash refused the snapshot store's REST token (HTTP 401): pass the database's UPSTASH_REDIS_REST_TOKEN (the standard token; the read-only one cannot write)",
      );
      assert.ok(!JSON.stringify(error).includes("secret_wrong_token"));
      return true;
    });
  });

  it("reports an unreachable database as a network error", async () => {
    const gone = await startUpstashRestBridge({ redisUrl: server.url });
    await gone.close();
    await assert.rejects(
      createUpstashSnapshotStore({ url: gone.url, token: gone.token }).version("ses_1"),
      (error: Error & { code?: string }) =>
        error.code === "network" && /^Upstash could not be reached \(HGET\): /.test(error.message),
    );
  });

  it("rejects a URL that is not one and an empty token", () => {
    assert.throws(
      () => createUpstashSnapshotStore({ url: "redis://h?_token=abc", token: "t" }),
      storeError(
        "config",
        'The Upstash snapshot store needs the database\'s REST URL (UPSTASH_REDIS_REST_URL), not "redis://h"',
      ),
    );
    assert.throws(
      () => createUpstashSnapshotStore({ url: "https://db.upstash.io", token: "" }),
      storeError(
        "config",
        "The Upstash snapshot store needs the database's REST token (UPSTASH_REDIS_REST_TOKEN)",
      ),
    );
  });
});
