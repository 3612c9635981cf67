/**
 * Two provider instances sharing the Durable Object snapshot store in real workerd: each
 * instance's store is made in its own Worker (two isolates binding one class), so every
 * read and write goes through the product's client in workerd to the conversation's
 * object. Turns alternating between the instances continue from the newest turn, and of
 * two turns finishing at once exactly one snapshot wins, which the other continues from.
 */
import { after, before, describe } from "node:test";
import { startStoreHarness, type StoreHarness } from "../support/workerd/store-harness.ts";
import { defineSharedStoreScenarios } from "../support/shared-store-scenarios.ts";

describe("two provider instances sharing the Durable Object snapshot store (real workerd)", () => {
  let harness: StoreHarness;
  let handles = 0;
  before(async () => {
    harness = await startStoreHarness();
  });
  after(async () => {
    await harness?.close();
  });

  defineSharedStoreScenarios((prefix) =>
    Promise.resolve(harness.store(handles++ % 2 === 0 ? "store" : "peer", "SNAPSHOTS", { prefix }))
  );
});
