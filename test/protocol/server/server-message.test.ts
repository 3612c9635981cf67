/**
 * The typed view of server messages: one case per view kind, and unknown cases at every
 * level. Long because it is an exhaustive table of kinds; kept in one file so a new kind
 * that lacks a case stands out.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { ThinkingStyle } from "../../../src/gen/agent/v1/interaction_update_pb.ts";
import { AgentServerMessageSchema } from "../../../src/gen/agent/v1/server_message_pb.ts";
import { classifyServerMessage } from "../../../src/protocol/server/server-message.ts";
import type { ServerMessageView } from "../../../src/protocol/server/server-message-view.ts";

type ServerInit = MessageInitShape<typeof AgentServerMessageSchema>;
type UpdateInit = NonNullable<
  Extract<NonNullable<ServerInit["message"]>, { case: "interactionUpdate" }>["value"]["message"]
>;

/** Encodes and decodes like the wire would, then classifies. */
function classify(init: ServerInit): ServerMessageView {
  const bytes = toBinary(AgentServerMessageSchema, create(AgentServerMessageSchema, init));
  return classifyServerMessage(fromBinary(AgentServerMessageSchema, bytes));
}

function classifyUpdate(message: UpdateInit): ServerMessageView {
  return classify({ message: { case: "interactionUpdate", value: { message } } });
}

function classifyBytes(bytes: Uint8Array): ServerMessageView {
  return classifyServerMessage(fromBinary(AgentServerMessageSchema, bytes));
}

/** Builds AgentServerMessage bytes: `body` writes inside field `outerField` of the envelope. */
function envelopeBytes(outerField: number, body: (writer: BinaryWriter) => void): Uint8Array {
  const writer = new BinaryWriter();
  writer.tag(outerField, WireType.LengthDelimited).fork();
  body(writer);
  writer.join();
  return writer.finish();
}

function isKind<Kind extends ServerMessageView["kind"]>(
  view: ServerMessageView,
  kind: Kind,
): view is Extract<ServerMessageView, { kind: Kind }> {
  return view.kind === kind;
}

function assertKind<Kind extends ServerMessageView["kind"]>(
  view: ServerMessageView,
  kind: Kind,
): Extract<ServerMessageView, { kind: Kind }> {
  if (!isKind(view, kind)) assert.fail(`Expected kind "${kind}", got "${view.kind}"`);
  return view;
}

/** Every kind; `satisfies` fails to compile when a kind is added without a test entry. */
const ALL_KINDS = {
  "text-delta": true,
  "thinking-delta": true,
  "thinking-completed": true,
  "tool-call-partial": true,
  "tool-call-started": true,
  "tool-call-delta": true,
  "tool-call-completed": true,
  "token-delta": true,
  "step-started": true,
  "step-completed": true,
  "user-message-appended": true,
  "summary-started": true,
  "summary": true,
  "summary-completed": true,
  "shell-output-delta": true,
  "heartbeat": true,
  "turn-ended": true,
  "prompt-suggestion": true,
  "post-request-prompt": true,
  "active-branch-change": true,
  "feedback-request": true,
  "response-comparison": true,
  "context-injection-state": true,
  "routed-model": true,
  "exec-request": true,
  "exec-abort": true,
  "kv-get-blob": true,
  "kv-set-blob": true,
  "checkpoint": true,
  "interaction-query": true,
  "ttft-breakdown": true,
  "unknown": true,
} as const satisfies Record<ServerMessageView["kind"], true>;

/** An exhaustive switch, as the session layer writes it; compiles only if every kind is handled. */
function label(view: ServerMessageView): string {
  switch (view.kind) {
    case "text-delta":
    case "thinking-delta":
      return `${view.kind}:${view.text}`;
    case "thinking-completed":
    case "tool-call-partial":
    case "tool-call-started":
    case "tool-call-delta":
    case "tool-call-completed":
    case "token-delta":
    case "step-started":
    case "step-completed":
    case "user-message-appended":
    case "summary-started":
    case "summary":
    case "summary-completed":
    case "shell-output-delta":
    case "heartbeat":
    case "turn-ended":
    case "prompt-suggestion":
    case "post-request-prompt":
    case "active-branch-change":
    case "feedback-request":
    case "response-comparison":
    case "context-injection-state":
    case "routed-model":
    case "exec-request":
    case "exec-abort":
    case "kv-get-blob":
    case "kv-set-blob":
    case "checkpoint":
    case "interaction-query":
    case "ttft-breakdown":
      return view.kind;
    case "unknown":
      return `unknown:${view.where}`;
    default: {
      const unhandled: never = view;
      return String(unhandled);
    }
  }
}

