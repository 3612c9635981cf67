import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { createCursor } from "../../mod.ts";
import type { AgentClientMessage } from "../../src/gen/agent/v1/client_message_pb.ts";
import { create, toBinary } from "@bufbuild/protobuf";
import { TodoItemSchema, TodoStatus } from "../../src/gen/agent/v1/common_pb.ts";
import {
  createScriptedTransport,
  finishWithText,
  type ScriptedServer,
} from "../support/scripted-transport.ts";

const base = {
  accessToken: "t",
  agentBaseURL: "https://agent.cursor.sh",
  machineId: "b".repeat(64),
} as const;

/** A host bash tool that really runs the command (like OpenCode's, output combined). */
const bash = tool({
  description: "Run a shell command",
  inputSchema: jsonSchema<{ command: string; workdir?: string; description?: string }>({
    type: "object",
    properties: {
      command: { type: "string" },
      workdir: { type: "string" },
      description: { type: "string" },
    },
    required: ["command"],
  }),
  execute: ({ command }) => {
    const run = spawnSync("sh", ["-c", command], { encoding: "utf8", timeout: 10_000 });
    return (run.stdout ?? "") + (run.stderr ?? "");
  },
});

async function execAnswer(server: ScriptedServer, id: number): Promise<AgentClientMessage[]> {
  const frames: AgentClientMessage[] = [];
  for (;;) {
    const message = await server.next((m) =>
      m.message.case === "execClientMessage" || m.message.case === "execClientControlMessage"
    );
    frames.push(message);
    if (
      message.message.case === "execClientControlMessage" &&
      message.message.value.message.case === "streamClose" &&
      message.message.value.message.value.id === id
    ) {
      return frames;
    }
  }
}

function shellExit(frames: AgentClientMessage[]): { code: number; stdout: string } {
  let code = -1;
  let stdout = "";
  for (const frame of frames) {
    if (frame.message.case !== "execClientMessage") continue;
    const m = frame.message.value.message;
    if (m.case !== "shellStream") continue;
    if (m.value.event.case === "stdout") stdout += m.value.event.value.data;
    if (m.value.event.case === "exit") code = m.value.event.value.code;
  }
  return { code, stdout };
}

async function shellTurn(
  server: ScriptedServer,
  command: string,
  seen: { code: number; stdout: string }[],
): Promise<void> {
  await server.next((m) => m.message.case === "runRequest");
  server.emit({
    message: {
      case: "execServerMessage",
      value: { id: 0, message: { case: "requestContextArgs", value: {} } },
    },
  });
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "textDelta", value: { text: "Running it. " } } },
    },
  });
  server.emit({
    message: {
      case: "execServerMessage",
      value: {
        id: 1,
        message: {
          case: "shellStreamArgs",
          value: { command, workingDirectory: "", toolCallId: "call-1", timeout: 30000 },
        },
      },
    },
  });
  const result = shellExit(await execAnswer(server, 1));
  seen.push(result);
  server.emit({
    message: {
      case: "interactionUpdate",
      value: {
        message: {
          case: "textDelta",
          value: { text: `Exit ${result.code}: ${result.stdout.trim()}` },
        },
      },
    },
  });
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "turnEnded", value: { inputTokens: 100n, outputTokens: 10n } } },
    },
  });
  server.emit({
    message: {
      case: "conversationCheckpointUpdate",
      value: { tokenDetails: { usedTokens: 500, maxTokens: 200000 } },
    },
  });
  server.end();
}

