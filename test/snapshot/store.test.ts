import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import { createConversationStore } from "../../src/conversation/conversation-store.ts";
import { bytesToHex, sha256 } from "../../src/core/bytes.ts";
import { decodeSnapshot } from "../../src/snapshot/codec.ts";
import {
  captureConversation,
  restoreConversation,
  SNAPSHOT_LIFETIME_MS,
} from "../../src/snapshot/persistence.ts";
import type { ConversationSnapshotStore } from "../../src/snapshot/store.ts";

const NOW = 1_800_000_000_000;

/** A field-1 length-delimited protobuf entry holding `id`. */
function field(id: Uint8Array): Uint8Array {
  return new Uint8Array([0x0a, id.length, ...id]);
}

/** A conversation whose checkpoint reaches a turn blob, which reaches a message blob. */
async function sampleStores(key = "ses_a") {
  const blobs = createMemoryBlobStore();
  const message = new TextEncoder().encode('{"role":"user","content":"hi"}');
  const messageId = await sha256(message);
  const turn = field(messageId);
  const turnId = await sha256(turn);
  const stray = new TextEncoder().encode("unreferenced");
  blobs.set(bytesToHex(messageId), message);
  blobs.set(bytesToHex(turnId), turn);
  blobs.set(bytesToHex(await sha256(stray)), stray);
  const conversations = createConversationStore<never>({ now: () => NOW, release: () => {} });
  const conversation = conversations.create(key, "conv-1", "group-1");
  conversation.adoptCheckpoint({ bytes: new Uint8Array([0x42, turnId.length, ...turnId]) });
  conversation.freezeSystemPrompt("Be brief");
  conversation.recordPass(["d1", "d2"], "", true);
  return { blobs, conversation, ids: [bytesToHex(turnId), bytesToHex(messageId)] };
}

function freshTarget(snapshots: ConversationSnapshotStore, nowMs = NOW) {
  return {
    snapshots,
    conversations: createConversationStore<never>({ now: () => nowMs, release: () => {} }),
    blobs: createMemoryBlobStore(),
    nowMs,
  };
}

/** The snapshot bytes of a conversation that has a checkpoint. */
async function captured(
  conversation: Parameters<typeof captureConversation>[0],
  blobs: ReturnType<typeof createMemoryBlobStore>,
): Promise<Uint8Array> {
  const bytes = await captureConversation(conversation, blobs, NOW);
  assert.ok(bytes, "a conversation with a checkpoint has a snapshot");
  return bytes;
}

function folder(): string {
  return mkdtempSync(join(tmpdir(), "cursor-snapshot-store-"));
}

