/**
 * Round trips for every message family of the wire schema. This file is long on purpose:
 * it is one table of hand-written samples per family (client/server envelopes, run request,
 * actions, interaction updates, the tool-call union, checkpoints, KV, every exec pair,
 * interaction queries, aiserver messages) plus the generic fill-every-field pass, and
 * splitting the table would scatter what is meant to be read as one inventory.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  create,
  type DescEnum,
  type DescField,
  type DescFile,
  type DescMessage,
  equals,
  fromBinary,
  type MessageInitShape,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { nestedTypes, reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { file_agent_v1_agent_service } from "../../src/gen/agent/v1/agent_service_pb.ts";
import {
  AgentClientMessageSchema,
  file_agent_v1_client_message,
} from "../../src/gen/agent/v1/client_message_pb.ts";
import { AgentMode, file_agent_v1_common } from "../../src/gen/agent/v1/common_pb.ts";
import {
  ConversationActionSchema,
  file_agent_v1_conversation_action,
  RequestContextPartReferencesSchema,
} from "../../src/gen/agent/v1/conversation_action_pb.ts";
import {
  ConversationStateStructureSchema,
  ConversationStepSchema,
  ConversationTurnStructureSchema,
  file_agent_v1_conversation_state,
} from "../../src/gen/agent/v1/conversation_state_pb.ts";
import { file_agent_v1_exec_agent } from "../../src/gen/agent/v1/exec_agent_pb.ts";
import { file_agent_v1_exec_file } from "../../src/gen/agent/v1/exec_file_pb.ts";
import { file_agent_v1_exec_mcp } from "../../src/gen/agent/v1/exec_mcp_pb.ts";
import { file_agent_v1_exec_misc } from "../../src/gen/agent/v1/exec_misc_pb.ts";
import {
  ExecClientControlMessageSchema,
  ExecClientMessageSchema,
  ExecServerControlMessageSchema,
  ExecServerMessageSchema,
  file_agent_v1_exec,
} from "../../src/gen/agent/v1/exec_pb.ts";
import { file_agent_v1_exec_shell, TimeoutBehavior } from "../../src/gen/agent/v1/exec_shell_pb.ts";
import {
  file_agent_v1_interaction_query,
  InteractionQuerySchema,
  InteractionResponseSchema,
} from "../../src/gen/agent/v1/interaction_query_pb.ts";
import {
  file_agent_v1_interaction_update,
  InteractionUpdateSchema,
  ThinkingStyle,
} from "../../src/gen/agent/v1/interaction_update_pb.ts";
import {
  file_agent_v1_kv,
  KvClientMessageSchema,
  KvServerMessageSchema,
} from "../../src/gen/agent/v1/kv_pb.ts";
import { file_agent_v1_mcp } from "../../src/gen/agent/v1/mcp_pb.ts";
import { file_agent_v1_model } from "../../src/gen/agent/v1/model_pb.ts";
import { file_agent_v1_request_context } from "../../src/gen/agent/v1/request_context_pb.ts";
import {
  AgentRunRequestSchema,
  file_agent_v1_run_request,
} from "../../src/gen/agent/v1/run_request_pb.ts";
import {
  AgentServerMessageSchema,
  file_agent_v1_server_message,
} from "../../src/gen/agent/v1/server_message_pb.ts";
import { file_agent_v1_tool_call, ToolCallSchema } from "../../src/gen/agent/v1/tool_call_pb.ts";
import { file_agent_v1_user_message } from "../../src/gen/agent/v1/user_message_pb.ts";
import {
  AvailableModelsRequestSchema,
  AvailableModelsResponse_DegradationStatus,
  AvailableModelsResponseSchema,
  file_aiserver_v1_ai_service,
} from "../../src/gen/aiserver/v1/ai_service_pb.ts";
import {
  BidiAppendRequestSchema,
  BidiPollRequestSchema,
  BidiPollResponseSchema,
  file_aiserver_v1_bidi,
} from "../../src/gen/aiserver/v1/bidi_pb.ts";
import {
  ErrorDetails_Error,
  ErrorDetailsSchema,
  file_aiserver_v1_error_details,
} from "../../src/gen/aiserver/v1/error_details_pb.ts";
import {
  file_aiserver_v1_server_config,
  GetServerConfigResponseSchema,
  Http2Config,
} from "../../src/gen/aiserver/v1/server_config_pb.ts";

const ALL_FILES: readonly DescFile[] = [
  file_agent_v1_agent_service,
  file_agent_v1_client_message,
  file_agent_v1_common,
  file_agent_v1_conversation_action,
  file_agent_v1_conversation_state,
  file_agent_v1_exec,
  file_agent_v1_exec_agent,
  file_agent_v1_exec_file,
  file_agent_v1_exec_mcp,
  file_agent_v1_exec_misc,
  file_agent_v1_exec_shell,
  file_agent_v1_interaction_query,
  file_agent_v1_interaction_update,
  file_agent_v1_kv,
  file_agent_v1_mcp,
  file_agent_v1_model,
  file_agent_v1_request_context,
  file_agent_v1_run_request,
  file_agent_v1_server_message,
  file_agent_v1_tool_call,
  file_agent_v1_user_message,
  file_aiserver_v1_ai_service,
  file_aiserver_v1_bidi,
  file_aiserver_v1_error_details,
  file_aiserver_v1_server_config,
];

/** The init shape of one field of `Desc` (e.g. a oneof), without `undefined`. */
type FieldInit<Desc extends DescMessage, Key extends keyof MessageInitShape<Desc>> = NonNullable<
  MessageInitShape<Desc>[Key]
