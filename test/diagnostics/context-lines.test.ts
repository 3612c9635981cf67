import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { streamText } from "ai";
import { createCursor } from "../../mod.ts";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createScriptedTransport, type ScriptedServer } from "../support/scripted-transport.ts";

/** A reply whose checkpoint breakdown counts no rule tokens and totals an older occupancy. */
async function replyWithoutRules(server: ScriptedServer): Promise<void> {
  await server.next((m) => m.message.case === "runRequest");
  server.emit({
    message: {
      case: "execServerMessage",
      value: { id: 0, message: { case: "requestContextArgs", value: {} } },
    },
  });
  await server.next((m) => m.message.case === "execClientMessage");
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "textDelta", value: { text: "ok" } } },
    },
  });
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "turnEnded", value: { inputTokens: 900n, outputTokens: 3n } } },
    },
  });
  server.emit({
    message: {
      case: "conversationCheckpointUpdate",
      value: {
        tokenDetails: {
          usedTokens: 1_200,
          maxTokens: 200_000,
          breakdown: {
            totalUsedTokens: 1_000,
            categories: [
              { id: "system_prompt", label: "System prompt", estimatedTokens: 600 },
              { id: "rules", label: "Rules", estimatedTokens: 0 },
              { id: "conversation", label: "Conversation", estimatedTokens: 400 },
            ],
          },
        },
      },
    },
  });
  server.end();
}

describe("context lines", () => {
  it("warns when Cursor counted rules=0 although the Run sent its rule, and marks a stale breakdown", async () => {
    const transport = createScriptedTransport(replyWithoutRules);
    const { logger, lines } = createMemoryLogger();
    const cursor = createCursor({
      accessToken: "test-token",
      agentBaseURL: "https://agent.cursor.sh",
      machineId: "a".repeat(64),
      transport,
      debug: logger,
    });
    const result = streamText({
      model: cursor("composer-2"),
      system: "Be brief.",
      prompt: "Hi",
      providerOptions: { cursor: { sessionId: "ses_rules" } },
    });
    await result.text;
    const metadata = (await result.providerMetadata)?.cursor as Record<string, unknown>;
    assert.equal(metadata.categories, null, "a stale breakdown is not shown as current");
    assert.ok(
      lines.includes(
        "context warning: Cursor counted rules=0 although this Run sent the 9-character system-instructions rule sessionKey=ses_rules conversationId=" +
          (/conversationId=(\S+)/.exec(lines.find((l) => l.startsWith("outbound Run:")) ?? "")
            ?.[1] ?? ""),
      ),
      lines.join("\n"),
    );
    const validation = lines.find((l) => l.startsWith("turn usage validation:")) ?? "";
    assert.match(validation, /status=ok .*breakdownMatch=stale usage=request$/);
  });
});