const BLOB_ID = new Uint8Array(32).fill(3);

describe("classifyServerMessage: interaction updates", () => {
  it("classifies text and thinking", () => {
    const text = assertKind(
      classifyUpdate({ case: "textDelta", value: { text: "Hi", isServerNotice: true } }),
      "text-delta",
    );
    assert.deepEqual(text, { kind: "text-delta", text: "Hi", isServerNotice: true });

    const thinking = assertKind(
      classifyUpdate({
        case: "thinkingDelta",
        value: { text: "hmm", thinkingStyle: ThinkingStyle.CODEX },
      }),
      "thinking-delta",
    );
    assert.equal(thinking.thinkingStyle, ThinkingStyle.CODEX);
    const plain = assertKind(
      classifyUpdate({ case: "thinkingDelta", value: { text: "x" } }),
      "thinking-delta",
    );
    assert.equal(plain.thinkingStyle, undefined);

    const done = assertKind(
      classifyUpdate({ case: "thinkingCompleted", value: { thinkingDurationMs: 840 } }),
      "thinking-completed",
    );
    assert.equal(done.thinkingDurationMs, 840);
  });

  it("classifies the tool-call lifecycle", () => {
    const toolCall = {
      toolCallId: "call-1\nfc_1",
      tool: {
        case: "mcpToolCall" as const,
        value: { args: { name: "opencode-bash", toolName: "bash", toolCallId: "call-1\nfc_1" } },
      },
    };
    const partial = assertKind(
      classifyUpdate({
        case: "partialToolCall",
        value: {
          callId: "call-1\nfc_1",
          modelCallId: "m",
          argsTextDelta: '{"cmd"',
          toolCall: { tool: { case: "shellToolCall", value: {} } },
        },
      }),
      "tool-call-partial",
    );
    assert.equal(partial.argsTextDelta, '{"cmd"');
    assert.equal(partial.tool?.case, "shellToolCall");

    const started = assertKind(
      classifyUpdate({
        case: "toolCallStarted",
        value: { callId: "call-1\nfc_1", modelCallId: "m", toolCall },
      }),
      "tool-call-started",
    );
    assert.equal(started.callId, "call-1\nfc_1");
    assert.equal(started.modelCallId, "m");
    assert.equal(started.tool?.case, "mcpToolCall");
    if (started.tool?.case === "mcpToolCall") {
      assert.equal(started.tool.value.args?.toolName, "bash");
    }

    const delta = assertKind(
      classifyUpdate({
        case: "toolCallDelta",
        value: {
          callId: "call-1\nfc_1",
          modelCallId: "m",
          toolCallDelta: {
            delta: {
              case: "shellToolCallDelta",
              value: { delta: { case: "stdout", value: { content: "42\n" } } },
            },
          },
        },
      }),
      "tool-call-delta",
    );
    assert.equal(delta.delta.case, "shellToolCallDelta");

    const completed = assertKind(
      classifyUpdate({
        case: "toolCallCompleted",
        value: { callId: "call-1\nfc_1", modelCallId: "m", toolCall },
      }),
      "tool-call-completed",
    );
    assert.equal(completed.toolCall?.toolCallId, "call-1\nfc_1");

    const bare = assertKind(
      classifyUpdate({ case: "toolCallStarted", value: { callId: "c" } }),
      "tool-call-started",
    );
    assert.equal(bare.toolCall, undefined);
    assert.equal(bare.tool, undefined);
  });

  it("classifies counters, steps and summaries", () => {
    assert.deepEqual(classifyUpdate({ case: "tokenDelta", value: { tokens: 6 } }), {
      kind: "token-delta",
      tokens: 6,
    });
    assert.deepEqual(classifyUpdate({ case: "stepStarted", value: { stepId: 1n } }), {
      kind: "step-started",
      stepId: 1,
    });
    assert.deepEqual(
      classifyUpdate({ case: "stepCompleted", value: { stepId: 66n, stepDurationMs: 1500n } }),
      { kind: "step-completed", stepId: 66, stepDurationMs: 1500 },
    );
    assert.deepEqual(classifyUpdate({ case: "summaryStarted", value: {} }), {
      kind: "summary-started",
    });
    assert.deepEqual(classifyUpdate({ case: "summary", value: { summary: "short" } }), {
      kind: "summary",
      summary: "short",
    });
    assert.deepEqual(classifyUpdate({ case: "summaryCompleted", value: {} }), {
      kind: "summary-completed",
      hookMessage: undefined,
    });
    const appended = assertKind(
      classifyUpdate({ case: "userMessageAppended", value: { userMessage: { text: "queued" } } }),
      "user-message-appended",
    );
    assert.equal(appended.userMessage?.text, "queued");
  });

  it("classifies turn_ended with all five counters (field 4 is cache write)", () => {
    const view = classifyUpdate({
      case: "turnEnded",
      value: {
        inputTokens: 18_234n,
        outputTokens: 212n,
        cacheReadTokens: 15_360n,
        cacheWriteTokens: 1_639n,
        reasoningTokens: 96n,
      },
    });
    assert.deepEqual(view, {
      kind: "turn-ended",
      counters: {
        inputTokens: 18_234,
        outputTokens: 212,
        cacheReadTokens: 15_360,
        cacheWriteTokens: 1_639,
        reasoningTokens: 96,
      },
    });
    const sparse = assertKind(
      classifyUpdate({ case: "turnEnded", value: { outputTokens: 5n } }),
      "turn-ended",
    );
    assert.deepEqual(sparse.counters, {
      inputTokens: undefined,
      outputTokens: 5,
      cacheReadTokens: undefined,
      cacheWriteTokens: undefined,
      reasoningTokens: undefined,
    });
  });

  it("classifies heartbeats, shell output and the optional updates", () => {
    assert.deepEqual(classifyUpdate({ case: "heartbeat", value: {} }), { kind: "heartbeat" });
    const shell = assertKind(
      classifyUpdate({
        case: "shellOutputDelta",
        value: { event: { case: "exit", value: { code: 1, cwd: "/ws" } } },
      }),
      "shell-output-delta",
    );
    assert.equal(shell.event.case, "exit");
    assert.deepEqual(classifyUpdate({ case: "promptSuggestion", value: { suggestion: "Next" } }), {
      kind: "prompt-suggestion",
      suggestion: "Next",
    });
    assert.deepEqual(
      classifyUpdate({
        case: "postRequestPrompt",
        value: { title: "t", message: "m", buttonLabel: "b", buttonUrl: "u" },
      }),
      { kind: "post-request-prompt", title: "t", message: "m", buttonLabel: "b", buttonUrl: "u" },
    );
    assert.deepEqual(
      classifyUpdate({ case: "activeBranchChange", value: { path: "/ws", branchName: "main" } }),
      { kind: "active-branch-change", path: "/ws", branchName: "main" },
    );
    assert.deepEqual(classifyUpdate({ case: "feedbackRequest", value: {} }), {
      kind: "feedback-request",
    });
    assert.deepEqual(classifyUpdate({ case: "responseComparison", value: {} }), {
      kind: "response-comparison",
    });
    assert.deepEqual(
      classifyUpdate({
        case: "contextInjectionState",
        value: { injectionId: "i", state: { state: { case: "delivered", value: { step: 2 } } } },
      }),
      { kind: "context-injection-state", injectionId: "i", state: "delivered" },
    );
    assert.deepEqual(classifyUpdate({ case: "routedModel", value: { displayName: "Model" } }), {
      kind: "routed-model",
      displayName: "Model",
    });
  });
});