>;

/** Nesting depth of generated samples; bounds recursive types like InteractionUpdate. */
const SAMPLE_DEPTH = 3;

/** Encodes, decodes, and checks that the decoded message equals the original and re-encodes identically. */
function assertRoundTrip<Desc extends DescMessage>(
  schema: Desc,
  init: MessageInitShape<Desc>,
): Uint8Array {
  const original = create(schema, init);
  const bytes = toBinary(schema, original);
  const decoded = fromBinary(schema, bytes);
  assert.ok(equals(schema, decoded, original), `${schema.typeName} changed in a round trip`);
  assert.deepEqual(toBinary(schema, decoded), bytes, `${schema.typeName} re-encoded differently`);
  return bytes;
}

function assertReflectRoundTrip(sample: ReflectMessage): void {
  const schema = sample.desc;
  const bytes = toBinary(schema, sample.message);
  const decoded = fromBinary(schema, bytes);
  assert.ok(equals(schema, decoded, sample.message), `${schema.typeName} changed in a round trip`);
  assert.deepEqual(toBinary(schema, decoded), bytes);
}

function allMessages(): DescMessage[] {
  const messages: DescMessage[] = [];
  for (const file of ALL_FILES) {
    for (const type of nestedTypes(file)) {
      if (type.kind === "message") messages.push(type);
    }
  }
  return messages;
}

function scalarSample(scalar: ScalarType, seed: number): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return `value-${seed}`;
    case ScalarType.BYTES:
      return new Uint8Array([seed & 255, 0, 255]);
    case ScalarType.BOOL:
      return true;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return seed + 0.5;
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return BigInt(-seed) * 1_000_000_007n;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return BigInt(seed) * 1_000_000_007n;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return -seed;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return seed;
  }
}

function enumSample(enumDesc: DescEnum): number {
  const last = enumDesc.values[enumDesc.values.length - 1];
  return last === undefined ? 0 : last.number;
}

/** A message of type `desc` with every field set; oneofs take `caseOf(oneof)` (first by default). */
function sampleMessage(
  desc: DescMessage,
  depth: number,
  pick: (field: DescField) => boolean = () => true,
): ReflectMessage {
  const sample = reflect(desc);
  if (depth <= 0) return sample;
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      const chosen = member.fields.find(pick) ?? member.fields[0];
      if (chosen !== undefined) setSampleField(sample, chosen, depth);
    } else {
      setSampleField(sample, member, depth);
    }
  }
  return sample;
}

function setSampleField(sample: ReflectMessage, field: DescField, depth: number): void {
  switch (field.fieldKind) {
    case "scalar":
      sample.set(field, scalarSample(field.scalar, field.number));
      return;
    case "enum":
      sample.set(field, enumSample(field.enum));
      return;
    case "message":
      sample.set(field, sampleMessage(field.message, depth - 1));
      return;
    case "list": {
      const list = sample.get(field);
      if (field.listKind === "scalar") list.add(scalarSample(field.scalar, field.number));
      else if (field.listKind === "enum") list.add(enumSample(field.enum));
      else list.add(sampleMessage(field.message, depth - 1));
      return;
    }
    case "map": {
      const map = sample.get(field);
      const key = scalarSample(field.mapKey, field.number);
      if (field.mapKind === "scalar") map.set(key, scalarSample(field.scalar, field.number));
      else if (field.mapKind === "enum") map.set(key, enumSample(field.enum));
      else map.set(key, sampleMessage(field.message, depth - 1));
      return;
    }
  }
}

/** Maps every case of the oneof named `oneofName` to its field number. */
function oneofNumbers(desc: DescMessage, oneofName: string): Record<string, number> {
  const oneof = desc.oneofs.find((candidate) => candidate.name === oneofName);
  assert.ok(oneof, `${desc.typeName} has no oneof "${oneofName}"`);
  return Object.fromEntries(oneof.fields.map((field) => [field.name, field.number]));
}

function fieldNumbers(desc: DescMessage): Record<string, number> {
  return Object.fromEntries(desc.fields.map((field) => [field.name, field.number]));
}

/**
 * Samples of `desc` with its oneof case `caseName` set, one per case of the payload's own
 * first oneof (e.g. every ReadResult case inside ExecClientMessage.read_result).
 */
function payloadVariants(desc: DescMessage, caseName: string): ReflectMessage[] {
  const field = desc.fields.find((candidate) => candidate.name === caseName);
  assert.ok(field?.message, `${desc.typeName} has no message case "${caseName}"`);
  const payload = field.message;
  const payloadCases = payload.oneofs[0]?.fields ?? [];
  if (payloadCases.length === 0) {
    return [sampleMessage(desc, SAMPLE_DEPTH, (candidate) => candidate === field)];
  }
  return payloadCases.map((inner) => {
    const outer = reflect(desc);
    outer.set(field, sampleMessage(payload, SAMPLE_DEPTH, (candidate) => candidate === inner));
    return outer;
  });
}

const BLOB_ID = new Uint8Array(32).fill(7);

describe("schema round trip: every generated message", () => {
  it("round-trips every message fully populated", () => {
    const messages = allMessages();
    assert.ok(messages.length > 300, `expected the full schema, found ${messages.length} messages`);
    for (const desc of messages) assertReflectRoundTrip(sampleMessage(desc, SAMPLE_DEPTH));
  });

  it("round-trips every case of every oneof", () => {
    let cases = 0;
    for (const desc of allMessages()) {
      for (const oneof of desc.oneofs) {
        for (const field of oneof.fields) {
          const sample = sampleMessage(desc, SAMPLE_DEPTH, (candidate) => candidate === field);
          assertReflectRoundTrip(sample);
          assert.equal(fromBinary(desc, toBinary(desc, sample.message)).$typeName, desc.typeName);
          cases++;
        }
      }
    }
    assert.ok(cases > 250, `expected every oneof case, found ${cases}`);
  });
});

