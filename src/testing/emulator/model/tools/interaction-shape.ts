/**
 * What a well-formed answer to an interaction query looks like (AGENT-SCHEMA §7): the
 * result oneof set; AskQuestion answers naming only the asked questions and their
 * options, at most one option where several are not allowed; SwitchMode approved or
 * rejected; CreatePlan with its inner success or error; GenerateImage and WebSearch
 * approved or rejected. (An `async` answer is a recorded
 * variant, not a violation.)
 *
 * @module
 */
import type {
  AskQuestionArgs,
  InteractionQuery,
  InteractionResponse,
} from "../../../../gen/agent/v1/interaction_query_pb.ts";

/**
 * Finds what is wrong with an answer whose outer case already matches its query.
 *
 * @param query The query the emulator sent.
 * @param response The client's answer.
 * @returns The problem, or `undefined` for a well-formed answer.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { InteractionQuerySchema, InteractionResponseSchema } from "../../../../gen/agent/v1/interaction_query_pb.ts";
 * import { interactionAnswerProblem } from "./interaction-shape.ts";
 *
 * const query = create(InteractionQuerySchema, { id: 1, query: { case: "switchModeRequestQuery", value: { args: { targetModeId: "plan" } } } });
 * const empty = create(InteractionResponseSchema, { id: 1, result: { case: "switchModeRequestResponse", value: {} } });
 * console.assert(interactionAnswerProblem(query, empty) !== undefined);
 * ```
 */
export function interactionAnswerProblem(
  query: InteractionQuery,
  response: InteractionResponse,
): string | undefined {
  const result = response.result;
  switch (result.case) {
    case "askQuestionInteractionResponse": {
      const args = query.query.case === "askQuestionInteractionQuery"
        ? query.query.value.args
        : undefined;
      return askQuestionProblem(args, result.value.result?.result);
    }
    case "switchModeRequestResponse":
      return result.value.result.case === undefined
        ? "answered SwitchMode with neither approved nor rejected"
        : undefined;
    case "generateImageRequestResponse":
      return result.value.result.case === undefined
        ? "answered GenerateImage with neither approved nor rejected"
        : undefined;
    case "webSearchRequestResponse":
      return result.value.result.case === undefined
        ? "answered WebSearch with neither approved nor rejected"
        : undefined;
    case "createPlanRequestResponse":
      return result.value.result?.result.case === undefined
        ? "answered CreatePlan with neither success nor error"
        : undefined;
    default:
      return undefined;
  }
}

type AskResult =
  | NonNullable<
    Extract<InteractionResponse["result"], { case: "askQuestionInteractionResponse" }>["value"][
      "result"
    ]
  >["result"]
  | undefined;

function askQuestionProblem(
  args: AskQuestionArgs | undefined,
  result: AskResult,
): string | undefined {
  if (result === undefined || result.case === undefined) {
    return "answered AskQuestion without a result (success, error, rejected or async)";
  }
  if (result.case !== "success") return undefined;
  const questions = new Map((args?.questions ?? []).map((q) => [q.id, q]));
  for (const answer of result.value.answers) {
    const question = questions.get(answer.questionId);
    if (question === undefined) {
      return `answered question ${JSON.stringify(answer.questionId)}, which was not asked`;
    }
    const options = new Set(question.options.map((o) => o.id));
    const unknown = answer.selectedOptionIds.find((id) => !options.has(id));
    if (unknown !== undefined) {
      return `selected option ${JSON.stringify(unknown)}, which question ${
        JSON.stringify(question.id)
      } does not offer`;
    }
    if (!question.allowMultiple && answer.selectedOptionIds.length > 1) {
      return `selected ${answer.selectedOptionIds.length} options for single-choice question ${
        JSON.stringify(question.id)
      }`;
    }
  }
  return undefined;
}
