/**
 * Tool results that arrive after their held Run closed. After ten minutes without host
 * activity, or when the Run broke while the host ran the tool (`heldRun=remote-error`
 * first), the step continues from the checkpoint Cursor saved with the batch
 * (`heldRun=restored-checkpoint`, ADR 190). After a restart from a snapshot that holds no
 * pending step (`missing-process-local-state`) the turn is rebuilt from host history: the
 * result reaches Cursor's context and the answer goes on.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryLogger } from "../../src/core/logger.ts";
import {
  type ConversationSnapshotStore,
  createMemorySnapshotStore,
} from "../../src/snapshot/store.ts";
import { decodeSnapshot, encodeSnapshot } from "../../src/snapshot/codec.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { complete, declaredBash, firstStep, lastModelContext, user } from "./support.ts";

/** A store that writes snapshots as a version without pending steps wrote them. */
function withoutPendingSteps(store: ConversationSnapshotStore): ConversationSnapshotStore {
  return {
    ...store,
    write: async (key, bytes, options) => {
      const decoded = await decodeSnapshot(bytes);
      if (!decoded.ok) return await store.write(key, bytes, options);
      decoded.snapshot.pendingStep = undefined;
      // Such a version wrote nothing for a conversation without a checkpoint of its own.
      if (decoded.snapshot.checkpoint.length === 0) return undefined;
      return await store.write(key, await encodeSnapshot(decoded.snapshot), options);
    },
  };
}

function continuationLine(lines: readonly string[]): string | undefined {
  return lines.find((l) => l.startsWith("continuation: "));
}

for (const transport of ["sse", "http2"] as const) {
  describe(`tool results after the held Run closed (${transport})`, () => {
    it("ten minutes without host activity: the released Run's step continues from its checkpoint", async () => {
      const { logger, lines } = createMemoryLogger();
      let clock = Date.now();
      const settings: CursorProviderSettings = { debug: logger, now: () => clock };
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport, settings);
        const next = await firstStep(cursor, "::shell echo marker-31\n::text Done.", "ses_cap");
        clock += 10 * 60 * 1000 + 1;
        const text = await complete(cursor, next, "ses_cap", { bash: declaredBash });
        assert.equal(
          continuationLine(lines),
          "continuation: 1 interrupted trailing tool result(s) [bash] heldRun=restored-checkpoint",
        );
        assert.ok(lines.some((l) => /held Run released: .* reason=hard-cap-expired/.test(l)));
        const run = emulator.runs().at(-1);
        assert.equal(run?.action, "resume_action");
        assert.equal(run?.conversationId, emulator.runs()[0]?.conversationId);
        const context = lastModelContext(emulator);
        assert.equal(context.split("marker-31 printed").length - 1, 1, context);
        assert.ok(text.length > 0, "the continued Run answers");
      });
    });

    it("the Run broke while the host ran the tool: heldRun=remote-error, its step continues", async () => {
      const { logger, lines } = createMemoryLogger();
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport, { debug: logger });
        const prompt = "::fault drop times=1 at=exec delay=300\n::shell echo marker-31";
        const next = await firstStep(cursor, prompt, "ses_remote");
        await new Promise((resolve) => setTimeout(resolve, 600));
        const text = await complete(cursor, next, "ses_remote", { bash: declaredBash });
        assert.equal(
          continuationLine(lines),
          "continuation: 1 interrupted trailing tool result(s) [bash] heldRun=remote-error",
          lines.join("\n"),
        );
        // The Run is gone, its step is not: it continues from the stored checkpoint.
        assert.ok(
          lines.includes(
            "continuation: 1 interrupted trailing tool result(s) [bash] heldRun=restored-checkpoint",
          ),
          lines.join("\n"),
        );
        assert.equal(emulator.runs().at(-1)?.action, "resume_action");
        const context = lastModelContext(emulator);
        assert.equal(context.split("marker-31 printed").length - 1, 1, context);
        assert.ok(text.length > 0, "the continued Run answers");
      });
    });

    it("after a restart from a snapshot without the step: heldRun=missing-process-local-state, rebuilt", async () => {
      const { logger, lines } = createMemoryLogger();
      const snapshots = withoutPendingSteps(createMemorySnapshotStore());
      await withEmulator({}, async (emulator) => {
        const before = emulatorProvider(emulator, transport, { conversationSnapshots: snapshots });
        await complete(before, [user("Say hi")], "ses_restart");
        const next = await firstStep(before, "::shell echo marker-31", "ses_restart");
        const after = emulatorProvider(emulator, transport, {
          debug: logger,
          conversationSnapshots: snapshots,
        });
        const text = await complete(after, next, "ses_restart", { bash: declaredBash });
        assert.equal(
          continuationLine(lines),
          "continuation: 1 interrupted trailing tool result(s) [bash] heldRun=missing-process-local-state",
          lines.join("\n"),
        );
        assert.match(lastModelContext(emulator), /marker-31 printed/);
        assert.ok(text.length > 0, "the rebuilt Run answers");
      });
    });
  });
}