describe("schema round trip: envelopes", () => {
  it("pins the AgentClientMessage and AgentServerMessage cases", () => {
    assert.deepEqual(oneofNumbers(AgentClientMessageSchema, "message"), {
      run_request: 1,
      exec_client_message: 2,
      kv_client_message: 3,
      conversation_action: 4,
      exec_client_control_message: 5,
      interaction_response: 6,
      client_heartbeat: 7,
      prewarm_request: 8,
    });
    assert.deepEqual(oneofNumbers(AgentServerMessageSchema, "message"), {
      interaction_update: 1,
      exec_server_message: 2,
      conversation_checkpoint_update: 3,
      kv_server_message: 4,
      exec_server_control_message: 5,
      interaction_query: 7,
    });
    assert.equal(AgentServerMessageSchema.field.ttftBreakdown.number, 8);
    assert.equal(AgentServerMessageSchema.field.ttftBreakdown.oneof, undefined);
  });

  it("round-trips client envelopes", () => {
    assertRoundTrip(AgentClientMessageSchema, { message: { case: "clientHeartbeat", value: {} } });
    assertRoundTrip(AgentClientMessageSchema, {
      message: {
        case: "execClientControlMessage",
        value: { message: { case: "streamClose", value: { id: 3 } } },
      },
    });
    assertRoundTrip(AgentClientMessageSchema, {
      message: {
        case: "conversationAction",
        value: { action: { case: "cancelAction", value: {} } },
      },
    });
    assertRoundTrip(AgentClientMessageSchema, {
      message: {
        case: "interactionResponse",
        value: {
          id: 2,
          result: {
            case: "webSearchRequestResponse",
            value: { result: { case: "rejected", value: { reason: "Declined by client" } } },
          },
        },
      },
    });
  });

  it("round-trips server envelopes with a ttft breakdown riding along", () => {
    assertRoundTrip(AgentServerMessageSchema, {
      message: {
        case: "interactionUpdate",
        value: { message: { case: "heartbeat", value: {} } },
      },
      ttftBreakdown: { serverFirstTokenMs: 12.5, providerTtftMs: 80 },
    });
    assertRoundTrip(AgentServerMessageSchema, {
      message: {
        case: "execServerControlMessage",
        value: { message: { case: "abort", value: { id: 9 } } },
      },
    });
  });
});

describe("schema round trip: run request", () => {
  it("round-trips a first turn with an empty conversation state", () => {
    const bytes = assertRoundTrip(AgentClientMessageSchema, {
      message: {
        case: "runRequest",
        value: {
          conversationState: {},
          action: {
            action: {
              case: "userMessageAction",
              value: {
                userMessage: {
                  text: "How many files are in this repo's root?",
                  messageId: "u-1",
                  mode: AgentMode.AGENT,
                  selectedContext: {
                    selectedImages: [{
                      dataOrBlobId: { case: "data", value: new Uint8Array([137, 80, 78, 71]) },
                      mimeType: "image/png",
                      dimension: { width: 2, height: 3 },
                    }],
                  },
                },
                requestContext: {
                  env: {
                    osVersion: "linux 6.8",
                    workspacePaths: ["/ws"],
                    shell: "/bin/zsh",
                    timeZone: "Europe/Berlin",
                    processWorkingDirectory: "/ws",
                  },
                  rules: [{
                    fullPath: "/ws/AGENTS.md",
                    content: "Be brief.",
                    type: { type: { case: "global", value: {} } },
                  }],
                  tools: [{
                    name: "opencode-bash",
                    description: "Run a command",
                    providerIdentifier: "opencode",
                    toolName: "bash",
                    inputSchema: {
                      kind: {
                        case: "structValue",
                        value: {
                          fields: { type: { kind: { case: "stringValue", value: "object" } } },
                        },
                      },
                    },
                  }],
                  gitRepos: [{ path: "/ws", status: "", branchName: "main" }],
                  webSearchEnabled: false,
                  webFetchEnabled: false,
                  rulesInfoComplete: true,
                  envInfoComplete: true,
                },
              },
            },
          },
          requestedModel: {
            modelId: "claude-x",
            maxMode: false,
            parameters: [{ id: "thinking", value: "true" }],
          },
          conversationId: "c-1",
          conversationGroupId: "c-1",
          runId: "u-1",
          preFetchedBlobs: [{ id: BLOB_ID, value: new Uint8Array([1]) }],
        },
      },
    });
    // An empty conversation_state is still present on the wire: field 1, length 0.
    const runRequest = fromBinary(AgentClientMessageSchema, bytes).message;
    assert.equal(runRequest.case, "runRequest");
    const inner = toBinary(
      AgentRunRequestSchema,
      create(AgentRunRequestSchema, { conversationState: {} }),
    );
    assert.deepEqual([...inner], [0x0a, 0x00]);
  });

  it("round-trips a later turn carrying a checkpoint", () => {
    assertRoundTrip(AgentRunRequestSchema, {
      conversationState: {
        rootPromptMessagesJson: [BLOB_ID],
        turns: [BLOB_ID],
        pendingToolCalls: [],
        tokenDetails: { usedTokens: 1200, maxTokens: 200_000 },
      },
      action: { action: { case: "resumeAction", value: {} } },
      modelDetails: { modelId: "legacy", thinkingDetails: {}, maxMode: true },
    });
  });
});