describe("classifyServerMessage: requests that need an answer", () => {
  it("classifies exec requests with their id and exec id", () => {
    const read = assertKind(
      classify({
        message: {
          case: "execServerMessage",
          value: {
            id: 3,
            execId: "attach-1",
            message: { case: "readArgs", value: { path: "/ws/a.ts", toolCallId: "t" } },
          },
        },
      }),
      "exec-request",
    );
    assert.equal(read.id, 3);
    assert.equal(read.execId, "attach-1");
    assert.equal(read.request.case, "readArgs");
    if (read.request.case === "readArgs") assert.equal(read.request.value.path, "/ws/a.ts");

    const setup = assertKind(
      classify({
        message: {
          case: "execServerMessage",
          value: { message: { case: "requestContextArgs", value: {} } },
        },
      }),
      "exec-request",
    );
    assert.equal(setup.id, 0);
    assert.equal(setup.request.case, "requestContextArgs");
  });

  it("classifies exec aborts", () => {
    assert.deepEqual(
      classify({
        message: {
          case: "execServerControlMessage",
          value: { message: { case: "abort", value: { id: 9 } } },
        },
      }),
      { kind: "exec-abort", id: 9 },
    );
  });

  it("classifies KV get and set", () => {
    assert.deepEqual(
      classify({
        message: {
          case: "kvServerMessage",
          value: { id: 2, message: { case: "getBlobArgs", value: { blobId: BLOB_ID } } },
        },
      }),
      { kind: "kv-get-blob", id: 2, blobId: BLOB_ID },
    );
    const data = new TextEncoder().encode('{"role":"system"}');
    assert.deepEqual(
      classify({
        message: {
          case: "kvServerMessage",
          value: { message: { case: "setBlobArgs", value: { blobId: BLOB_ID, blobData: data } } },
        },
      }),
      { kind: "kv-set-blob", id: 0, blobId: BLOB_ID, blobData: data },
    );
  });

  it("classifies interaction queries", () => {
    const query = assertKind(
      classify({
        message: {
          case: "interactionQuery",
          value: {
            id: 1,
            query: {
              case: "webSearchRequestQuery",
              value: { args: { searchTerm: "protobuf", toolCallId: "t" } },
            },
          },
        },
      }),
      "interaction-query",
    );
    assert.equal(query.id, 1);
    assert.equal(query.query.case, "webSearchRequestQuery");
  });
});

