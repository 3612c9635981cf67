/**
 * A tool step continues anywhere (ADR 190): the step ends with `finish: tool-calls` on one
 * provider instance, and the request with the host's results lands on another (a second
 * app instance sharing the snapshot store, or a restart). That instance holds no Run, so
 * it continues from the checkpoint Cursor saved with the pending batch: a `resume_action`
 * Run re-issues the batch, each exec is answered with the host's result, and the model
 * carries on. The tool runs once and its result is once in Cursor's context.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelMessage, streamText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import {
  type ConversationSnapshotStore,
  createMemorySnapshotStore,
} from "../../src/snapshot/store.ts";
import { createSnapshotFileStore } from "../../src/adapters/node/files/snapshot-file-store.ts";
import { decodeSnapshot, encodeSnapshot } from "../../src/snapshot/codec.ts";
import type { ConversationSnapshot } from "../../src/gen/provider/v1/conversation_snapshot_pb.ts";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { declaredBash, firstStep, quiet, session, user } from "../recovery/support.ts";

type Transport = "sse" | "http2";

/** An app instance: its own provider (own memory), the shared store, its log lines. */
function instance(
  emulator: CursorEmulator,
  transport: Transport,
  store: ConversationSnapshotStore,
) {
  const { logger, lines } = createMemoryLogger();
  const cursor = emulatorProvider(emulator, transport, {
    conversationSnapshots: store,
    debug: logger,
  });
  return { cursor, lines };
}

/** The step with the results: its text, tool calls and finish. */
async function nextStep(
  cursor: ReturnType<typeof emulatorProvider>,
  messages: ModelMessage[],
  sessionId: string,
) {
  const step = streamText({
    model: cursor("gpt-5"),
    messages,
    tools: { bash: declaredBash },
    ...session(sessionId),
    ...quiet,
  });
  const text = await step.text;
  return { text, toolCalls: await step.toolCalls, finishReason: await step.finishReason };
}

/** Every line of every model call of the emulator's Runs. */
function allContext(emulator: CursorEmulator): string[] {
  return emulator.runs().flatMap((run) => run.modelCalls.at(-1)?.context ?? []);
}

/** Asserts the second Run continued the first from its checkpoint, the result once. */
function assertWarmContinuation(emulator: CursorEmulator, lines: readonly string[]): void {
  const runs = emulator.runs();
  assert.equal(runs.length, 2, "one Run per step: no rebuild");
  const [first, second] = runs;
  assert.equal(second?.action, "resume_action", lines.join("\n"));
  assert.equal(second?.checkpointSupplied, true);
  assert.equal(second?.conversationId, first?.conversationId, "the same conversation");
  const context = second?.modelCalls.at(-1)?.context ?? [];
  const results = context.filter((line) => line.includes("marker-31 printed"));
  assert.equal(results.length, 1, context.join("\n"));
  const asks = context.filter((line) => line.includes("echo marker-31"));
  assert.ok(asks.length >= 1, context.join("\n"));
  assert.equal(
    context.filter((l) => l.startsWith("user:") && l.includes("echo marker-31")).length,
    1,
    "the user's message once: nothing was reseeded",
  );
  assert.ok(
    lines.includes(
      "continuation: 1 interrupted trailing tool result(s) [bash] heldRun=restored-checkpoint",
    ),
    lines.join("\n"),
  );
  assert.ok(!lines.some((l) => l.startsWith("conversation reset:")), lines.join("\n"));
  assert.deepEqual(emulator.violations(), []);
}