describe("schema round trip: conversation actions", () => {
  it("pins every ConversationAction case", () => {
    assert.deepEqual(oneofNumbers(ConversationActionSchema, "action"), {
      user_message_action: 1,
      resume_action: 2,
      cancel_action: 3,
      summarize_action: 4,
      shell_command_action: 5,
      start_plan_action: 6,
      execute_plan_action: 7,
      async_ask_question_completion_action: 8,
      cancel_subagent_action: 10,
      background_task_completion_action: 12,
      background_shell_action: 13,
      background_subagent_action: 14,
      subscription_notification_action: 16,
      goal_continuation_action: 18,
      inject_context_action: 19,
    });
  });

  it("round-trips every ConversationAction case", () => {
    const cases: MessageInitShape<typeof ConversationActionSchema>[] = [
      {
        action: {
          case: "userMessageAction",
          value: {
            userMessage: { text: "hi", messageId: "m" },
            conversationHistory: {
              messages: [{
                message: {
                  case: "assistant",
                  value: {
                    content: [{ content: { case: "text", value: { text: "earlier answer" } } }],
                  },
                },
              }],
            },
          },
        },
      },
      { action: { case: "resumeAction", value: { requestContext: {} } } },
      { action: { case: "cancelAction", value: { reason: "user" } } },
      { action: { case: "summarizeAction", value: {} } },
      {
        action: {
          case: "shellCommandAction",
          value: { shellCommand: { command: "ls" }, execId: "e" },
        },
      },
      {
        action: {
          case: "startPlanAction",
          value: { userMessage: { text: "plan it" }, isSpec: true },
        },
      },
      { action: { case: "executePlanAction", value: { planFileUri: "file:///plan.md" } } },
      {
        action: {
          case: "asyncAskQuestionCompletionAction",
          value: {
            originalToolCallId: "t-1",
            originalArgs: { title: "Pick", questions: [{ id: "q", prompt: "Which?" }] },
            result: {
              result: {
                case: "success",
                value: { answers: [{ questionId: "q", selectedOptionIds: ["a"] }] },
              },
            },
          },
        },
      },
      { action: { case: "cancelSubagentAction", value: {} } },
      { action: { case: "backgroundTaskCompletionAction", value: {} } },
      { action: { case: "backgroundShellAction", value: {} } },
      { action: { case: "backgroundSubagentAction", value: {} } },
      { action: { case: "subscriptionNotificationAction", value: {} } },
      { action: { case: "goalContinuationAction", value: {} } },
      { action: { case: "injectContextAction", value: {} } },
    ];
    const covered = new Set<string | undefined>();
    for (const init of cases) {
      const action = create(ConversationActionSchema, init);
      action.triggeringAuthId = "auth";
      action.requestContextParts = create(RequestContextPartReferencesSchema);
      const bytes = assertRoundTrip(ConversationActionSchema, action);
      covered.add(fromBinary(ConversationActionSchema, bytes).action.case);
    }
    assert.equal(covered.size, ConversationActionSchema.oneofs[0]?.fields.length);
  });
});