describe("classifyServerMessage: state and extras", () => {
  it("classifies checkpoints", () => {
    const checkpoint = assertKind(
      classify({
        message: {
          case: "conversationCheckpointUpdate",
          value: {
            turns: [BLOB_ID],
            tokenDetails: {
              usedTokens: 1000,
              maxTokens: 200_000,
              breakdown: { categories: [{ id: "tools", estimatedTokens: 400 }] },
            },
          },
        },
      }),
      "checkpoint",
    );
    assert.equal(checkpoint.state.tokenDetails?.usedTokens, 1000);
    assert.equal(checkpoint.state.tokenDetails?.breakdown?.categories[0]?.id, "tools");
  });

  it("classifies a lone ttft breakdown and ignores one riding along", () => {
    const ttft = assertKind(
      classify({ ttftBreakdown: { serverFirstTokenMs: 120.5 } }),
      "ttft-breakdown",
    );
    assert.equal(ttft.breakdown.serverFirstTokenMs, 120.5);
    const alongside = classify({
      message: { case: "interactionUpdate", value: { message: { case: "heartbeat", value: {} } } },
      ttftBreakdown: { serverFirstTokenMs: 1 },
    });
    assert.equal(alongside.kind, "heartbeat");
  });
});

describe("classifyServerMessage: unknown cases", () => {
  it("reports an unknown envelope case with its field number", () => {
    const writer = new BinaryWriter();
    writer.tag(99, WireType.LengthDelimited).string("from a newer server");
    const view = assertKind(classifyBytes(writer.finish()), "unknown");
    assert.equal(view.where, "AgentServerMessage.message");
    assert.deepEqual(view.unknownFieldNumbers, [99]);
    assert.equal(view.awaitedReply, undefined);
    assert.match(view.detail, /unknown field numbers: 99/);
  });

  it("reports an empty envelope", () => {
    const view = assertKind(classifyServerMessage(create(AgentServerMessageSchema)), "unknown");
    assert.equal(view.where, "AgentServerMessage.message");
    assert.deepEqual(view.unknownFieldNumbers, []);
    assert.equal(view.detail, 'No case of "AgentServerMessage.message" is set');
  });

  it("reports an unknown interaction update", () => {
    const bytes = envelopeBytes(1, (writer) => writer.tag(40, WireType.Varint).uint32(1));
    const view = assertKind(classifyBytes(bytes), "unknown");
    assert.equal(view.where, "InteractionUpdate.message");
    assert.deepEqual(view.unknownFieldNumbers, [40]);
    assert.equal(view.awaitedReply, undefined);
  });

  it("reports an unknown exec request together with the id to refuse", () => {
    const bytes = envelopeBytes(2, (writer) => {
      writer.tag(1, WireType.Varint).uint32(7);
      writer.tag(999, WireType.LengthDelimited).bytes(new Uint8Array(0));
    });
    const view = assertKind(classifyBytes(bytes), "unknown");
    assert.equal(view.where, "ExecServerMessage.message");
    assert.deepEqual(view.unknownFieldNumbers, [999]);
    assert.deepEqual(view.awaitedReply, { channel: "exec", id: 7 });
  });

  it("reports an unknown exec control message", () => {
    const bytes = envelopeBytes(5, (writer) => {
      writer.tag(2, WireType.LengthDelimited).fork();
      writer.tag(1, WireType.Varint).uint32(3);
      writer.join();
    });
    const view = assertKind(classifyBytes(bytes), "unknown");
    assert.equal(view.where, "ExecServerControlMessage.message");
    assert.deepEqual(view.unknownFieldNumbers, [2]);
  });

  it("reports an unknown KV request together with its id", () => {
    const bytes = envelopeBytes(4, (writer) => {
      writer.tag(1, WireType.Varint).uint32(2);
      writer.tag(9, WireType.LengthDelimited).string("unknown request");
    });
    const view = assertKind(classifyBytes(bytes), "unknown");
    assert.equal(view.where, "KvServerMessage.message");
    assert.deepEqual(view.awaitedReply, { channel: "kv", id: 2 });
  });

  it("reports an unknown interaction query together with its id", () => {
    const bytes = envelopeBytes(7, (writer) => {
      writer.tag(1, WireType.Varint).uint32(5);
      writer.tag(15, WireType.LengthDelimited).bytes(new Uint8Array(0));
    });
    const view = assertKind(classifyBytes(bytes), "unknown");
    assert.equal(view.where, "InteractionQuery.query");
    assert.deepEqual(view.unknownFieldNumbers, [15]);
    assert.deepEqual(view.awaitedReply, { channel: "interaction", id: 5 });
  });

  it("reports an unknown tool-call delta and an unknown shell event", () => {
    const delta = envelopeBytes(1, (writer) => {
      writer.tag(15, WireType.LengthDelimited).fork();
      writer.tag(1, WireType.LengthDelimited).string("call-1");
      writer.tag(2, WireType.LengthDelimited).fork();
      writer.tag(9, WireType.LengthDelimited).bytes(new Uint8Array(0));
      writer.join();
      writer.join();
    });
    const deltaView = assertKind(classifyBytes(delta), "unknown");
    assert.equal(deltaView.where, "ToolCallDelta.delta");
    assert.deepEqual(deltaView.unknownFieldNumbers, [9]);

    const shell = envelopeBytes(1, (writer) => {
      writer.tag(12, WireType.LengthDelimited).fork();
      writer.tag(5, WireType.LengthDelimited).bytes(new Uint8Array(0));
      writer.join();
    });
    const shellView = assertKind(classifyBytes(shell), "unknown");
    assert.equal(shellView.where, "ShellOutputDeltaUpdate.event");
    assert.deepEqual(shellView.unknownFieldNumbers, [5]);
  });

  it("keeps a tool call with an unknown variant correlated by call id", () => {
    const bytes = envelopeBytes(1, (writer) => {
      writer.tag(2, WireType.LengthDelimited).fork(); // tool_call_started
      writer.tag(1, WireType.LengthDelimited).string("call-9");
      writer.tag(2, WireType.LengthDelimited).fork(); // tool_call
      writer.tag(99, WireType.LengthDelimited).bytes(new Uint8Array(0));
      writer.join();
      writer.join();
    });
    const view = assertKind(classifyBytes(bytes), "tool-call-started");
    assert.equal(view.callId, "call-9");
    assert.equal(view.tool, undefined);
    assert.deepEqual(view.toolCall?.$unknown?.map((field) => field.no), [99]);
  });
});