for (const transport of ["sse", "http2"] as const) {
  describe(`a tool step continues on another instance (${transport})`, () => {
    it("step 1 on instance A, the results on instance B: B continues warm", async () => {
      await withEmulator({}, async (emulator) => {
        const store = createMemorySnapshotStore();
        const a = instance(emulator, transport, store);
        const b = instance(emulator, transport, store);
        const next = await firstStep(a.cursor, "::shell echo marker-31\n::text Done.", "ses_any");
        const step = await nextStep(b.cursor, next, "ses_any");
        assert.equal(step.finishReason, "stop");
        assert.deepEqual(step.toolCalls, [], "the re-issued batch never reaches the host");
        assert.match(step.text, /Done\./);
        assertWarmContinuation(emulator, b.lines);
        assert.ok(
          b.lines.some((l) => /^conversation persistence: restored sessionKey=ses_any /.test(l)),
        );
      });
    });

    it("after a restart (same file store): the new process continues warm", async () => {
      await withEmulator({}, async (emulator) => {
        const directory = mkdtempSync(join(tmpdir(), "cursor-step-anywhere-"));
        const before = instance(emulator, transport, createSnapshotFileStore({ directory }));
        const next = await firstStep(
          before.cursor,
          "::shell echo marker-31\n::text Done.",
          "ses_rs",
        );
        const after = instance(emulator, transport, createSnapshotFileStore({ directory }));
        const step = await nextStep(after.cursor, next, "ses_rs");
        assert.equal(step.finishReason, "stop");
        assert.deepEqual(step.toolCalls, []);
        assert.match(step.text, /Done\./);
        assertWarmContinuation(emulator, after.lines);
        assert.equal(
          allContext(emulator).filter((l) => l.includes("marker-31 printed")).length,
          1,
        );
      });
    });
  });
}

/** A store that rewrites the pending step of every snapshot it writes. */
function tamperedSteps(
  store: ConversationSnapshotStore,
  tamper: (step: NonNullable<ConversationSnapshot["pendingStep"]>) => void,
): ConversationSnapshotStore {
  return {
    ...store,
    write: async (key, bytes, options) => {
      const decoded = await decodeSnapshot(bytes);
      if (!decoded.ok || decoded.snapshot.pendingStep === undefined) {
        return await store.write(key, bytes, options);
      }
      tamper(decoded.snapshot.pendingStep);
      return await store.write(key, await encodeSnapshot(decoded.snapshot), options);
    },
  };
}