describe("schema round trip: interaction updates", () => {
  it("pins every InteractionUpdate case", () => {
    assert.deepEqual(oneofNumbers(InteractionUpdateSchema, "message"), {
      text_delta: 1,
      tool_call_started: 2,
      tool_call_completed: 3,
      thinking_delta: 4,
      thinking_completed: 5,
      user_message_appended: 6,
      partial_tool_call: 7,
      token_delta: 8,
      summary: 9,
      summary_started: 10,
      summary_completed: 11,
      shell_output_delta: 12,
      heartbeat: 13,
      turn_ended: 14,
      tool_call_delta: 15,
      step_started: 16,
      step_completed: 17,
      prompt_suggestion: 18,
      post_request_prompt: 19,
      active_branch_change: 20,
      feedback_request: 21,
      response_comparison: 22,
      context_injection_state: 23,
      routed_model: 24,
    });
  });

  it("round-trips every InteractionUpdate case", () => {
    const shellCall = {
      toolCallId: "call-1\nfc_1",
      startedAtMs: 1_700_000_000_000n,
      completedAtMs: 1_700_000_000_015n,
      tool: {
        case: "shellToolCall" as const,
        value: {
          args: {
            command: "ls -1 | wc -l",
            workingDirectory: "/ws",
            timeout: 30_000,
            toolCallId: "call-1\nfc_1",
            timeoutBehavior: TimeoutBehavior.BACKGROUND,
            hardTimeout: 86_400_000,
            closeStdin: true,
          },
          result: {
            result: {
              case: "success" as const,
              value: {
                command: "ls -1 | wc -l",
                workingDirectory: "/ws",
                exitCode: 0,
                stdout: "42\n",
              },
            },
          },
        },
      },
    };
    const cases: FieldInit<typeof InteractionUpdateSchema, "message">[] = [
      { case: "textDelta", value: { text: "Hello", isServerNotice: true } },
      {
        case: "toolCallStarted",
        value: { callId: "call-1", modelCallId: "m", toolCall: shellCall },
      },
      {
        case: "toolCallCompleted",
        value: { callId: "call-1", modelCallId: "m", toolCall: shellCall },
      },
      { case: "thinkingDelta", value: { text: "hmm", thinkingStyle: ThinkingStyle.DEFAULT } },
      { case: "thinkingCompleted", value: { thinkingDurationMs: 840 } },
      { case: "userMessageAppended", value: { userMessage: { text: "queued" } } },
      {
        case: "partialToolCall",
        value: { callId: "call-1", argsTextDelta: '{"command"', modelCallId: "m" },
      },
      { case: "tokenDelta", value: { tokens: 6 } },
      { case: "summary", value: { summary: "short" } },
      { case: "summaryStarted", value: {} },
      { case: "summaryCompleted", value: { hookMessage: "done" } },
      { case: "shellOutputDelta", value: { event: { case: "stdout", value: { data: "x" } } } },
      { case: "heartbeat", value: {} },
      {
        case: "turnEnded",
        value: {
          inputTokens: 18_234n,
          outputTokens: 212n,
          cacheReadTokens: 15_360n,
          cacheWriteTokens: 0n,
          reasoningTokens: 96n,
        },
      },
      {
        case: "toolCallDelta",
        value: {
          callId: "call-1",
          toolCallDelta: {
            delta: {
              case: "shellToolCallDelta",
              value: { delta: { case: "stdout", value: { content: "42\n" } } },
            },
          },
        },
      },
      { case: "stepStarted", value: { stepId: 1n } },
      { case: "stepCompleted", value: { stepId: 66n, stepDurationMs: 1234n } },
      { case: "promptSuggestion", value: { suggestion: "Next?" } },
      {
        case: "postRequestPrompt",
        value: { title: "t", message: "m", buttonLabel: "b", buttonUrl: "u" },
      },
      { case: "activeBranchChange", value: { path: "/ws", branchName: "main" } },
      { case: "feedbackRequest", value: {} },
      { case: "responseComparison", value: {} },
      {
        case: "contextInjectionState",
        value: {
          injectionId: "i",
          state: { state: { case: "delivered", value: { step: 2, deliveredAtMs: 5n } } },
        },
      },
      { case: "routedModel", value: { displayName: "Model" } },
    ];
    const covered = new Set<string | undefined>();
    for (const message of cases) {
      const bytes = assertRoundTrip(InteractionUpdateSchema, { message });
      covered.add(fromBinary(InteractionUpdateSchema, bytes).message.case);
    }
    assert.equal(covered.size, InteractionUpdateSchema.oneofs[0]?.fields.length);
  });

  it("round-trips the tool-call union and a nested task delta", () => {
    assert.equal(oneofNumbers(ToolCallSchema, "tool")["mcp_tool_call"], 15);
    assert.equal(ToolCallSchema.field.toolCallId.number, 57);
    assertRoundTrip(ToolCallSchema, {
      tool: {
        case: "mcpToolCall",
        value: {
          args: {
            name: "opencode-read",
            args: { path: { kind: { case: "stringValue", value: "/ws/a.ts" } } },
            toolCallId: "t",
            providerIdentifier: "opencode",
            toolName: "read",
          },
          result: {
            result: {
              case: "success",
              value: { content: [{ content: { case: "text", value: { text: "ok" } } }] },
            },
          },
        },
      },
    });
    assertRoundTrip(InteractionUpdateSchema, {
      message: {
        case: "toolCallDelta",
        value: {
          toolCallDelta: {
            delta: {
              case: "taskToolCallDelta",
              value: {
                interactionUpdate: { message: { case: "textDelta", value: { text: "nested" } } },
              },
            },
          },
        },
      },
    });
  });
});

/** Request case, result case, and their field numbers, as the schema documents them. */
const EXEC_PAIRS: readonly (readonly [string, number, string, number])[] = [
  ["shell_args", 2, "shell_result", 2],
  ["write_args", 3, "write_result", 3],
  ["delete_args", 4, "delete_result", 4],
  ["grep_args", 5, "grep_result", 5],
  ["read_args", 7, "read_result", 7],
  ["ls_args", 8, "ls_result", 8],
  ["diagnostics_args", 9, "diagnostics_result", 9],
  ["request_context_args", 10, "request_context_result", 10],
  ["mcp_args", 11, "mcp_result", 11],
  ["shell_stream_args", 14, "shell_stream", 14],
  ["background_shell_spawn_args", 16, "background_shell_spawn_result", 16],
  ["list_mcp_resources_exec_args", 17, "list_mcp_resources_exec_result", 17],
  ["read_mcp_resource_exec_args", 18, "read_mcp_resource_exec_result", 18],
  ["fetch_args", 20, "fetch_result", 20],
  ["record_screen_args", 21, "record_screen_result", 21],
  ["computer_use_args", 22, "computer_use_result", 22],
  ["write_shell_stdin_args", 23, "write_shell_stdin_result", 23],
  ["execute_hook_args", 27, "execute_hook_result", 27],
  ["subagent_args", 28, "subagent_result", 28],
  ["redacted_read_args", 29, "redacted_read_result", 29],
  ["force_background_shell_args", 30, "force_background_shell_result", 30],
  ["force_background_subagent_args", 31, "force_background_subagent_result", 31],
  ["mcp_state_exec_args", 36, "mcp_state_exec_result", 36],
  ["subagent_await_args", 37, "subagent_await_result", 37],
  ["smart_mode_classifier_args", 38, "smart_mode_classifier_result", 38],
  ["canvas_diagnostics_args", 40, "canvas_diagnostics_result", 40],
  ["shell_allowlist_precheck_args", 41, "shell_allowlist_precheck_result", 41],
  ["mcp_allowlist_precheck_args", 42, "mcp_allowlist_precheck_result", 42],
  ["web_fetch_allowlist_precheck_args", 43, "web_fetch_allowlist_precheck_result", 43],
  ["git_diff_request", 44, "git_diff_response", 44],
  ["pi_read_args", 45, "pi_read_result", 46],
  ["pi_bash_args", 46, "pi_bash_result", 47],
  ["pi_edit_args", 47, "pi_edit_result", 48],
  ["pi_write_args", 48, "pi_write_result", 49],
  ["pi_grep_args", 49, "pi_grep_result", 50],
  ["pi_find_args", 50, "pi_find_result", 51],
  ["pi_ls_args", 51, "pi_ls_result", 52],
  ["mini_swe_agent_bash_args", 52, "mini_swe_agent_bash_result", 55],
  ["conversation_search_args", 53, "conversation_search_result", 53],
  ["agent_store_conflict_args", 54, "agent_store_conflict_result", 54],
];