describe("exec bridge over a held Run", () => {
  it("runs Cursor's shell request as the host's bash tool and continues on the same Run", async () => {
    const seen: { code: number; stdout: string }[] = [];
    const transport = createScriptedTransport((server) =>
      shellTurn(server, "echo hello && exit 3", seen)
    );
    const cursor = createCursor({ ...base, transport });
    const result = streamText({
      model: cursor("composer-2"),
      prompt: "run it",
      tools: { bash },
      stopWhen: stepCountIs(4),
      providerOptions: { cursor: { sessionId: "ses_tools" } },
    });
    const text = await result.text;
    assert.equal(transport.runs.length, 1, "the tool result went back on the same Run");
    assert.deepEqual(seen, [{ code: 3, stdout: "hello\n" }]);
    assert.match(text, /Exit 3: hello/);
    const steps = await result.steps;
    assert.equal(steps[0]?.finishReason, "tool-calls");
    assert.equal(steps.at(-1)?.finishReason, "stop");
  });

  it("refuses an exec for a tool the host did not offer, with a typed rejection", async () => {
    let refusal: AgentClientMessage | undefined;
    const transport = createScriptedTransport(async (server) => {
      await server.next((m) => m.message.case === "runRequest");
      server.emit({
        message: {
          case: "execServerMessage",
          value: {
            id: 4,
            message: { case: "deleteArgs", value: { path: "/etc/passwd", toolCallId: "d" } },
          },
        },
      });
      refusal = await server.next((m) => m.message.case === "execClientMessage");
      await server.next((m) => m.message.case === "execClientControlMessage");
      finishWithText(server, "ok");
    });
    const cursor = createCursor({ ...base, transport });
    const result = streamText({ model: cursor("composer-2"), prompt: "x", tools: {} });
    assert.equal(await result.text, "ok");
    assert.equal(refusal?.message.case, "execClientMessage");
    if (refusal?.message.case !== "execClientMessage") return;
    assert.equal(refusal.message.value.id, 4);
    assert.equal(refusal.message.value.message.case, "deleteResult");
    assert.equal(
      refusal.message.value.message.case === "deleteResult" &&
        refusal.message.value.message.value.result.case,
      "rejected",
    );
  });

  it("continues the next user turn warm on the same conversation with the checkpoint", async () => {
    const checkpoints: Uint8Array[] = [];
    let turn = 0;
    const transport = createScriptedTransport(async (server) => {
      const first = await server.next((m) => m.message.case === "runRequest");
      if (first.message.case === "runRequest") {
        checkpoints.push(new Uint8Array(first.message.value.conversationState ? 1 : 0));
      }
      turn++;
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "textDelta", value: { text: `answer ${turn}` } } },
        },
      });
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "turnEnded", value: { inputTokens: 10n } } },
        },
      });
      server.emit({
        message: {
          case: "conversationCheckpointUpdate",
          value: {
            summary: new Uint8Array([turn]),
            tokenDetails: { usedTokens: 100 * turn, maxTokens: 1000 },
          },
        },
      });
      server.end();
    });
    const cursor = createCursor({ ...base, transport });
    const options = { providerOptions: { cursor: { sessionId: "ses_warm" } } };
    const one = await streamText({ model: cursor("composer-2"), prompt: "first", ...options }).text;
    const two = await streamText({
      model: cursor("composer-2"),
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: one },
        { role: "user", content: "second" },
      ],
      ...options,
    }).text;
    assert.equal(two, "answer 2");
    const [a, b] = transport.runs.map((r) => r.server.received[0]);
    assert.ok(a?.message.case === "runRequest" && b?.message.case === "runRequest");
    if (a?.message.case !== "runRequest" || b?.message.case !== "runRequest") return;
    assert.equal(
      b.message.value.conversationId,
      a.message.value.conversationId,
      "same conversation id",
    );
    assert.deepEqual(
      b.message.value.conversationState?.summary,
      new Uint8Array([1]),
      "the first turn's checkpoint is sent back",
    );
    const action = b.message.value.action?.action;
    assert.ok(action?.case === "userMessageAction");
    if (action?.case !== "userMessageAction") return;
    assert.equal(action.value.userMessage?.text, "second", "only the new user message is sent");
  });

  it("keeps a held Run through a title-generation call in the same session", async () => {
    const seen: { code: number; stdout: string }[] = [];
    let titleRuns = 0;
    const transport = createScriptedTransport(async (server) => {
      const first = await server.next((m) => m.message.case === "runRequest");
      const isTitle = first.message.case === "runRequest" &&
        first.message.value.action?.action.case === "userMessageAction" &&
        first.message.value.action.action.value.requestContext?.rules[0]?.content.includes(
          "title generator",
        );
      if (isTitle) {
        titleRuns++;
        server.emit({
          message: {
            case: "interactionUpdate",
            value: { message: { case: "textDelta", value: { text: "A title" } } },
          },
        });
        server.emit({
          message: {
            case: "interactionUpdate",
            value: { message: { case: "turnEnded", value: {} } },
          },
        });
        server.end();
        return;
      }
      server.emit({
        message: {
          case: "execServerMessage",
          value: {
            id: 1,
            message: { case: "shellStreamArgs", value: { command: "echo held", toolCallId: "c" } },
          },
        },
      });
      const result = shellExit(await execAnswer(server, 1));
      seen.push(result);
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "textDelta", value: { text: `got ${result.stdout.trim()}` } } },
        },
      });
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "turnEnded", value: {} } },
        },
      });
      server.end();
    });
    const cursor = createCursor({ ...base, transport });
    const headers = { "x-session-affinity": "ses_title" };
    const model = cursor("composer-2");
    const first = await model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
      tools: [bashDefinition],
      headers,
    });
    const parts = await drain(first.stream);
    const call = parts.find((p) => p.type === "tool-call");
    assert.ok(call && call.type === "tool-call");
    if (!call || call.type !== "tool-call") return;
    const title = await streamText({
      model,
      system: "You are a title generator. Output only a title.",
      prompt: "go",
      headers,
    }).text;
    assert.equal(title, "A title");
    const output = bash.execute
      ? await bash.execute(JSON.parse(call.input), { toolCallId: call.toolCallId, messages: [] })
      : "";
    const second = await model.doStream({
      prompt: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [{
            type: "tool-call",
            toolCallId: call.toolCallId,
            toolName: "bash",
            input: JSON.parse(call.input),
          }],
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: call.toolCallId,
            toolName: "bash",
            output: { type: "text", value: String(output) },
          }],
        },
      ],
      tools: [bashDefinition],
      headers,
    });
    const text = (await drain(second.stream)).flatMap((
      p,
    ) => (p.type === "text-delta" ? [p.delta] : [])).join("");
    assert.equal(text, "got held");
    assert.equal(titleRuns, 1);
    assert.equal(transport.runs.length, 2, "one main Run (held and resumed) and one title Run");
  });
});