describe("classifyServerMessage: contract", () => {
  it("produces every kind, and an exhaustive switch handles each", () => {
    const views = [
      classifyUpdate({ case: "textDelta", value: { text: "a" } }),
      classifyUpdate({ case: "thinkingDelta", value: { text: "b" } }),
      classifyUpdate({ case: "thinkingCompleted", value: {} }),
      classifyUpdate({ case: "partialToolCall", value: {} }),
      classifyUpdate({ case: "toolCallStarted", value: {} }),
      classifyUpdate({
        case: "toolCallDelta",
        value: {
          toolCallDelta: {
            delta: { case: "editToolCallDelta", value: { streamContentDelta: "x" } },
          },
        },
      }),
      classifyUpdate({ case: "toolCallCompleted", value: {} }),
      classifyUpdate({ case: "tokenDelta", value: {} }),
      classifyUpdate({ case: "stepStarted", value: {} }),
      classifyUpdate({ case: "stepCompleted", value: {} }),
      classifyUpdate({ case: "userMessageAppended", value: {} }),
      classifyUpdate({ case: "summaryStarted", value: {} }),
      classifyUpdate({ case: "summary", value: {} }),
      classifyUpdate({ case: "summaryCompleted", value: {} }),
      classifyUpdate({
        case: "shellOutputDelta",
        value: { event: { case: "start", value: {} } },
      }),
      classifyUpdate({ case: "heartbeat", value: {} }),
      classifyUpdate({ case: "turnEnded", value: {} }),
      classifyUpdate({ case: "promptSuggestion", value: {} }),
      classifyUpdate({ case: "postRequestPrompt", value: {} }),
      classifyUpdate({ case: "activeBranchChange", value: {} }),
      classifyUpdate({ case: "feedbackRequest", value: {} }),
      classifyUpdate({ case: "responseComparison", value: {} }),
      classifyUpdate({ case: "contextInjectionState", value: {} }),
      classifyUpdate({ case: "routedModel", value: {} }),
      classify({
        message: {
          case: "execServerMessage",
          value: { message: { case: "lsArgs", value: { path: "/" } } },
        },
      }),
      classify({
        message: {
          case: "execServerControlMessage",
          value: { message: { case: "abort", value: {} } },
        },
      }),
      classify({
        message: {
          case: "kvServerMessage",
          value: { message: { case: "getBlobArgs", value: {} } },
        },
      }),
      classify({
        message: {
          case: "kvServerMessage",
          value: { message: { case: "setBlobArgs", value: {} } },
        },
      }),
      classify({ message: { case: "conversationCheckpointUpdate", value: {} } }),
      classify({
        message: {
          case: "interactionQuery",
          value: { query: { case: "switchModeRequestQuery", value: {} } },
        },
      }),
      classify({ ttftBreakdown: {} }),
      classify({}),
    ];
    const kinds = new Set(views.map((view) => view.kind));
    assert.deepEqual([...kinds].sort(), Object.keys(ALL_KINDS).sort());
    for (const view of views) assert.ok(label(view).length > 0);
  });

  it("is pure: same input, same output, input untouched", () => {
    const message = create(AgentServerMessageSchema, {
      message: {
        case: "kvServerMessage",
        value: { id: 1, message: { case: "setBlobArgs", value: { blobId: BLOB_ID } } },
      },
    });
    const before = toBinary(AgentServerMessageSchema, message);
    assert.deepEqual(classifyServerMessage(message), classifyServerMessage(message));
    assert.deepEqual(toBinary(AgentServerMessageSchema, message), before);
  });
});
