/**
 * Takes Cursor's questions, mode switches and plans to the person through the host's own
 * tools: AskQuestion becomes a call of the host's question tool, SwitchMode a yes/no
 * question, CreatePlan a save through the host's write (or patch) tool followed by the
 * question whether to implement it. The answer goes back on the Run as Cursor's
 * interaction response; a dismissal is an explicit decline, and a host with no question
 * tool gets the explicit decline straight away.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { JSONObject } from "@ai-sdk/provider";
import {
  type AskQuestionArgs,
  type CreatePlanArgs,
  type InteractionQuery,
  type InteractionResponse,
  InteractionResponseSchema,
  type SwitchModeArgs,
} from "../../../gen/agent/v1/interaction_query_pb.ts";
import { declineInteraction } from "../../../session/interactions.ts";
import type { HostTools } from "../tools/host-tools.ts";
import type { ImageStaging } from "../tools/image-save.ts";
import { propertyName } from "../tools/host-tools.ts";
import type { ToolResultText } from "../tools/tool-result-text.ts";
import { type HostQuestion, questionInput, questionTool, readAnswers } from "./question-tool.ts";
import { planPath } from "./plan-file.ts";

/** Said to Cursor when the host has no way to ask the person. */
const NO_QUESTION_TOOL = "The host offers no question tool in this session";

/** What to do next for a pending interaction: answer Cursor, or run one more host tool. */
export type InteractionStep =
  | { readonly type: "respond"; readonly response: InteractionResponse }
  | {
    readonly type: "call";
    readonly toolName: string;
    readonly input: JSONObject;
    /** Turns the tool's result into the next step. */
    readonly next: (result: ToolResultText) => InteractionStep;
  };

type ResultInit = NonNullable<MessageInitShape<typeof InteractionResponseSchema>["result"]>;

/** What the bridge knows besides the query. */
export interface InteractionContext {
  readonly tools: HostTools;
  /** The workspace root (plans are saved below it). */
  readonly workspaceRoot: string;
  /** Where generated images wait for the host's save tool (see `../tools/image-save.ts`). */
  readonly images?: ImageStaging | undefined;
}

/**
 * The first step for one interaction query.
 *
 * @param query The server's query (a question, mode switch or plan).
 * @param context The call's host tools.
 * @returns A host tool call, or the response to send right away.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { InteractionQuerySchema } from "../../../gen/agent/v1/interaction_query_pb.ts";
 * import { classifyHostTools } from "../tools/host-tools.ts";
 * import { bridgeInteraction } from "./interaction-bridge.ts";
 *
 * const query = create(InteractionQuerySchema, { id: 3, query: { case: "switchModeRequestQuery", value: { args: { targetModeId: "plan" } } } });
 * const step = bridgeInteraction(query, { tools: classifyHostTools([]), workspaceRoot: "/ws" });
 * console.assert(step.type === "respond" && step.response.result.case === "switchModeRequestResponse");
 * ```
 */
export function bridgeInteraction(
  query: InteractionQuery,
  context: InteractionContext,
): InteractionStep {
  const tool = questionTool(context.tools);
  const q = query.query;
  if (tool === undefined || q.case === undefined) return decline(query, NO_QUESTION_TOOL);
  switch (q.case) {
    case "askQuestionInteractionQuery":
      return askQuestion(query.id, tool.name, q.value.args);
    case "switchModeRequestQuery":
      return switchMode(query.id, tool.name, q.value.args);
    case "createPlanRequestQuery":
      return createPlan(query.id, tool.name, q.value.args, context);
    default:
      return decline(query, NO_QUESTION_TOOL);
  }
}

function decline(query: InteractionQuery, reason: string): InteractionStep {
  const response = declineInteraction(query, reason) ??
    create(InteractionResponseSchema, { id: query.id });
  return { type: "respond", response };
}

function respond(id: number, result: ResultInit): InteractionStep {
  return { type: "respond", response: create(InteractionResponseSchema, { id, result }) };
}

function ask(
  toolName: string,
  questions: readonly HostQuestion[],
  next: (result: ToolResultText) => InteractionStep,
): InteractionStep {
  return { type: "call", toolName, input: questionInput(questions), next };
}