for (const transport of ["sse", "http2"] as const) {
  describe(`a stored step that cannot be continued (${transport})`, () => {
    const cases = [
      {
        name: "another call id",
        reason: /reason=unknown-call-\S+$/,
        tamper: (step: NonNullable<ConversationSnapshot["pendingStep"]>) => {
          for (const call of step.calls) call.cursorCallId = `${call.cursorCallId}-other`;
        },
      },
      {
        name: "a call Cursor does not re-issue",
        reason: /reason=batch-incomplete$/,
        tamper: (step: NonNullable<ConversationSnapshot["pendingStep"]>) => {
          const first = step.calls[0];
          if (first !== undefined) step.calls.push({ ...first, cursorCallId: "call_phantom" });
        },
      },
    ];
    for (const { name, reason, tamper } of cases) {
      it(`the re-issued batch does not match (${name}): rebuilt, the reason logged`, async () => {
        await withEmulator({}, async (emulator) => {
          const store = tamperedSteps(createMemorySnapshotStore(), tamper);
          const a = instance(emulator, transport, store);
          const b = instance(emulator, transport, store);
          const next = await firstStep(a.cursor, "::shell echo marker-31\n::text Done.", "ses_mm");
          const step = await nextStep(b.cursor, next, "ses_mm");
          assert.equal(step.finishReason, "stop");
          assert.deepEqual(step.toolCalls, [], "nothing is asked of the host again");
          assert.match(step.text, /Done\./);
          const line = b.lines.find((l) => l.includes("heldRun=stored-batch-mismatch"));
          assert.match(line ?? b.lines.join("\n"), reason);
          const runs = emulator.runs();
          assert.equal(runs.length, 3, "the step Run, the continuation, the rebuild");
          assert.equal(runs[1]?.action, "resume_action");
          assert.equal(runs[2]?.action, "user_message_action");
          assert.equal(runs[2]?.continuity, "cold", "rebuilt from host history");
          const context = runs[2]?.modelCalls.at(-1)?.context ?? [];
          assert.equal(
            context.filter((l) => l.includes("marker-31 printed")).length,
            1,
            context.join("\n"),
          );
          assert.ok(
            b.lines.some((l) => l.startsWith("conversation reset: reason=interrupted-run")),
          );
          assert.deepEqual(emulator.violations(), []);
        });
      });
    }
  });

  describe(`the continuation Run fails before output (${transport})`, () => {
    it("the policy resumes from the checkpoint saved after the results: the answer once", async () => {
      await withEmulator({}, async (emulator) => {
        const store = createMemorySnapshotStore();
        const a = instance(emulator, transport, store);
        const b = instance(emulator, transport, store);
        // The connection drops after the re-issued result went in, before any text.
        const prompt = "::shell echo marker-31\n::fault drop times=1\n::text Done.";
        const next = await firstStep(a.cursor, prompt, "ses_fail");
        const step = await nextStep(b.cursor, next, "ses_fail");
        assert.equal(step.finishReason, "stop", b.lines.join("\n"));
        assert.deepEqual(step.toolCalls, []);
        assert.equal(step.text.split("Done.").length - 1, 1, step.text);
        assert.ok(
          b.lines.some((l) => /^Run interrupted: .* streamedChars=0 replaySafe=true/.test(l)),
          b.lines.join("\n"),
        );
        assert.ok(b.lines.some((l) => l.startsWith("resuming Run from checkpoint: ")));
        assert.ok(!b.lines.some((l) => l.startsWith("conversation reset:")), b.lines.join("\n"));
        const runs = emulator.runs();
        assert.equal(runs.length, 3, "the step, the continuation, its resume");
        assert.deepEqual(runs.slice(1).map((run) => run.action), [
          "resume_action",
          "resume_action",
        ]);
        assert.ok(runs.every((run) => run.conversationId === runs[0]?.conversationId));
        const context = runs[2]?.modelCalls.at(-1)?.context ?? [];
        assert.equal(
          context.filter((l) => l.includes("marker-31 printed")).length,
          1,
          context.join("\n"),
        );
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
}

describe("the Run left open on the first instance", () => {
  it("is released when the conversation moved on elsewhere; the next turn continues the newest", async () => {
    await withEmulator({}, async (emulator) => {
      const store = createMemorySnapshotStore();
      const a = instance(emulator, "sse", store);
      const b = instance(emulator, "sse", store);
      const asked = "::shell echo marker-31\n::text Done.";
      const next = await firstStep(a.cursor, asked, "ses_open");
      const done = await nextStep(b.cursor, next, "ses_open");
      assert.match(done.text, /Done\./);
      // The next turn lands on A, which still holds the step-1 Run.
      const history: ModelMessage[] = [
        ...next,
        { role: "assistant", content: done.text },
        user("::text Next."),
      ];
      const third = await nextStep(a.cursor, history, "ses_open");
      assert.equal(third.text, "Next.");
      assert.ok(
        a.lines.some((l) => /^held Run released: .* reason=replaced/.test(l)),
        a.lines.join("\n"),
      );
      const runs = emulator.runs();
      assert.equal(runs.length, 3);
      const last = runs[2];
      assert.equal(last?.continuity, "warm", a.lines.join("\n"));
      assert.equal(last?.conversationId, runs[0]?.conversationId);
      assert.equal(last?.userText, "::text Next.");
      const context = last?.modelCalls.at(-1)?.context ?? [];
      const results = context.filter((l) =>
        l.startsWith("tool:") && l.includes("marker-31 printed")
      );
      assert.equal(results.length, 1, context.join("\n"));
      assert.ok(context.some((l) => l.startsWith("assistant:") && l.includes("Done.")));
      // A's snapshot write of this turn continues from B's version: nothing was clobbered.
      assert.ok(!a.lines.some((l) => l.includes("save conflict")), a.lines.join("\n"));
      assert.deepEqual(emulator.violations(), []);
    });
  });
});
