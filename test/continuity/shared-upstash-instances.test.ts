/**
 * Two provider instances (two app instances at the edge) sharing one Upstash snapshot
 * store over the REST protocol (a real `redis-server` behind the local Upstash bridge):
 * turns alternating between the instances continue from the newest turn, and of two turns
 * finishing at once exactly one snapshot wins, which the other instance continues from.
 */
import { after, before, describe } from "node:test";
import { createUpstashSnapshotStore } from "../../src/adapters/upstash/snapshot-upstash-store.ts";
import { type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { startUpstashRestBridge, type UpstashRestBridge } from "../support/upstash-rest-bridge.ts";
import { defineSharedStoreScenarios } from "../support/shared-store-scenarios.ts";

describe("two provider instances sharing an Upstash snapshot store (REST protocol)", () => {
  let server: RedisServer;
  let bridge: UpstashRestBridge;
  before(async () => {
    server = await startRedisServer();
    bridge = await startUpstashRestBridge({ redisUrl: server.url });
  });
  after(async () => {
    await bridge?.close();
    await server?.close();
  });

  defineSharedStoreScenarios((prefix) =>
    Promise.resolve(createUpstashSnapshotStore({ url: bridge.url, token: bridge.token, prefix }))
  );
});
