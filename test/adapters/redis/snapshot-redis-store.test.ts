/**
 * The Redis snapshot store against a real `redis-server` (its own process, a free
 * loopback port, a temporary folder): the store contract through two separate client
 * connections, the 24 h lifetime on the key, the namespaced layout and the size bound.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "redis";
import { createRedisSnapshotStore } from "../../../src/adapters/redis/snapshot-redis-store.ts";
import { defineSnapshotStoreContract } from "../../support/snapshot-store-contract.ts";
import { type RedisServer, startRedisServer } from "../../support/redis-server.ts";

describe("Redis snapshot store (real redis-server)", () => {
  let server: RedisServer;
  const clients: { close(): Promise<unknown> }[] = [];
  const connect = async () => {
    const client = createClient({ url: server.url });
    client.on("error", () => {});
    await client.connect();
    clients.push(client);
    return client;
  };
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await server?.close();
  });

  defineSnapshotStoreContract(async () => ({
    first: createRedisSnapshotStore({ client: await connect() }),
    second: createRedisSnapshotStore({ client: await connect() }),
  }));

  it("files values under the prefix with the 24 h lifetime, renewed by each write", async () => {
    const client = await connect();
    const store = createRedisSnapshotStore({ client, prefix: "app1:snap:" });
    await store.write("ses_ttl", new Uint8Array([1, 2]));
    assert.deepEqual(await client.keys("app1:snap:*"), ["app1:snap:ses_ttl"]);
    const ttl = await client.pTTL("app1:snap:ses_ttl");
    assert.ok(ttl > 23.9 * 3600_000 && ttl <= 24 * 3600_000, `PTTL ${ttl}`);
    const short = createRedisSnapshotStore({ client, prefix: "app1:snap:", ttlMs: 60_000 });
    await short.write("ses_ttl", new Uint8Array([3]));
    const renewed = await client.pTTL("app1:snap:ses_ttl");
    assert.ok(renewed > 0 && renewed <= 60_000, `PTTL ${renewed}`);
    const other = createRedisSnapshotStore({ client, prefix: "app2:snap:" });
    assert.deepEqual(await other.read("ses_ttl"), { status: "missing" }, "prefixes never mix");
  });

  it("refuses a snapshot above the size bound with a clear error, keeping the old value", async () => {
    const store = createRedisSnapshotStore({ client: await connect(), maxValueBytes: 1024 });
    await store.write("ses_big", new Uint8Array(10));
    await assert.rejects(
      store.write("ses_big", new Uint8Array(2048)),
      (error: Error & { code?: string }) =>
        error.code === "invalid_argument" &&
        error.message === "A snapshot of 2048 bytes exceeds the store's bound of 1024 bytes",
    );
    const read = await store.read("ses_big");
    assert.equal(read.status === "found" ? read.bytes.length : -1, 10);
  });
});