describe("schema round trip: exec channel", () => {
  it("pins every exec request/result pair", () => {
    const requests = oneofNumbers(ExecServerMessageSchema, "message");
    const results = oneofNumbers(ExecClientMessageSchema, "message");
    for (const [request, requestNo, result, resultNo] of EXEC_PAIRS) {
      assert.equal(requests[request], requestNo, `request "${request}"`);
      assert.equal(results[result], resultNo, `result "${result}"`);
    }
    // adopt_args has no documented result.
    assert.equal(Object.keys(requests).length, EXEC_PAIRS.length + 1);
    assert.equal(requests["adopt_args"], 56);
    assert.equal(Object.keys(results).length, EXEC_PAIRS.length);
    assert.deepEqual(fieldNumbers(ExecServerMessageSchema)["accept_hook_additional_contexts"], 55);
    assert.deepEqual(fieldNumbers(ExecClientMessageSchema)["local_execution_time_ms"], 39);
  });

  it("round-trips every request/result pair fully populated", () => {
    for (const [request, , result] of EXEC_PAIRS) {
      assertReflectRoundTrip(
        sampleMessage(ExecServerMessageSchema, SAMPLE_DEPTH, (field) => field.name === request),
      );
      for (const variant of payloadVariants(ExecClientMessageSchema, result)) {
        assertReflectRoundTrip(variant);
      }
    }
  });

  it("round-trips typed refusals for the supported execs", () => {
    const refusals: FieldInit<typeof ExecClientMessageSchema, "message">[] = [
      {
        case: "readResult",
        value: { result: { case: "rejected", value: { path: "/x", reason: "No" } } },
      },
      { case: "readResult", value: { result: { case: "fileNotFound", value: { path: "/x" } } } },
      {
        case: "readResult",
        value: { result: { case: "permissionDenied", value: { path: "/x" } } },
      },
      {
        case: "writeResult",
        value: {
          result: {
            case: "permissionDenied",
            value: { path: "/x", directory: "/", operation: "create_file", isReadonly: true },
          },
        },
      },
      {
        case: "deleteResult",
        value: { result: { case: "rejected", value: { path: "/x", reason: "No" } } },
      },
      { case: "grepResult", value: { result: { case: "error", value: { error: "Bad pattern" } } } },
      {
        case: "lsResult",
        value: { result: { case: "rejected", value: { path: "/x", reason: "No" } } },
      },
      { case: "diagnosticsResult", value: { result: { case: "rejected", value: {} } } },
      { case: "mcpResult", value: { result: { case: "rejected", value: { reason: "No" } } } },
      {
        case: "mcpResult",
        value: { result: { case: "permissionDenied", value: { error: "No", isReadonly: true } } },
      },
      {
        case: "shellStream",
        value: { event: { case: "rejected", value: { command: "rm -rf /", reason: "No" } } },
      },
      {
        case: "shellStream",
        value: { event: { case: "permissionDenied", value: { command: "x", error: "No" } } },
      },
      {
        case: "shellResult",
        value: { result: { case: "rejected", value: { command: "x", reason: "No" } } },
      },
      {
        case: "backgroundShellSpawnResult",
        value: { result: { case: "rejected", value: { command: "x", reason: "No" } } },
      },
      {
        case: "listMcpResourcesExecResult",
        value: { result: { case: "success", value: { resources: [] } } },
      },
      {
        case: "readMcpResourceExecResult",
        value: { result: { case: "notFound", value: { uri: "mcp://x" } } },
      },
      {
        case: "fetchResult",
        value: { result: { case: "error", value: { url: "u", error: "No" } } },
      },
      { case: "subagentResult", value: { result: { case: "error", value: { error: "No" } } } },
      { case: "piEditResult", value: { result: { case: "rejected", value: {} } } },
      { case: "piReadResult", value: { result: { case: "error", value: { error: "No" } } } },
      {
        case: "requestContextResult",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "mcpStateExecResult",
        value: { result: { case: "success", value: { servers: [] } } },
      },
    ];
    for (const message of refusals) {
      assertRoundTrip(ExecClientMessageSchema, { id: 4, message, localExecutionTimeMs: 15 });
    }
  });

  it("round-trips a shell stream conversation", () => {
    const frames: FieldInit<typeof ExecClientMessageSchema, "message">[] = [
      { case: "shellStream", value: { event: { case: "start", value: {} } } },
      { case: "shellStream", value: { event: { case: "stdout", value: { data: "42\n" } } } },
      { case: "shellStream", value: { event: { case: "stderr", value: { data: "warn\n" } } } },
      {
        case: "shellStream",
        value: {
          event: { case: "exit", value: { code: 0, cwd: "/ws", localExecutionTimeMs: 15 } },
        },
      },
      {
        case: "shellStream",
        value: {
          event: { case: "backgrounded", value: { shellId: 2, command: "sleep 9", pid: 1234 } },
        },
      },
    ];
    for (const message of frames) assertRoundTrip(ExecClientMessageSchema, { id: 1, message });
    assertRoundTrip(ExecServerMessageSchema, {
      id: 1,
      execId: "",
      spanContext: {
        traceId: "0af7651916cd43dd8448eb211c80319c",
        spanId: "b7ad6b7169203331",
        traceFlags: 1,
      },
      message: {
        case: "shellStreamArgs",
        value: {
          command: "ls -1 | wc -l",
          workingDirectory: "/ws",
          timeout: 30_000,
          closeStdin: true,
        },
      },
    });
  });

  it("round-trips the exec control messages", () => {
    assertRoundTrip(ExecClientControlMessageSchema, {
      message: { case: "streamClose", value: { id: 1 } },
    });
    assertRoundTrip(ExecClientControlMessageSchema, {
      message: { case: "throw", value: { id: 2, error: "Unsupported exec", stackTrace: "at x" } },
    });
    assertRoundTrip(ExecClientControlMessageSchema, {
      message: { case: "heartbeat", value: { id: 3 } },
    });
    assertRoundTrip(ExecServerControlMessageSchema, {
      message: { case: "abort", value: { id: 4 } },
    });
  });
});

