/**
 * Two provider instances (two app instances behind a load balancer) sharing one real
 * Redis snapshot store: each turn lands on whichever instance, and the model's context
 * (the emulator's record of what it saw) always continues from the newest turn, never
 * from an instance's stale checkpoint. When both instances finish a turn of one
 * conversation at once, exactly one snapshot wins and the other instance's next turn
 * continues from the winner's.
 */
import { after, before, describe } from "node:test";
import { createClient } from "redis";
import { createRedisSnapshotStore } from "../../src/adapters/redis/snapshot-redis-store.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { defineSharedStoreScenarios } from "../support/shared-store-scenarios.ts";

describe("two provider instances sharing a real Redis snapshot store", () => {
  let server: RedisServer;
  const clients: { close(): Promise<unknown> }[] = [];
  const redisStore = async (prefix: string) => {
    const client = createClient({ url: server.url });
    client.on("error", () => {});
    await client.connect();
    clients.push(client);
    return createRedisSnapshotStore({ client, prefix });
  };
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await server?.close();
  });

  defineSharedStoreScenarios(redisStore);
});
