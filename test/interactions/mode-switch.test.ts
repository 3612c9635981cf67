/**
 * Cursor's mode as the provider keeps it between messages: an approved SwitchMode sets the
 * mode the next user message is sent in (plan, then agent again); a switch shown without a
 * query (a display-only tool call, as a discovery listing SwitchMode would be) changes
 * nothing.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, type ModelMessage, stepCountIs, streamText } from "ai";
import { createCursor } from "../../mod.ts";
import { AgentMode } from "../../src/gen/agent/v1/common_pb.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { createScriptedTransport, finishWithText } from "../support/scripted-transport.ts";
import { questionTool, writeTool } from "./host-tools.ts";

describe("Cursor's mode between messages", () => {
  it("sends the next message in the mode an approved switch names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-mode-"));
    try {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, "sse", { workspace: { workspaceRoot: dir } });
        const history: ModelMessage[] = [];
        const say = async (text: string) => {
          history.push({ role: "user", content: text });
          const result = streamText({
            model: cursor("gpt-5"),
            messages: history,
            tools: { write: writeTool(), question: questionTool(() => ["Yes"]) },
            stopWhen: stepCountIs(6),
            providerOptions: { cursor: { sessionId: "ses_mode1" } },
          });
          await result.text;
          history.push(...(await result.response).messages);
        };
        await say("::mode plan think first");
        await say("::write a.txt early");
        assert.equal(existsSync(join(dir, "a.txt")), false, "no file changes in plan mode");
        assert.equal(emulator.runs().at(-1)?.mode, "plan");
        await say("::mode agent build now");
        await say("::write b.txt built");
        assert.equal(existsSync(join(dir, "b.txt")), true);
        assert.deepEqual(emulator.runs().map((run) => run.mode), [
          "plan",
          "plan",
          "agent",
          "agent",
        ]);
        assert.deepEqual(emulator.violations(), []);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("does not switch for a SwitchMode that is only shown (no query was answered)", async () => {
    const transport = createScriptedTransport(async (server) => {
      await server.next((m) => m.message.case === "runRequest");
      server.emit({
        message: {
          case: "execServerMessage",
          value: { id: 0, message: { case: "requestContextArgs", value: {} } },
        },
      });
      await server.next((m) => m.message.case === "execClientMessage");
      for (const kind of ["toolCallStarted", "toolCallCompleted"] as const) {
        server.emit({
          message: {
            case: "interactionUpdate",
            value: {
              message: {
                case: kind,
                value: {
                  callId: "t1",
                  toolCall: { tool: { case: "switchModeToolCall", value: {} } },
                },
              },
            },
          },
        });
      }
      finishWithText(server, "Listed the tools.");
    });
    const cursor = createCursor({
      accessToken: "test-token",
      agentBaseURL: "https://agent.cursor.sh",
      machineId: "a".repeat(64),
      transport,
    });
    const session = { providerOptions: { cursor: { sessionId: "ses_mode2" } } };
    await generateText({ model: cursor("composer-2"), prompt: "What can you do?", ...session });
    await generateText({
      model: cursor("composer-2"),
      messages: [
        { role: "user", content: "What can you do?" },
        { role: "assistant", content: "Listed the tools." },
        { role: "user", content: "Go on" },
      ],
      ...session,
    });
    const modes = transport.runs.map(({ server }) => {
      const first = server.received[0]?.message;
      const action = first?.case === "runRequest" ? first.value.action?.action : undefined;
      return action?.case === "userMessageAction" ? action.value.userMessage?.mode : undefined;
    });
    assert.deepEqual(modes, [AgentMode.AGENT, AgentMode.AGENT]);
  });
});