describe("schema round trip: KV and checkpoints", () => {
  it("round-trips KV get/set requests and results", () => {
    assertRoundTrip(KvServerMessageSchema, {
      id: 0,
      message: { case: "getBlobArgs", value: { blobId: BLOB_ID } },
    });
    assertRoundTrip(KvServerMessageSchema, {
      id: 5,
      message: {
        case: "setBlobArgs",
        value: { blobId: BLOB_ID, blobData: new Uint8Array([123, 125]) },
      },
      spanContext: { traceState: "x=1" },
    });
    assertRoundTrip(KvClientMessageSchema, {
      id: 0,
      message: { case: "getBlobResult", value: { blobData: new Uint8Array([123, 125]) } },
    });
    assertRoundTrip(KvClientMessageSchema, {
      id: 1,
      message: { case: "getBlobResult", value: { error: { message: "Blob not found" } } },
    });
    const success = assertRoundTrip(KvClientMessageSchema, {
      id: 5,
      message: { case: "setBlobResult", value: {} },
    });
    // An empty SetBlobResult is present on the wire: id 5, field 3 with length 0.
    assert.deepEqual([...success], [0x08, 0x05, 0x1a, 0x00]);
  });

  it("round-trips a checkpoint with token details and category breakdown", () => {
    assertRoundTrip(ConversationStateStructureSchema, {
      rootPromptMessagesJson: [BLOB_ID, new TextEncoder().encode('{"role":"system"}')],
      todos: [BLOB_ID],
      pendingToolCalls: ['{"toolCallId":"t"}'],
      tokenDetails: {
        usedTokens: 18_000,
        maxTokens: 200_000,
        breakdown: {
          totalUsedTokens: 18_000,
          maxTokens: 200_000,
          categories: [
            {
              id: "system_prompt",
              label: "System prompt",
              estimatedTokens: 9000,
              characterCount: 36_000,
            },
            { id: "tools", label: "Tools", estimatedTokens: 4000, characterCount: 16_000 },
            {
              id: "conversation",
              label: "Conversation",
              estimatedTokens: 5000,
              characterCount: 20_000,
            },
          ],
        },
        promptContextUsageSnapshotBlobId: BLOB_ID,
      },
      summary: BLOB_ID,
      turns: [BLOB_ID],
      mode: AgentMode.AGENT,
      turnTimings: [{ durationMs: 1500n, timestampMs: 1_700_000_000_000n }],
      fileStatesV2: { "/ws/a.ts": { content: BLOB_ID } },
      subagentStates: {
        sub: { conversationState: { turns: [BLOB_ID] }, createdTimestampMs: 1n },
      },
      selfSummaryCount: 1,
      readPaths: ["/ws/a.ts"],
      subagentStateRefs: { sub: BLOB_ID },
      completedAskQuestionToolCallIds: ["t"],
    });
  });

  it("round-trips the blob graph objects", () => {
    assertRoundTrip(ConversationTurnStructureSchema, {
      turn: {
        case: "agentConversationTurn",
        value: { userMessage: BLOB_ID, steps: [BLOB_ID, BLOB_ID], requestId: "r" },
      },
    });
    assertRoundTrip(ConversationTurnStructureSchema, {
      turn: {
        case: "shellConversationTurn",
        value: { shellCommand: BLOB_ID, shellOutput: BLOB_ID },
      },
    });
    assertRoundTrip(ConversationStepSchema, {
      message: { case: "thinkingMessage", value: { text: "hmm", durationMs: 840 } },
    });
    assertRoundTrip(ConversationStepSchema, {
      message: { case: "assistantMessage", value: { text: "There are 42 entries." } },
    });
  });
});

