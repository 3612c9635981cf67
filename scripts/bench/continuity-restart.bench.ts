/**
 * Continuity across a restart, against the emulator:
 *
 * - the first turn after a restart: a session of several turns in one provider instance,
 *   then a new instance over the same snapshot folder (the restart) sends one more
 *   message. Reported: run-request bytes ÷ new-message bytes, with snapshots (warm) and,
 *   as the baseline, without them (cold: the history is replayed). Blob bodies the
 *   service asks for (KV) are reported apart, as in `continuity.bench.ts`, and so are the
 *   blobs pushed up front in `pre_fetched_blobs` (after a restore the client cannot know
 *   whether the service kept them; ADR 100).
 * - restore time of a 200-turn conversation: the snapshot's size, blob count and the time
 *   to read, decode and hydrate it (median of several restores).
 *
 * Prints `continuity-restart: key=value` lines.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromBinary } from "@bufbuild/protobuf";
import { generateText, type ModelMessage } from "ai";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { decodeBidiAppend } from "../../src/protocol/bidi-append.ts";
import { createCursor } from "../../node.ts";
import { startCursorEmulator } from "../../src/testing/mod.ts";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import { createConversationStore } from "../../src/conversation/conversation-store.ts";
import { restoreConversation } from "../../src/snapshot/persistence.ts";

const SESSION_TURNS = 12;
const LONG_TURNS = 200;
const RESTORES = 7;
const NEW_MESSAGE = "One more question: which word did I ask you to remember first?";

const emulator = await startCursorEmulator({ auth: { required: false }, log: false });
const folder = mkdtempSync(join(tmpdir(), "bench-restart-"));
interface Upload {
  /** The run request without the blobs it pushes. */
  runRequest: number;
  /** Blob bodies: KV answers, and blobs pushed in `pre_fetched_blobs`. */
  blobs: number;
  pushed: number;
}
const uploads = new Map<string, Upload>();
const countingFetch: typeof fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  if (url.endsWith("/BidiAppend") && init?.body instanceof Uint8Array) {
    const append = decodeBidiAppend(init.body);
    const message = fromBinary(AgentClientMessageSchema, append.message);
    const entry = uploads.get(append.requestId) ?? { runRequest: 0, blobs: 0, pushed: 0 };
    if (message.message.case === "runRequest") {
      const pushed = message.message.value.preFetchedBlobs.reduce(
        (sum, blob) => sum + blob.id.length + blob.value.length,
        0,
      );
      entry.pushed += pushed;
      entry.runRequest += append.message.length - pushed;
    } else if (message.message.case === "kvClientMessage") entry.blobs += append.message.length;
    uploads.set(append.requestId, entry);
  }
  return await fetch(input, init);
};

function provider(snapshots: boolean, directory: string) {
  return createCursor({
    accessToken: "bench",
    apiBaseURL: emulator.url,
    agentBaseURL: emulator.url,
    allowLoopback: true,
    fetch: countingFetch,
    env: {},
    conversationSnapshots: snapshots ? createSnapshotFileStore({ directory }) : false,
  });
}

async function session(
  cursor: ReturnType<typeof provider>,
  id: string,
  turns: number,
): Promise<ModelMessage[]> {
  const messages: ModelMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({
      role: "user",
      content: `Turn ${turn + 1}: remember the word w${turn}. ${"context ".repeat(120)}`,
    });
    const result = await generateText({
      model: cursor("gpt-5"),
      system: "You are a careful assistant.",
      messages,
      providerOptions: { cursor: { sessionId: id } },
    });
    messages.push(...result.response.messages);
  }
  return messages;
}

async function firstTurnAfterRestart(snapshots: boolean) {
  const directory = join(folder, snapshots ? "with" : "without");
  const id = `bench-${snapshots ? "warm" : "cold"}`;
  const messages = await session(provider(snapshots, directory), id, SESSION_TURNS);
  messages.push({ role: "user", content: NEW_MESSAGE });
  await generateText({
    model: provider(snapshots, directory)("gpt-5"),
    system: "You are a careful assistant.",
    messages,
    providerOptions: { cursor: { sessionId: id } },
  });
  const run = emulator.runs().at(-1);
  const upload = uploads.get(run?.requestId ?? "") ?? { runRequest: 0, blobs: 0, pushed: 0 };
  const newBytes = new TextEncoder().encode(NEW_MESSAGE).length;
  console.log(
    `continuity-restart: snapshots=${
      snapshots ? "on" : "off"
    } continuity=${run?.continuity} new_message_bytes=${newBytes} run_request_bytes=${upload.runRequest} upload_ratio=${
      (upload.runRequest / newBytes).toFixed(2)
    } blob_bytes_served=${upload.blobs} blob_bytes_pushed=${upload.pushed} kv_gets=${
      run?.kv.gets ?? 0
    } cache_read_tokens=${run?.counters.cacheRead ?? 0}`,
  );
  return upload.runRequest / newBytes;
}

async function restoreTime() {
  const directory = join(folder, "long");
  await session(provider(true, directory), "bench-long", LONG_TURNS);
  const store = createSnapshotFileStore({ directory });
  const times: number[] = [];
  let detail = "";
  for (let i = 0; i < RESTORES; i++) {
    const started = performance.now();
    const outcome = await restoreConversation("bench-long", {
      snapshots: store,
      conversations: createConversationStore({ now: Date.now, release: () => {} }),
      blobs: createMemoryBlobStore(),
      nowMs: Date.now(),
      scope: emulator.url,
    });
    times.push(performance.now() - started);
    if (outcome.status !== "restored") {
      throw new Error(`Restore failed: ${JSON.stringify(outcome)}`);
    }
    detail = `snapshot_bytes=${outcome.bytes} blobs=${outcome.blobs}`;
  }
  times.sort((a, b) => a - b);
  console.log(
    `continuity-restart: turns=${LONG_TURNS} ${detail} restore_ms_median=${
      (times[Math.floor(times.length / 2)] ?? 0).toFixed(1)
    } restore_ms_max=${(times.at(-1) ?? 0).toFixed(1)}`,
  );
}

try {
  const warm = await firstTurnAfterRestart(true);
  const cold = await firstTurnAfterRestart(false);
  console.log(
    `continuity-restart: upload_ratio_warm=${warm.toFixed(2)} upload_ratio_cold_baseline=${
      cold.toFixed(2)
    } saving=${(cold / Math.max(warm, 0.01)).toFixed(1)}x`,
  );
  await restoreTime();
  console.log(`continuity-restart: violations=${emulator.violations().length}`);
} finally {
  await emulator.close();
  rmSync(folder, { recursive: true, force: true });
}