describe("todos", () => {
  it("mirrors Cursor's todo list into the host's todowrite tool without answering Cursor", async () => {
    const items = [
      create(TodoItemSchema, { id: "t1", content: "Read the code", status: TodoStatus.COMPLETED }),
      create(TodoItemSchema, {
        id: "t2",
        content: "Write the fix",
        status: TodoStatus.IN_PROGRESS,
      }),
    ];
    const blobs = items.map((item) => toBinary(TodoItemSchema, item));
    const ids = await Promise.all(
      blobs.map(async (blob) => new Uint8Array(await crypto.subtle.digest("SHA-256", blob))),
    );
    const transport = createScriptedTransport(async (server) => {
      await server.next((m) => m.message.case === "runRequest");
      blobs.forEach((blob, i) => {
        server.emit({
          message: {
            case: "kvServerMessage",
            value: {
              id: i,
              message: {
                case: "setBlobArgs",
                value: { blobId: ids[i] ?? new Uint8Array(0), blobData: blob },
              },
            },
          },
        });
      });
      server.emit({ message: { case: "conversationCheckpointUpdate", value: { todos: ids } } });
      finishWithText(server, "Working on it.");
    });
    const written: unknown[] = [];
    const todowrite = tool({
      description: "Write todos",
      inputSchema: jsonSchema<{ todos: unknown[] }>({
        type: "object",
        properties: { todos: { type: "array" } },
        required: ["todos"],
      }),
      execute: (input) => {
        written.push(input);
        return "ok";
      },
    });
    const cursor = createCursor({ ...base, transport });
    const result = streamText({
      model: cursor("composer-2"),
      prompt: "fix it",
      tools: { todowrite },
      stopWhen: stepCountIs(4),
      providerOptions: { cursor: { sessionId: "ses_todo" } },
    });
    assert.equal(await result.text, "Working on it.");
    assert.deepEqual(written, [{
      todos: [
        { content: "Read the code", status: "completed", priority: "medium", id: "t1" },
        { content: "Write the fix", status: "in_progress", priority: "medium", id: "t2" },
      ],
    }]);
    assert.equal(transport.runs.length, 1, "the Run continued after the host updated its todos");
    const answers =
      transport.runs[0]?.server.received.filter((m) => m.message.case === "execClientMessage") ??
        [];
    assert.equal(answers.length, 0, "nothing was sent to Cursor for the display-only mirror");
  });
});

const bashDefinition = {
  type: "function" as const,
  name: "bash",
  inputSchema: { type: "object" as const, properties: { command: { type: "string" as const } } },
};

async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

describe("tool results whose Run is gone", () => {
  it("rebuilds the conversation with the results instead of dropping them", async () => {
    const texts: string[] = [];
    const transport = createScriptedTransport(async (server) => {
      const first = await server.next((m) => m.message.case === "runRequest");
      if (
        first.message.case === "runRequest" &&
        first.message.value.action?.action.case === "userMessageAction"
      ) {
        texts.push(first.message.value.action.action.value.userMessage?.text ?? "");
      }
      finishWithText(server, "continuing");
    });
    const cursor = createCursor({ ...base, transport });
    const { stream } = await cursor("composer-2").doStream({
      prompt: [
        { role: "user", content: [{ type: "text", text: "list the files" }] },
        {
          role: "assistant",
          content: [{
            type: "tool-call",
            toolCallId: "gone-1",
            toolName: "bash",
            input: { command: "ls" },
          }],
        },
        {
          role: "tool",
          content: [{
            type: "tool-result",
            toolCallId: "gone-1",
            toolName: "bash",
            output: { type: "text", value: "README.md\nsrc" },
          }],
        },
      ],
      tools: [bashDefinition],
    });
    for await (const _ of stream) { /* drain */ }
    assert.equal(texts.length, 1);
    assert.match(texts[0] ?? "", /list the files/);
    assert.match(texts[0] ?? "", /README\.md/, "the tool result reached the new Run");
    assert.match(texts[0] ?? "", /Continue the task/);
  });
});
