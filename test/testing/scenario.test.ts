import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ScenarioContext } from "../../src/testing/mod.ts";
import { startHarness } from "./support/harness.ts";
import { driveTurn, newHostState } from "./support/host.ts";

describe("scripted scenarios", () => {
  it("runs a test's scenario function instead of the directive model", async () => {
    const seen: { turn: number; history: number; tools: string[]; thinks: boolean }[] = [];
    const harness = await startHarness({
      scenario: async (context: ScenarioContext) => {
        seen.push({
          turn: context.turn,
          history: context.history.length,
          tools: context.advertisedTools.map((tool) => tool.name),
          thinks: context.model.thinks,
        });
        await context.think("planning");
        await context.text("Looking. ");
        const [listing, file] = await context.tools([
          { kind: "shell", command: "echo scripted" },
          { kind: "read", path: "README.md" },
        ]);
        await context.text(`Shell said ${listing?.summary ?? "?"}; file ok: ${file?.ok ?? false}.`);
      },
    });
    try {
      const state = newHostState();
      const conversationId = crypto.randomUUID();
      const first = await driveTurn(harness.target("sse"), state, {
        text: "anything",
        conversationId,
      });
      assert.equal(first.thinking.includes("planning"), true);
      assert.match(
        first.text,
        /^Looking\. Shell said shell `echo scripted` exited 0: scripted; file ok: true\.$/,
      );
      const second = await driveTurn(harness.target("http2"), state, {
        text: "again",
        conversationId,
        checkpoint: first.checkpoints.at(-1) ?? new Uint8Array(),
      });
      assert.ok(second.turnEnded);
      assert.deepEqual(seen, [
        { turn: 1, history: 0, tools: ["opencode-bash"], thinks: false },
        { turn: 2, history: 5, tools: ["opencode-bash"], thinks: false },
      ]);
    } finally {
      await harness.emulator.close();
    }
  });

  it("lets a scenario stream its own chunks, sleep and inject faults", async () => {
    const harness = await startHarness({
      scenario: async (context) => {
        await context.chunks(["a", "b", "c"]);
        await context.sleep(10);
        if (context.userText === "fail") {
          await context.fault({ kind: "error", code: "unavailable" });
        }
        await context.text("!");
      },
    });
    try {
      const ok = await driveTurn(harness.target("sse"), newHostState(), { text: "fine" });
      assert.equal(ok.text, "abc!");
      const failed = await driveTurn(harness.target("sse"), newHostState(), { text: "fail" });
      assert.equal(failed.end?.ok === false ? failed.end.error.connectCode : "", "unavailable");
    } finally {
      await harness.emulator.close();
    }
  });

  it("turns a scenario that throws into an internal error, never a hang", async () => {
    const harness = await startHarness({
      scenario: () => {
        throw new Error("scenario bug");
      },
    });
    try {
      const outcome = await driveTurn(harness.target("sse"), newHostState(), { text: "x" });
      assert.equal(outcome.end?.ok === false ? outcome.end.error.connectCode : "", "internal");
      assert.match(outcome.end?.ok === false ? outcome.end.error.message : "", /scenario bug/);
    } finally {
      await harness.emulator.close();
    }
  });
});
