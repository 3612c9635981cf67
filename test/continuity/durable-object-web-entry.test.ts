/**
 * The package's web entry in real workerd (miniflare), as a Worker app: two requests of
 * one conversation land on two Workers (two isolates, a provider made per request), the
 * snapshot store is the Durable Object store, the service is the emulator in this process
 * reached over loopback. The emulator's records show the second turn continued warm from
 * the first turn's checkpoint; without the shared store it starts cold. A tool step that
 * ends in one Worker invocation continues in the next from the checkpoint Cursor saved
 * with the pending batch (ADR 190).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import {
  bundleWorker,
  COMPATIBILITY_DATE,
  startWorkerd,
  type Workerd,
} from "../support/workerd/miniflare.ts";
import type { TurnRequest, TurnResponse } from "../support/workerd/web-entry-app.worker.ts";

const APP = "test/support/workerd/web-entry-app.worker.ts";

describe("the web entry in workerd with the Durable Object snapshot store", () => {
  let emulator: CursorEmulator;
  let workerd: Workerd;
  before(async () => {
    emulator = await startCursorEmulator();
    const script = await bundleWorker(APP);
    const app = (name: string, scriptName?: string) => ({
      name,
      modules: true,
      script,
      compatibilityDate: COMPATIBILITY_DATE,
      bindings: { CURSOR_API_BASE_URL: emulator.url },
      durableObjects: {
        CURSOR_SNAPSHOTS: {
          className: "CursorSnapshotObject",
          useSQLite: true,
          ...(scriptName ? { scriptName } : {}),
        },
      },
    });
    workerd = await startWorkerd({ workers: [app("app-a"), app("app-b", "app-a")] });
  });
  after(async () => {
    await workerd?.close();
    await emulator?.close();
  });

  const turn = async (worker: string, request: TurnRequest) => {
    const response = await workerd.fetch(worker, "/", {
      method: "POST",
      body: JSON.stringify(request),
    });
    const body = await response.json() as TurnResponse;
    assert.equal(response.status, 200, `${body.error}\n${body.lines.join("\n")}`);
    return {
      text: body.text ?? "",
      lines: body.lines,
      toolCalls: body.toolCalls ?? [],
      finishReason: body.finishReason,
    };
  };
  const user = (text: string) => ({ role: "user" as const, text });
  const assistant = (text: string) => ({ role: "assistant" as const, text });

  it("continues turn 2 warm on another Worker from turn 1's snapshot", async () => {
    const sessionId = `ses_${crypto.randomUUID()}`;
    const u1 = user("Remember the word kumquat.");
    const first = await turn("app-a", { sessionId, messages: [u1], shareSnapshots: true });
    const runs = emulator.runs().length;
    const u2 = user("Which word?");
    const second = await turn("app-b", {
      sessionId,
      messages: [u1, assistant(first.text), u2],
      shareSnapshots: true,
    });
    const run = emulator.runs()[runs];
    assert.equal(run?.continuity, "warm", second.lines.join("\n"));
    assert.equal(run?.checkpointSupplied, true);
    assert.equal(run?.turn, 2, "the Run continues from turn 1's checkpoint");
    assert.equal(run?.conversationId, emulator.runs()[runs - 1]?.conversationId);
    assert.equal(run?.userText, "Which word?");
    const context = run?.modelCalls[0]?.context ?? [];
    const said = (word: string) =>
      context.filter((l) => l.startsWith("user:") && l.includes(word)).length;
    assert.equal(said("kumquat"), 1, context.join("\n"));
    assert.ok(
      second.lines.some((l) =>
        l.startsWith(`conversation persistence: restored sessionKey=${sessionId} `)
      ),
      second.lines.join("\n"),
    );
    assert.deepEqual(emulator.violations(), []);
  });

  it("starts turn 2 cold on another Worker without the shared store", async () => {
    const sessionId = `ses_${crypto.randomUUID()}`;
    const u1 = user("Remember the word mango.");
    const first = await turn("app-a", { sessionId, messages: [u1], shareSnapshots: false });
    const runs = emulator.runs().length;
    await turn("app-b", {
      sessionId,
      messages: [u1, assistant(first.text), user("Which word?")],
      shareSnapshots: false,
    });
    const run = emulator.runs()[runs];
    assert.equal(run?.continuity, "cold");
    assert.equal(run?.checkpointSupplied, false);
    assert.notEqual(run?.conversationId, emulator.runs()[runs - 1]?.conversationId);
  });

  it("continues a tool step warm in another Worker invocation from the stored checkpoint", async () => {
    const sessionId = `ses_${crypto.randomUUID()}`;
    const asked = "::shell echo marker-31\n::text Done.";
    const first = await turn("app-a", {
      sessionId,
      messages: [user(asked)],
      shareSnapshots: true,
      bash: true,
    });
    assert.equal(first.finishReason, "tool-calls", first.lines.join("\n"));
    const call = first.toolCalls[0];
    assert.ok(call !== undefined, "Cursor asked for the shell");
    const runs = emulator.runs().length;
    const second = await turn("app-b", {
      sessionId,
      messages: [],
      shareSnapshots: true,
      bash: true,
      prompt: [
        { role: "user", content: [{ type: "text", text: asked }] },
        {
          role: "assistant",
          content: [{
            type: "tool-call",
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: JSON.parse(call.input),
          }],
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output: { type: "text", value: "marker-31 printed" },
          }],
        },
      ],
    });
    assert.equal(second.finishReason, "stop", second.lines.join("\n"));
    assert.deepEqual(second.toolCalls, [], "the re-issued batch never reaches the host");
    assert.match(second.text, /Done\./);
    assert.equal(emulator.runs().length, runs + 1, "one Run continues the step: no rebuild");
    const run = emulator.runs()[runs];
    assert.equal(run?.action, "resume_action", second.lines.join("\n"));
    assert.equal(run?.checkpointSupplied, true);
    assert.equal(run?.conversationId, emulator.runs()[runs - 1]?.conversationId);
    const context = run?.modelCalls.at(-1)?.context ?? [];
    assert.equal(
      context.filter((l) => l.includes("marker-31 printed")).length,
      1,
      context.join("\n"),
    );
    assert.ok(
      second.lines.includes(
        "continuation: 1 interrupted trailing tool result(s) [bash] heldRun=restored-checkpoint",
      ),
      second.lines.join("\n"),
    );
    assert.deepEqual(emulator.violations(), []);
  });
});
