/**
 * Running a model tool call against the client: the exec request(s) or interaction
 * query it becomes, waiting for the answer, and turning the answer into a result the
 * model quotes (`summary`) and the completed display `ToolCall`.
 *
 * @module
 */
import { clone, create } from "@bufbuild/protobuf";
import type { InteractionResponse } from "../../../../gen/agent/v1/interaction_query_pb.ts";
import {
  McpToolResultSchema,
  type ToolCall,
  ToolCallSchema,
} from "../../../../gen/agent/v1/tool_call_pb.ts";
import type { ToolSpec } from "../plan/directive-plan.ts";
import { absolutePath, displayToolCall, findMcpTool, jsonArgs, shellArgs } from "./tool-display.ts";
import {
  describeDecision,
  describeOutcome,
  describeShell,
  type OutcomeView,
} from "./tool-summary.ts";
import { runImage, runSubagent, runWebSearch } from "./surface-tools.ts";
import { execOnClient, type ExecRequest, queryClient, type ToolEnv } from "./client-calls.ts";

export type { ToolEnv } from "./client-calls.ts";

/** Tools Cursor offers no model in plan mode (it plans; it does not change files). */
const PLAN_MODE_BLOCKED: ReadonlySet<string> = new Set(["write", "edit", "delete"]);

/** The result of one tool call. */
export interface ToolResult {
  readonly spec: ToolSpec;
  readonly toolCallId: string;
  readonly ok: boolean;
  /** What the model quotes in its final text. */
  readonly summary: string;
  /** The display ToolCall with its result, for `tool_call_completed` and the step blob. */
  readonly completed: ToolCall;
}

function completed(base: ToolCall, view: OutcomeView): ToolCall {
  const call = clone(ToolCallSchema, base);
  view.setResult?.(call);
  return call;
}

/**
 * Runs one tool call: sends its exec(s) or query, waits, and describes the outcome.
 *
 * @param env The Run.
 * @param spec The call.
 * @param toolCallId Its id.
 * @param onDelta Emits a `tool_call_delta` (shell output, edit content).
 * @returns The result.
 */
export async function runTool(
  env: ToolEnv,
  spec: ToolSpec,
  toolCallId: string,
  onDelta: DeltaSink,
): Promise<ToolResult> {
  const base = displayToolCall(spec, toolCallId, env.workspace);
  const view = await runSpec(env, spec, toolCallId, onDelta);
  return { spec, toolCallId, ok: view.ok, summary: view.summary, completed: completed(base, view) };
}

type DeltaSink = (delta: { stream: "stdout" | "stderr" | "edit"; text: string }) => void;

async function runSpec(
  env: ToolEnv,
  spec: ToolSpec,
  toolCallId: string,
  onDelta: DeltaSink,
): Promise<OutcomeView> {
  if (env.conversation.mode === "plan" && PLAN_MODE_BLOCKED.has(spec.kind)) {
    return { ok: false, summary: `${spec.kind}: not available in plan mode` };
  }
  switch (spec.kind) {
    case "shell": {
      const args = shellArgs(spec.command, env.workspace, toolCallId);
      const request: ExecRequest = { case: "shellStreamArgs", value: args };
      const outcome = await execOnClient(
        env,
        toolCallId,
        request,
        (stream, text) => onDelta({ stream, text }),
      );
      return describeShell(args, outcome);
    }
    case "mcp":
      return await runMcp(env, spec, toolCallId);
    case "subagent":
      return await runSubagent(env, spec, toolCallId);
    case "image":
      return await runImage(env, spec, toolCallId);
    case "websearch":
      return await runWebSearch(env, spec, toolCallId);
    case "ask":
    case "mode":
    case "plan":
      return await runQuery(env, spec, toolCallId);
    default:
      return await runFileTool(env, spec, toolCallId, onDelta);
  }
}

async function runFileTool(
  env: ToolEnv,
  spec: Extract<ToolSpec, { kind: "read" | "write" | "edit" | "ls" | "grep" | "glob" | "delete" }>,
  toolCallId: string,
  onDelta: DeltaSink,
): Promise<OutcomeView> {
  if (spec.kind === "edit") return await runEdit(env, spec, toolCallId, onDelta);
  const path = absolutePath(env.workspace, spec.path);
  let request: ExecRequest;
  switch (spec.kind) {
    case "read":
      request = { case: "readArgs", value: { path, toolCallId } };
      break;
    case "write":
      await execOnClient(env, toolCallId, { case: "readArgs", value: { path, toolCallId } });
      onDelta({ stream: "edit", text: spec.content });
      request = { case: "writeArgs", value: { path, fileText: spec.content, toolCallId } };
      break;
    case "ls":
      request = { case: "lsArgs", value: { path, toolCallId } };
      break;
    case "delete":
      request = { case: "deleteArgs", value: { path, toolCallId } };
      break;
    default:
      request = grepRequest(spec, path, toolCallId);
  }
  return describeOutcome(spec, await execOnClient(env, toolCallId, request));
}

/**
 * Cursor's native edit (a string replacement): the model's edit tool call reads the file
 * and writes its whole changed text, both execs under the edit's tool call id. The text
 * read is taken as the client gave it; only the first occurrence of the old text changes.
 */
