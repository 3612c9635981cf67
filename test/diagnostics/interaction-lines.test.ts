import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { streamText } from "ai";
import type { InteractionUpdateSchema } from "../../src/gen/agent/v1/interaction_update_pb.ts";
import { createCursor } from "../../mod.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createScriptedTransport, type ScriptedServer } from "../support/scripted-transport.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

/** One Run: `prompt` as the session's next user turn; returns the Run's cache diagnosis. */
async function turn(
  cursor: ReturnType<typeof emulatorProvider>,
  prompt: string,
  lines: string[],
): Promise<string> {
  const before = lines.length;
  const result = streamText({
    model: cursor("gpt-5"),
    prompt,
    providerOptions: { cursor: { sessionId: "ses_tags" } },
  });
  await result.text;
  return lines.slice(before).find((l) => l.startsWith("cache diagnosis:")) ?? "";
}

/** A Run that shows a CreatePlan call and a failed read, then ends with no cache read. */
async function planTurnWithoutCacheRead(server: ScriptedServer): Promise<void> {
  await server.next((m) => m.message.case === "runRequest");
  const update = (
    message: NonNullable<MessageInitShape<typeof InteractionUpdateSchema>["message"]>,
  ) => server.emit({ message: { case: "interactionUpdate", value: { message } } });
  update({
    case: "toolCallStarted",
    value: {
      callId: "plan-1",
      toolCall: { tool: { case: "createPlanToolCall", value: {} } },
    },
  });
  update({
    case: "toolCallCompleted",
    value: {
      callId: "read-1",
      toolCall: {
        tool: {
          case: "readToolCall",
          value: {
            args: { path: "/ws/missing.ts" },
            result: { result: { case: "error", value: { errorMessage: "File not found" } } },
          },
        },
      },
    },
  });
  update({ case: "textDelta", value: { text: "Plan drafted" } });
  update({
    case: "turnEnded",
    value: { inputTokens: 4_000n, outputTokens: 20n, cacheReadTokens: 0n, cacheWriteTokens: 0n },
  });
  server.end();
}

describe("interaction and tool-failure lines", () => {
  it("logs Cursor's failed tool call as display tool_call_completed: ERROR and tags plan and mode Runs", async () => {
    await withEmulator({}, async (emulator) => {
      const { logger, lines } = createMemoryLogger();
      const cursor = emulatorProvider(emulator, "sse", { debug: logger });
      const failed = await turn(cursor, "::mcp nonexistent_tool {}\n::text ok", lines);
      const line = lines.find((text) => text.startsWith("display tool_call_completed: ERROR"));
      assert.equal(
        line?.replace(/callId="call_[A-Za-z0-9]+_1_0_0"/, 'callId="call_<conversation>_1_0_0"'),
        'display tool_call_completed: ERROR callId="call_<conversation>_1_0_0" tool=mcpToolCall name=nonexistent_tool namespace=(missing) toolName=(missing) error="Tool not found: mcp `nonexistent_tool`: the client does not advertise this tool (advertised: none)"',
        lines.join("\n"),
      );
      assert.doesNotMatch(failed, /createPlanInTurn|switchModeInTurn/);
      assert.match(await turn(cursor, "::plan Tidy: Step one", lines), / createPlanInTurn=true /);
      const mode = await turn(cursor, "::mode plan Because", lines);
      assert.match(mode, / switchModeInTurn=true /);
      assert.doesNotMatch(mode, /createPlanInTurn/, "tags belong to one Run");
      // The emulator's plan Runs read their own first call back, so no zero tag.
      assert.doesNotMatch(lines.join("\n"), /zero-interaction/);
    });
  });

  it("tags a plan Run whose TurnEnded reported no cache read, and logs a failed read's error", async () => {
    const { logger, lines } = createMemoryLogger();
    const cursor = createCursor({
      accessToken: "test-token",
      agentBaseURL: "https://agent.cursor.sh",
      machineId: "a".repeat(64),
      transport: createScriptedTransport(planTurnWithoutCacheRead),
      debug: logger,
    });
    await streamText({
      model: cursor("gpt-5"),
      prompt: "Plan it",
      providerOptions: { cursor: { sessionId: "ses_plan" } },
    }).text;
    assert.ok(
      lines.includes(
        'display tool_call_completed: ERROR callId="read-1" tool=readToolCall error="File not found"',
      ),
      lines.join("\n"),
    );
    const diagnosis = lines.find((l) => l.startsWith("cache diagnosis:")) ?? "";
    assert.match(
      diagnosis,
      / rawCacheRead=0 .* createPlanInTurn=true turnEndedCacheRead=zero-interaction cacheReuseEvidence=unavailable /,
    );
  });
});
