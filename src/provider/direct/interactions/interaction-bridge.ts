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
import { create } from "@bufbuild/protobuf";
import {
  type AskQuestionArgs,
  type InteractionQuery,
  InteractionResponseSchema,
  type SwitchModeArgs,
} from "../../../gen/agent/v1/interaction_query_pb.ts";
import { declineInteraction } from "../../../agent-run/query-routing.ts";
import { type HostQuestion, questionTool, readAnswers } from "./question-tool.ts";
import { ruleBlock, type SessionRules } from "./session-rules.ts";
import { createPlan } from "./plan-review.ts";
import {
  ask,
  blockedReason,
  type InteractionContext,
  type InteractionStep,
  respond,
} from "./interaction-step.ts";

/** Said to Cursor when the host has no way to ask the person. */
const NO_QUESTION_TOOL = "The host offers no question tool in this session";

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
      return switchMode(query.id, tool.name, q.value.args, context);
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

/** Modes that do not implement anything (every other target does). */
const NON_IMPLEMENTING: ReadonlySet<string> = new Set(["plan", "spec", "ask", "chat"]);

function rejectSwitch(id: number, reason: string): InteractionStep {
  return respond(id, {
    case: "switchModeRequestResponse",
    value: { result: { case: "rejected", value: { reason } } },
  });
}

function switchMode(
  id: number,
  toolName: string,
  args: SwitchModeArgs | undefined,
  context: InteractionContext,
): InteractionStep {
  const target = args?.targetModeId || "another";
  const implementing = !NON_IMPLEMENTING.has(target.toLowerCase());
  const blocked = (rules: SessionRules | undefined) => implementing ? ruleBlock(rules) : undefined;
  const block = blocked(context.rules);
  if (block !== undefined) {
    return rejectSwitch(id, blockedReason(block, `Switching to ${target} mode`));
  }
  const why = args?.explanation ? `\n\n${args.explanation}` : "";
  const question: HostQuestion = {
    question: `Cursor asks to switch to ${target} mode.${why}`,
    header: `Switch to ${target} mode?`,
    options: [
      { label: YES, description: `Switch to ${target} mode` },
      { label: NO, description: "Stay in the current mode" },
    ],
  };
  return ask(toolName, [question], (result, now) => {
    const answer = result.isError ? undefined : readAnswers([question], result.text)[0];
    if (answer?.labels[0] === YES) {
      // The rules may have changed while the question waited.
      const late = blocked(now.rules);
      if (late !== undefined) {
        return rejectSwitch(id, blockedReason(late, `Switching to ${target} mode`));
      }
      return respond(id, {
        case: "switchModeRequestResponse",
        value: { result: { case: "approved", value: {} } },
      }, { mode: target.toLowerCase() });
    }
    return rejectSwitch(
      id,
      answer?.freeform || (result.isError ? result.text : "The user declined the mode switch"),
    );
  });
}