function askQuestion(
  id: number,
  toolName: string,
  args: AskQuestionArgs | undefined,
): InteractionStep {
  const asked = args?.questions ?? [];
  const questions: HostQuestion[] = asked.map((q) => ({
    question: q.prompt,
    header: asked.length === 1 && args?.title ? args.title : q.prompt,
    options: q.options.map((o) => ({ label: o.label, description: "" })),
    multiple: q.allowMultiple,
  }));
  return ask(toolName, questions, (result) => {
    const rejected = (reason: string) =>
      respond(id, {
        case: "askQuestionInteractionResponse",
        value: { result: { result: { case: "rejected", value: { reason } } } },
      });
    if (result.isError) return rejected(result.text);
    const answers = readAnswers(questions, result.text).map((answer, index) => {
      const options = asked[index]?.options ?? [];
      return {
        questionId: asked[index]?.id ?? "",
        selectedOptionIds: answer.labels.map((label) =>
          options.find((o) => o.label === label)?.id ?? label
        ),
        freeformText: answer.freeform,
      };
    });
    return respond(id, {
      case: "askQuestionInteractionResponse",
      value: { result: { result: { case: "success", value: { answers } } } },
    });
  });
}

const YES = "Yes";
const NO = "No";

function switchMode(
  id: number,
  toolName: string,
  args: SwitchModeArgs | undefined,
): InteractionStep {
  const target = args?.targetModeId || "another";
  const why = args?.explanation ? `\n\n${args.explanation}` : "";
  const question: HostQuestion = {
    question: `Cursor asks to switch to ${target} mode.${why}`,
    header: `Switch to ${target} mode?`,
    options: [
      { label: YES, description: `Switch to ${target} mode` },
      { label: NO, description: "Stay in the current mode" },
    ],
  };
  return ask(toolName, [question], (result) => {
    const answer = result.isError ? undefined : readAnswers([question], result.text)[0];
    if (answer?.labels[0] === YES) {
      return respond(id, {
        case: "switchModeRequestResponse",
        value: { result: { case: "approved", value: {} } },
      });
    }
    const reason = answer?.freeform ||
      (result.isError ? result.text : "The user declined the mode switch");
    return respond(id, {
      case: "switchModeRequestResponse",
      value: { result: { case: "rejected", value: { reason } } },
    });
  });
}

/** Option labels of the plan review. */
const IMPLEMENT = "Implement the plan";
/** Option label that keeps planning. */
const KEEP_PLANNING = "Keep planning";
/** Told to Cursor when the person declines or dismisses the plan review. */
const PLAN_DECLINED =
  "The user did not approve the plan. Stay in plan mode and wait for the user's next message";

function createPlan(
  id: number,
  toolName: string,
  args: CreatePlanArgs | undefined,
  context: InteractionContext,
): InteractionStep {
  const plan = args?.plan ?? "";
  const name = args?.name || "plan";
  const review = (planUri: string, saveNote: string): InteractionStep => {
    const question: HostQuestion = {
      question: `${plan}\n\n${saveNote}Implement this plan?`,
      header: name,
      options: [
        { label: IMPLEMENT, description: "Approve the plan and start building" },
        { label: KEEP_PLANNING, description: "Stay in plan mode" },
      ],
    };
    return ask(toolName, [question], (result) => {
      const reply = (outcome: ResultInit & { case: "createPlanRequestResponse" }) =>
        respond(id, outcome);
      const failed = (error: string) =>
        reply({
          case: "createPlanRequestResponse",
          value: { result: { result: { case: "error", value: { error } }, planUri } },
        });
      if (result.isError) return failed(PLAN_DECLINED);
      const answer = readAnswers([question], result.text)[0];
      if (answer?.labels[0] === IMPLEMENT) {
        return reply({
          case: "createPlanRequestResponse",
          value: { result: { result: { case: "success", value: {} }, planUri } },
        });
      }
      if (answer?.freeform) {
        return failed(`The user asked for changes to the plan: ${answer.freeform}`);
      }
      return failed(PLAN_DECLINED);
    });
  };
  const { write, patch } = context.tools.byRole;
  const path = planPath(context.workspaceRoot, name);
  if (write !== undefined) {
    const input: JSONObject = {
      [propertyName(write, ["filePath", "path", "file_path"])]: path,
      [propertyName(write, ["content", "contents"])]: plan,
    };
    return {
      type: "call",
      toolName: write.name,
      input,
      next: (saved) => review(saved.isError ? "" : path, savedNote(path, saved)),
    };
  }
  if (patch !== undefined) {
    const body = plan.split("\n").map((line) => `+${line}`).join("\n");
    const input: JSONObject = {
      [propertyName(patch, ["patchText", "patch", "input"])]:
        `*** Begin Patch\n*** Add File: ${path}\n${body}\n*** End Patch`,
    };
    return {
      type: "call",
      toolName: patch.name,
      input,
      next: (saved) => review(saved.isError ? "" : path, savedNote(path, saved)),
    };
  }
  return review("", "(No host tool could save this plan.)\n\n");
}

function savedNote(path: string, saved: ToolResultText): string {
  return saved.isError
    ? `(The plan could not be saved: ${saved.text})\n\n`
    : `(Saved to ${path}.)\n\n`;
}
