import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, startHarness } from "./support/harness.ts";
import { driveTurn, newHostState } from "./support/host.ts";
import type { ToolCall } from "../../src/gen/agent/v1/tool_call_pb.ts";

describe("tool_call_completed carries the client's figures", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("copies ReadSuccess totals and the shell exit's execution time", async () => {
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::read README.md\n::shell echo a",
    });
    assert.ok(outcome.turnEnded);
    const completed: ToolCall[] = [];
    for (const frame of outcome.frames) {
      if (frame.message.case !== "interactionUpdate") continue;
      const update = frame.message.value.message;
      if (update.case === "toolCallCompleted" && update.value.toolCall !== undefined) {
        completed.push(update.value.toolCall);
      }
    }
    const read = completed.find((call) => call.tool.case === "readToolCall")?.tool;
    assert.equal(read?.case, "readToolCall");
    if (read?.case === "readToolCall") {
      const result = read.value.result?.result;
      assert.equal(result?.case, "success");
      if (result?.case === "success") {
        // "# Demo\nhello\n": three "\n"-separated segments, 13 bytes, as the host reported.
        assert.equal(result.value.totalLines, 3);
        assert.equal(result.value.fileSize, 13);
      }
    }
    const shell = completed.find((call) => call.tool.case === "shellToolCall")?.tool;
    assert.equal(shell?.case, "shellToolCall");
    if (shell?.case === "shellToolCall") {
      const result = shell.value.result?.result;
      assert.equal(result?.case, "success");
      if (result?.case === "success") assert.equal(result.value.executionTime, 175);
    }
  });
});