async function runEdit(
  env: ToolEnv,
  spec: Extract<ToolSpec, { kind: "edit" }>,
  toolCallId: string,
  onDelta: DeltaSink,
): Promise<OutcomeView> {
  const path = absolutePath(env.workspace, spec.path);
  const read = await execOnClient(env, toolCallId, {
    case: "readArgs",
    value: { path, toolCallId },
  });
  const label = `edit \`${spec.path}\``;
  const result = read.result?.case === "readResult" ? read.result.value.result : undefined;
  if (result?.case !== "success" || result.value.output.case !== "content") {
    return describeOutcome(spec, read);
  }
  const before = result.value.output.value;
  const at = before.indexOf(spec.oldText);
  if (at === -1) {
    return { ok: false, summary: `${label} failed: the old text is not in the file` };
  }
  const after = before.slice(0, at) + spec.newText + before.slice(at + spec.oldText.length);
  onDelta({ stream: "edit", text: after });
  const write: ExecRequest = { case: "writeArgs", value: { path, fileText: after, toolCallId } };
  return describeOutcome(spec, await execOnClient(env, toolCallId, write), after);
}

function grepRequest(
  spec: Extract<ToolSpec, { kind: "grep" | "glob" }>,
  path: string,
  toolCallId: string,
): ExecRequest {
  return spec.kind === "grep"
    ? {
      case: "grepArgs",
      value: { pattern: spec.pattern, path, outputMode: "content", toolCallId },
    }
    : {
      case: "grepArgs",
      value: {
        pattern: "",
        glob: spec.pattern,
        path,
        outputMode: "files_with_matches",
        toolCallId,
      },
    };
}

async function runMcp(
  env: ToolEnv,
  spec: Extract<ToolSpec, { kind: "mcp" }>,
  toolCallId: string,
): Promise<OutcomeView> {
  const tool = findMcpTool(env.tools, spec.name);
  if (tool === undefined) {
    const names = env.tools.map((t) => t.name).join(", ") || "none";
    const error =
      `mcp \`${spec.name}\`: the client does not advertise this tool (advertised: ${names})`;
    // Like Cursor's server-side invocation failures: no exec, an error on the completed call.
    return {
      ok: false,
      summary: error,
      setResult: (call) => {
        if (call.tool.case !== "mcpToolCall") return;
        call.tool.value.result = create(McpToolResultSchema, {
          result: { case: "error", value: { error: `Tool not found: ${error}` } },
        });
      },
    };
  }
  const request: ExecRequest = {
    case: "mcpArgs",
    value: {
      name: tool.name,
      args: jsonArgs(spec.args),
      toolCallId,
      providerIdentifier: tool.providerIdentifier,
      toolName: tool.toolName,
    },
  };
  return describeOutcome(spec, await execOnClient(env, toolCallId, request));
}

async function runQuery(
  env: ToolEnv,
  spec: Extract<ToolSpec, { kind: "ask" | "mode" | "plan" }>,
  toolCallId: string,
): Promise<OutcomeView> {
  switch (spec.kind) {
    case "ask": {
      const options = spec.options.map((label, index) => ({ id: `o${index + 1}`, label }));
      const args = {
        title: spec.question,
        questions: [{ id: "q1", prompt: spec.question, options }],
      };
      const response = await queryClient(env, toolCallId, {
        case: "askQuestionInteractionQuery",
        value: { args, toolCallId },
      });
      return await describeAnswer(env, spec, toolCallId, response);
    }
    case "mode": {
      const response = await queryClient(env, toolCallId, {
        case: "switchModeRequestQuery",
        value: { args: { targetModeId: spec.target, explanation: spec.explanation, toolCallId } },
      });
      const switched = response.result.case === "switchModeRequestResponse" &&
        response.result.value.result.case === "approved";
      if (switched) env.conversation.mode = spec.target;
      return describeDecision(`mode \`${spec.target}\``, response);
    }
    case "plan": {
      const response = await queryClient(env, toolCallId, {
        case: "createPlanRequestQuery",
        value: {
          args: { plan: spec.plan, name: spec.name, overview: spec.plan.split("\n")[0] ?? "" },
          toolCallId,
        },
      });
      const outcome = response.result.case === "createPlanRequestResponse"
        ? response.result.value.result
        : undefined;
      if (outcome?.result.case === "success") {
        env.acceptPlan(outcome.planUri, { name: spec.name, plan: spec.plan });
      }
      return describeDecision(`plan "${spec.name}"`, response);
    }
  }
}

async function describeAnswer(
  env: ToolEnv,
  spec: Extract<ToolSpec, { kind: "ask" }>,
  toolCallId: string,
  response: InteractionResponse,
): Promise<OutcomeView> {
  const label = `ask "${spec.question}"`;
  if (response.result.case !== "askQuestionInteractionResponse") {
    return describeDecision(label, response);
  }
  const result = response.result.value.result?.result;
  if (result?.case === "async") {
    env.io.variant("asyncAskQuestion", true);
    return { ok: true, summary: `${label}: answered ${await env.asyncAnswer(toolCallId)} (async)` };
  }
  if (result?.case === "success") {
    return {
      ok: true,
      summary: `${label}: answered ${answerText(result.value.answers, spec.options)}`,
    };
  }
  const reason = result?.case === "rejected"
    ? result.value.reason
    : result?.case === "error"
    ? result.value.errorMessage
    : "no result";
  return { ok: false, summary: `${label}: ${result?.case ?? "unanswered"} (${reason})` };
}

/** Renders answers as option labels and free text. */
export function answerText(
  answers: readonly { selectedOptionIds: readonly string[]; freeformText: string }[],
  options: readonly string[],
): string {
  const parts = answers.flatMap((answer) => [
    ...answer.selectedOptionIds.map((id) => options[Number(id.slice(1)) - 1] ?? id),
    ...(answer.freeformText === "" ? [] : [answer.freeformText]),
  ]);
  return parts.length === 0 ? "(nothing)" : parts.map((part) => JSON.stringify(part)).join(", ");
}