describe("conversation snapshots", () => {
  it("round-trips ids, checkpoint, frozen prompt and only the blobs the checkpoint reaches", async () => {
    const { blobs, conversation, ids } = await sampleStores();
    const bytes = await captureConversation(conversation, blobs, NOW);
    assert.ok(bytes);
    const decoded = await decodeSnapshot(bytes);
    assert.ok(decoded.ok);
    assert.deepEqual(decoded.snapshot.blobs.map((b) => bytesToHex(b.id)).sort(), [...ids].sort());
    const store = createSnapshotFileStore({ directory: folder() });
    await store.write("ses_a", bytes);
    const target = freshTarget(store, NOW + 1000);
    const outcome = await restoreConversation("ses_a", target);
    assert.deepEqual(outcome, {
      status: "restored",
      blobs: 2,
      bytes: bytes.length,
      ageMs: 1000,
      serverBlobs: "holds",
    });
    const restored = target.conversations.get("ses_a");
    assert.equal(restored?.conversationId, "conv-1");
    assert.equal(restored?.groupId, "group-1");
    assert.deepEqual(restored?.checkpoint, conversation.checkpoint);
    assert.equal(restored?.frozenSystemPrompt, "Be brief");
    assert.deepEqual(restored?.history, ["d1", "d2"]);
    for (const id of ids) assert.ok(target.blobs.get(id), `blob ${id} restored`);
  });

  it("keeps Cursor's mode across a restart (plan mode after a declined plan stays plan mode)", async () => {
    const { blobs, conversation } = await sampleStores();
    conversation.setCursorMode("plan");
    const store = createSnapshotFileStore({ directory: folder() });
    await store.write("ses_a", await captured(conversation, blobs));
    const target = freshTarget(store, NOW + 1000);
    await restoreConversation("ses_a", target);
    assert.equal(target.conversations.get("ses_a")?.cursorMode, "plan");

    const agent = await sampleStores();
    await store.write("ses_a", await captured(agent.conversation, agent.blobs));
    const again = freshTarget(store, NOW + 2000);
    await restoreConversation("ses_a", again);
    assert.equal(again.conversations.get("ses_a")?.cursorMode, undefined, "agent: no mode kept");
  });

  it("reports a missing snapshot as missing", async () => {
    const outcome = await restoreConversation(
      "ses_none",
      freshTarget(createSnapshotFileStore({ directory: folder() })),
    );
    assert.deepEqual(outcome, { status: "missing" });
  });

  const damaged: [string, (bytes: Uint8Array) => Uint8Array, string][] = [
    ["truncated", (b) => b.subarray(0, b.length - 5), "corrupt"],
    ["corrupt", (b) => b.map((x, i) => (i > 10 && i < 40 ? x ^ 0xff : x)), "corrupt"],
    ["foreign-version", (b) => b.map((x, i) => (i === 4 ? 9 : x)), "foreign-version"],
    ["not a snapshot", () => new TextEncoder().encode("{}"), "not-a-snapshot"],
    ["empty", () => new Uint8Array(0), "not-a-snapshot"],
  ];
  for (const [label, damage, reason] of damaged) {
    it(`treats a ${label} file as invalid (${reason}) and removes it`, async () => {
      const { blobs, conversation } = await sampleStores();
      const bytes = await captureConversation(conversation, blobs, NOW);
      assert.ok(bytes);
      const store = createSnapshotFileStore({ directory: folder() });
      await store.write("ses_a", damage(bytes));
      const target = freshTarget(store);
      assert.deepEqual(await restoreConversation("ses_a", target), { status: "invalid", reason });
      assert.equal(target.conversations.get("ses_a"), undefined);
      assert.equal((await store.read("ses_a")).status, "missing", "the file was removed");
    });
  }

  it("expires a snapshot older than 24 hours", async () => {
    const { blobs, conversation } = await sampleStores();
    const store = createSnapshotFileStore({ directory: folder() });
    await store.write("ses_a", await captured(conversation, blobs));
    const late = freshTarget(store, NOW + SNAPSHOT_LIFETIME_MS + 1);
    const outcome = await restoreConversation("ses_a", late);
    assert.equal(outcome.status, "expired");
    assert.equal((await store.read("ses_a")).status, "missing");
  });

  it("refuses another session's snapshot filed under this key", async () => {
    const { blobs, conversation } = await sampleStores("ses_other");
    const store = createSnapshotFileStore({ directory: folder() });
    await store.write("ses_a", await captured(conversation, blobs));
    assert.deepEqual(await restoreConversation("ses_a", freshTarget(store)), {
      status: "invalid",
      reason: "session-mismatch",
    });
  });

  it("refuses a file others can read, and writes owner-only", {
    skip: process.platform === "win32",
  }, async () => {
    const { blobs, conversation } = await sampleStores();
    const directory = folder();
    const store = createSnapshotFileStore({ directory });
    await store.write("ses_a", await captured(conversation, blobs));
    const [name] = readdirSync(directory);
    const path = join(directory, name ?? "");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    chmodSync(path, 0o644);
    assert.deepEqual(await restoreConversation("ses_a", freshTarget(store)), {
      status: "invalid",
      reason: "wrong-mode-644",
    });
  });

  it("keeps the folder under its size bound, least recently used first", async () => {
    const directory = folder();
    const store = createSnapshotFileStore({ directory, maxBytes: 3500 });
    for (const key of ["a", "b", "c"]) {
      await store.write(key, new Uint8Array(1000));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await store.read("a")).status, "found", "reading makes a most recently used");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.write("d", new Uint8Array(1000));
    assert.equal((await store.read("b")).status, "missing", "b was least recently used");
    for (const key of ["a", "c", "d"]) assert.equal((await store.read(key)).status, "found");
    const total = readdirSync(directory).reduce((n, f) => n + statSync(join(directory, f)).size, 0);
    assert.ok(total <= 3500);
  });
});