describe("schema round trip: interaction queries", () => {
  it("pins query and response case numbers", () => {
    assert.deepEqual(oneofNumbers(InteractionQuerySchema, "query"), {
      web_search_request_query: 2,
      ask_question_interaction_query: 3,
      switch_mode_request_query: 4,
      exa_search_request_query: 5,
      exa_fetch_request_query: 6,
      create_plan_request_query: 7,
      setup_vm_environment_args: 8,
      web_fetch_request_query: 9,
      pr_management_request_query: 10,
      mcp_auth_request_query: 11,
      generate_image_request_query: 12,
      replace_env_args: 13,
      connect_scm_request_query: 14,
    });
    assert.deepEqual(oneofNumbers(InteractionResponseSchema, "result"), {
      web_search_request_response: 2,
      ask_question_interaction_response: 3,
      switch_mode_request_response: 4,
      create_plan_request_response: 7,
      setup_vm_environment_result: 8,
      web_fetch_request_response: 9,
      pr_management_result: 10,
      mcp_auth_request_response: 11,
      generate_image_request_response: 12,
      replace_env_result: 13,
      connect_scm_request_response: 14,
    });
  });

  it("round-trips the documented queries and their minimal declines", () => {
    assertRoundTrip(InteractionQuerySchema, {
      id: 0,
      query: {
        case: "askQuestionInteractionQuery",
        value: {
          args: {
            title: "Pick one",
            questions: [{ id: "q", prompt: "Which?", options: [{ id: "a", label: "A" }] }],
            runAsync: true,
          },
          toolCallId: "t",
        },
      },
    });
    assertRoundTrip(InteractionQuerySchema, {
      id: 1,
      query: {
        case: "createPlanRequestQuery",
        value: {
          args: { plan: "1. do it", todos: [{ id: "1", content: "do it" }] },
          toolCallId: "t",
        },
      },
    });
    const declines: FieldInit<typeof InteractionResponseSchema, "result">[] = [
      {
        case: "webSearchRequestResponse",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "askQuestionInteractionResponse",
        value: { result: { result: { case: "async", value: {} } } },
      },
      {
        case: "switchModeRequestResponse",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "createPlanRequestResponse",
        value: { result: { result: { case: "success", value: {} }, planUri: "" } },
      },
      { case: "setupVmEnvironmentResult", value: { result: { case: "success", value: {} } } },
      {
        case: "webFetchRequestResponse",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "prManagementResult",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "mcpAuthRequestResponse",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "generateImageRequestResponse",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
      {
        case: "replaceEnvResult",
        value: { result: { case: "failure", value: { errorMessage: "No", setupLogs: "" } } },
      },
      {
        case: "connectScmRequestResponse",
        value: { result: { case: "rejected", value: { reason: "No" } } },
      },
    ];
    for (const result of declines) assertRoundTrip(InteractionResponseSchema, { id: 1, result });
    assert.equal(declines.length, InteractionResponseSchema.oneofs[0]?.fields.length);
  });
});

describe("schema round trip: aiserver", () => {
  it("round-trips BidiAppend and BidiPoll messages", () => {
    assertRoundTrip(BidiAppendRequestSchema, {
      data: "3a00",
      requestId: { requestId: "req-1" },
      appendSeqno: 7n,
    });
    assertRoundTrip(BidiAppendRequestSchema, {
      dataBinary: new Uint8Array([0x3a, 0x00]),
      requestId: { requestId: "req-1" },
      appendSeqno: 0n,
    });
    assertRoundTrip(BidiPollRequestSchema, { requestId: { requestId: "r" }, startRequest: true });
    assertRoundTrip(BidiPollResponseSchema, { seqno: 3n, data: "OgA=", eof: false });
  });

  it("round-trips an AvailableModels catalog with variants and parameter definitions", () => {
    assertRoundTrip(AvailableModelsRequestSchema, {
      includeLongContextModels: true,
      useModelParameters: true,
      useCloudAgentEffortModes: true,
    });
    assertRoundTrip(AvailableModelsResponseSchema, {
      modelNames: ["claude-x"],
      models: [{
        name: "claude-x",
        defaultOn: true,
        supportsAgent: true,
        supportsThinking: true,
        supportsImages: false,
        degradationStatus: AvailableModelsResponse_DegradationStatus.DEGRADED,
        contextTokenLimit: 200_000,
        clientDisplayName: "Claude X",
        tooltipData: { primaryText: "Fast", markdownContent: "**Fast**" },
        parameterDefinitions: [
          {
            id: "effort",
            name: "Effort",
            parameterType: {
              type: {
                case: "enumParameter",
                value: { values: [{ value: "high", displayName: "High" }] },
              },
            },
          },
          {
            id: "thinking",
            name: "Thinking",
            parameterType: {
              type: {
                case: "booleanParameter",
                value: { values: [{ value: "true", increasesModelCost: true }] },
              },
            },
          },
        ],
        variants: [{
          parameterValues: [{ id: "effort", value: "high" }, { id: "context", value: "1m" }],
          displayName: "High 1M",
          isMaxMode: true,
          isDefaultMaxConfig: true,
          variantStringRepresentation: "claude-x-high",
        }],
        legacySlugs: ["claude-x-legacy"],
        vendor: { id: 1, displayName: "Vendor" },
      }],
      composerModelConfig: { defaultModel: "claude-x", fallbackModels: ["default"] },
    });
  });

  it("round-trips GetServerConfig and ErrorDetails", () => {
    assertRoundTrip(GetServerConfigResponseSchema, {
      configVersion: "42",
      http2Config: Http2Config.FORCE_ALL_DISABLED,
      agentUrlConfig: {
        agentUrl: "https://agent.api5.cursor.sh",
        agentnUrl: "https://agentn.api5.cursor.sh",
      },
    });
    assertRoundTrip(ErrorDetailsSchema, {
      error: ErrorDetails_Error.RATE_LIMITED_CHANGEABLE,
      details: {
        title: "You've hit your usage limit",
        detail: "Resets soon",
        isRetryable: false,
        additionalInfo: { reset: "2026-10-02" },
      },
      isExpected: true,
    });
    assert.equal(ErrorDetails_Error.BAD_MODEL_NAME, 5);
    assert.equal(ErrorDetails_Error.HOOKS_BLOCKED, 53);
  });
});
